package import ListDomain

/// A dataset's profile as `GET /admin/datasets/<name>/profile` answers it: the body it was set with, and where it
/// stands: `{"dataset":…,"outage":{"for_ms":…,"every_ms":…,"active":B,"remaining_ms":R},"faults":{…},"latency":{…},
/// "bandwidth":{…},"rate_limit":{…},"auth":{"token_ttl_s":T},"chat":{…},"script":[{…,"times":N,"left":L}]}`.
extension ProfileRegistry.Entry {
    package func writeJSON(dataset: String, elapsed: Duration, into json: inout JSONWriter) {
        json.append(raw: "{\"dataset\":")
        json.append(string: dataset)
        if let outage = profile.outage {
            json.append(raw: ",\"outage\":{\"for_ms\":")
            json.append(integer: outage.forMs)
            if let every = outage.everyMs {
                json.append(raw: ",\"every_ms\":")
                json.append(integer: every)
            }
            let remaining = outage.remaining(after: elapsed)
            json.append(raw: remaining == nil ? ",\"active\":false" : ",\"active\":true,\"remaining_ms\":")
            if let remaining {
                let (seconds, attoseconds) = remaining.components
                json.append(integer: UInt64(max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)))
            }
            json.append(raw: "}")
        }
        // One way to write an object's optional members, for the faults, each step's match and its answer.
        var first = true
        func member(_ name: StaticString) {
            if !first { json.append(raw: ",") }
            first = false
            json.append(raw: name)
        }
        if let faults = profile.faults {
            json.append(raw: ",\"faults\":{")
            if let rate = faults.rate {
                member("\"rate\":")
                json.append(double: rate)
            }
            if let mix = faults.mix {
                member("\"kinds\":")
                json.append(string: mix.text)
            }
            if let failFirst = faults.failFirst {
                member("\"fail_first\":")
                json.append(integer: failFirst)
            }
            if let seed = faults.seed {
                member("\"seed\":")
                json.append(integer: seed)
            }
            json.append(raw: "}")
        }
        writeNetwork(into: &json)
        if let chat = profile.chat {
            json.append(raw: ",\"chat\":{\"messages_per_min\":")
            json.append(double: chat.messagesPerMinute)
            json.append(raw: ",\"typing_ms\":")
            json.append(integer: Int(chat.typing / .milliseconds(1)))
            json.append(raw: ",\"edit_ratio\":")
            json.append(double: chat.editRatio)
            json.append(raw: ",\"delete_ratio\":")
            json.append(double: chat.deleteRatio)
            if let seed = chat.seed {
                json.append(raw: ",\"seed\":")
                json.append(integer: seed)
            }
            json.append(raw: "}")
        }
        json.append(raw: ",\"script\":[")
        for (index, step) in profile.script.enumerated() {
            if index > 0 { json.append(raw: ",") }
            json.append(raw: "{\"match\":{")
            first = true
            if let method = step.match.method {
                member("\"method\":")
                json.append(string: method)
            }
            if let route = step.match.route {
                member("\"route\":")
                json.append(string: route)
            }
            if !step.match.query.isEmpty {
                member("\"query\":{")
                for (position, parameter) in step.match.query.enumerated() {
                    if position > 0 { json.append(raw: ",") }
                    json.append(string: parameter.name)
                    json.append(raw: ":")
                    json.append(string: parameter.value)
                }
                json.append(raw: "}")
            }
            json.append(raw: "},\"respond\":{")
            first = true
            if let status = step.answer.status {
                member("\"status\":")
                json.append(integer: status)
            }
            if let seconds = step.answer.retryAfterSeconds {
                member("\"retry_after_s\":")
                json.append(integer: seconds)
            }
            if let delay = step.answer.bodyDelayMs {
                member("\"body_delay_ms\":")
                json.append(integer: delay)
            }
            if let kind = step.answer.kind {
                member("\"kind\":")
                json.append(string: kind.rawValue)
            }
            json.append(raw: "},\"times\":")
            json.append(integer: step.times)
            json.append(raw: ",\"left\":")
            json.append(integer: left[index])
            json.append(raw: "}")
        }
        json.append(raw: "]}")
    }
}

extension ProfileRegistry.Entry {
    /// `,"latency":…,"bandwidth":…,"rate_limit":…,"auth":…`, those the profile has.
    fileprivate func writeNetwork(into json: inout JSONWriter) {
        if let latency = profile.latency {
            json.append(raw: ",\"latency\":{")
            var first = true
            for (name, distribution) in [("list", latency.list), ("detail", latency.detail), ("image", latency.image)] {
                guard let distribution else { continue }
                if !first { json.append(raw: ",") }
                first = false
                json.append(string: name)
                json.append(raw: ":")
                Self.write(distribution, into: &json)
            }
            json.append(raw: "}")
        }
        if let bandwidth = profile.bandwidth {
            json.append(raw: ",\"bandwidth\":{\"kbps\":")
            json.append(integer: bandwidth.kbps)
            json.append(raw: ",\"first_byte_ms\":")
            json.append(integer: bandwidth.firstByteMs)
            json.append(raw: "}")
        }
        if let limit = profile.rateLimit {
            json.append(raw: ",\"rate_limit\":{\"requests\":")
            json.append(integer: limit.requests)
            json.append(raw: ",\"per_s\":")
            json.append(integer: limit.perSeconds)
            json.append(raw: ",\"burst\":")
            json.append(integer: limit.capacity)
            json.append(raw: "}")
        }
        if let auth = profile.auth {
            json.append(raw: ",\"auth\":{\"token_ttl_s\":")
            json.append(integer: auth.tokenTTLSeconds)
            json.append(raw: "}")
        }
    }

    /// A latency with its distribution named and its keys, as the body takes it back.
    private static func write(_ distribution: LatencyDistribution, into json: inout JSONWriter) {
        func ms(_ name: StaticString, _ duration: Duration) {
            json.append(raw: name)
            json.append(integer: Int(duration / .milliseconds(1)))
        }
        switch distribution {
        case .uniform(let min, let max):
            ms("{\"distribution\":\"uniform\",\"min_ms\":", min)
            ms(",\"max_ms\":", max)
        case .fixed(let duration):
            ms("{\"distribution\":\"fixed\",\"fixed_ms\":", duration)
        case .lognormal(let median, let spread, let max):
            ms("{\"distribution\":\"lognormal\",\"median_ms\":", median)
            json.append(raw: ",\"spread\":")
            json.append(double: spread)
            ms(",\"max_ms\":", max)
        case .none:
            json.append(raw: "{\"distribution\":\"none\"")
        }
        json.append(raw: "}")
    }
}
