/// A slot made from a request and its answer on the loop that answered it, while both are in its cache, and read back
/// as an entry when someone reads the journal.
///
/// Made straight from the request and the answer: copying them into a record first and reading that later cost
/// their reference counts twice, and cache misses when the record was read 100 ms on (callgrind: the journal added
/// 9,500 instructions a page so, of a page's 75,000).
extension JournalSlot {
    /// The slot of `request`, answered with `response` (`abandonedAt`: the body bytes the client got before it left),
    /// that arrived and was answered at slot times `times` (from `time(_:)`); `route` is the place of its route in the
    /// route table, nil for none; `fields` what ``HTTPHeaders/journalRequestFields()`` found of the request's.
    /// `extra` is set when the slot needs one.
    init(
        _ request: borrowing HTTPRequest, fields: RequestFields, route: Int?, _ response: borrowing HTTPResponse,
        times: (start: Int64, end: Int64), abandonedAt: Int?, queryClient: String? = nil, extra: inout Extra?
    ) {
        // Places, not values: the values of an answer's fields are read where they lie, and only those the slot
        // keeps. `Retry-After` goes with a 3xx, a 429 or a 503 (RFC 9110 §10.2.3): a 2xx is not searched for it.
        let answer = response.headers.journalFields(retryAfter: response.status >= 300)
        let methodCode = Self.code(of: request.method)
        let sendsBody = methodCode != Self.headCode  // a HEAD's answer sends no body
        self.init(
            start: times.start, end: times.end,
            bytes: sendsBody ? UInt32(clamping: response.body.count) : 0,
            status: UInt16(clamping: response.status), method: UInt8(methodCode ?? Self.methods.count),
            route: route.map { UInt8(clamping: $0) } ?? Self.otherRoute)
        self.abandonedAt = abandonedAt.map { UInt32(clamping: $0) } ?? Self.whole
        if sendsBody, let identityBytes = response.identityBytes {
            self.identityBytes = UInt32(clamping: identityBytes)
        }
        if let place = answer.retryAfter, let seconds = UInt16(response.headers.value(at: place)) {
            retryAfter = seconds
        }
        switch response.note {
        case .injected(let name): fault = Self.faultNames.firstIndex(of: name).map { UInt8($0 + 1) } ?? 0
        case .listed(let lowest, let highest, let count, let last):
            (listedLowest, listedHighest, listedCount) = (lowest, highest, UInt32(clamping: count))
            flags.insert(last ? [.listed, .listedLast] : .listed)
        case nil: break
        }
        if fault == 0, let wireFault = response.fault {
            fault = Self.faultNames.firstIndex(of: wireFault.name).map { UInt8($0 + 1) } ?? 0
        }
        if methodCode == Self.postCode, !request.body.isEmpty {
            var hasher = Hasher()
            request.body.withUnsafeBytes { hasher.combine(bytes: $0) }
            bodyHash = Int64(hasher.finalize())
            flags.insert(.bodyHash)
        }
        var otherContentType: String?
        if let place = answer.contentType {
            if response.headers.value(at: place, is: MediaType.json) {  // nearly every answer
                contentType = 1
            } else {
                let value = response.headers.value(at: place)
                if let code = Self.contentTypes.firstIndex(of: value) {
                    contentType = UInt8(code + 1)
                } else {
                    contentType = Self.otherContentType
                    otherContentType = value
                }
            }
        }
        let client = fields.client.map { request.headers.value(at: $0) } ?? queryClient
        if client == nil {
            flags.insert(.peer)
            port = request.peerPort
        }
        let etag = answer.etag.map { response.headers.value(at: $0) }
        // The texts, one after the other, as far as they fit; the others go with the rare fields.
        (targetLength, clientLength, etagLength) = place(request.target, client ?? request.peer, etag)
        if fields.rare || targetLength == Self.elsewhere || clientLength == Self.elsewhere
            || etagLength == Self.elsewhere || otherContentType != nil || methodCode == nil
        {
            flags.insert(.extra)
            let headers = request.headers
            extra = Extra(
                ifNoneMatch: fields.rare ? headers["If-None-Match"] : nil,
                ifMatch: fields.rare ? headers["If-Match"] : nil,
                idempotencyKey: fields.rare ? headers["Idempotency-Key"] : nil,
                range: fields.rare ? headers["Range"] : nil,
                lastEventID: fields.rare ? headers["Last-Event-ID"] : nil,
                target: targetLength == Self.elsewhere ? request.target : nil,
                client: clientLength == Self.elsewhere ? client ?? request.peer : nil,
                etag: etagLength == Self.elsewhere ? etag : nil, contentType: otherContentType,
                methodName: methodCode == nil ? request.method.name : nil)
        }
    }

    /// What ``HTTPHeaders/journalRequestFields()`` found of a request's fields.
    typealias RequestFields = (dataset: Int?, client: Int?, rare: Bool)

    /// The codes of `HEAD` and `POST` in ``methods``.
    private static let headCode = 1
    private static let postCode = 2

    /// `method`'s place in ``methods`` (a switch: a search of the array compared enums with payloads generically).
    private static func code(of method: HTTPMethod) -> Int? {
        switch method {
        case .get: 0
        case .head: 1
        case .post: 2
        case .put: 3
        case .delete: 4
        case .options: 5
        case .patch: 6
        case .trace: 7
        case .connect: 8
        case .other: nil
        }
    }

    /// Copies the three texts into ``text``, one after the other, each as far as there is room; returns their
    /// lengths, ``elsewhere`` for one that does not fit (and 0 for no `ETag`). Each is copied whole with `memcpy`
    /// (a byte at a time through spans it took 458 instructions a page, callgrind).
    private mutating func place(_ target: String, _ client: String, _ etag: String?) -> (UInt8, UInt8, UInt8) {
        withUnsafeMutableBytes(of: &text) { text in
            var used = 0
            let target = Self.copy(target, into: text, at: &used)
            let client = Self.copy(client, into: text, at: &used)
            return (target, client, etag.map { Self.copy($0, into: text, at: &used) } ?? 0)
        }
    }

    /// Copies `string` into `text` at `used` and moves `used` past it; returns its length, or ``elsewhere`` when it
    /// does not fit (nothing copied).
    private static func copy(_ string: String, into text: UnsafeMutableRawBufferPointer, at used: inout Int) -> UInt8 {
        let length = string.utf8.withContiguousStorageIfAvailable { source -> UInt8 in
            let count = source.count
            guard count < Int(elsewhere), used + count <= text.count else { return elsewhere }
            if count > 0 { (text.baseAddress! + used).copyMemory(from: source.baseAddress!, byteCount: count) }
            return UInt8(count)
        }
        guard let length, length != elsewhere else { return elsewhere }
        used += Int(length)
        return length
    }

    /// How many bytes ``text`` holds.
    static let textCapacity = MemoryLayout<Text>.size

    /// The text of the `field`th of the texts (0: the target, 1: the client, 2: the `ETag`), or nil when it is
    /// kept elsewhere or absent.
    private func text(_ field: Int) -> String? {
        let lengths = [targetLength, clientLength, etagLength]
        guard lengths[field] != Self.elsewhere else { return nil }
        var start = 0
        for earlier in 0..<field where lengths[earlier] != Self.elsewhere { start += Int(lengths[earlier]) }
        return withUnsafeBytes(of: text) { text in
            String(decoding: text[start..<start + Int(lengths[field])], as: UTF8.self)
        }
    }

    /// The entry this slot keeps, with its `extra`, with times in microseconds since `epoch`; `routes` names the route
    /// table's routes.
    func entry(routes: [String], epoch: ContinuousClock.Instant, extra: Extra?) -> JournalEntry {
        let target = extra?.target ?? text(0) ?? ""
        let clientText = extra?.client ?? text(1) ?? ""
        var entry = JournalEntry(
            seq: seq, start: JournalEntry.microseconds(.nanoseconds(start &- Self.time(epoch))),
            duration: max(0, JournalEntry.microseconds(.nanoseconds(end &- start))),
            client: flags.contains(.peer) ? (clientText.isEmpty ? "peer:-" : "peer:\(clientText):\(port)") : clientText,
            method: Int(method) < Self.methods.count ? Self.methods[Int(method)] : .other(extra?.methodName ?? "?"),
            target: target,
            route: route != Self.otherRoute && Int(route) < routes.count ? routes[Int(route)] : "other",
            status: Int(status), bytes: Int(bytes))
        entry.abandonedAt = abandonedAt == Self.whole ? nil : Int(abandonedAt)
        entry.identityBytes = identityBytes == Self.whole ? nil : Int(identityBytes)
        entry.fault = fault > 0 ? Self.faultNames[Int(fault) - 1] : nil
        entry.ifNoneMatch = extra?.ifNoneMatch
        entry.ifMatch = extra?.ifMatch
        entry.idempotencyKey = extra?.idempotencyKey
        entry.range = extra?.range
        entry.lastEventID = extra?.lastEventID
        entry.contentType =
            contentType == Self.otherContentType
            ? extra?.contentType : contentType > 0 ? Self.contentTypes[Int(contentType) - 1] : nil
        entry.etag = etagLength == 0 ? nil : extra?.etag ?? text(2)
        entry.retryAfter = retryAfter == Self.noRetryAfter ? nil : Int(retryAfter)
        entry.bodyHash = flags.contains(.bodyHash) ? Int(bodyHash) : nil
        if flags.contains(.listed) {
            entry.listed = JournalEntry.ListedIDs(
                lowest: listedLowest, highest: listedHighest, count: Int(listedCount),
                last: flags.contains(.listedLast))
        }
        return entry
    }
}
