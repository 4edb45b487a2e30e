/// A slot made from a request and its answer on the loop that answered it, while both are in its cache, and read back
/// as an entry when someone reads the journal.
///
/// Made straight from the request and the answer: copying them into a record first and reading that later cost
/// their reference counts twice, and cache misses when the record was read 100 ms on (callgrind: the journal added
/// 9,500 instructions a page so, of a page's 75,000).
extension JournalSlot {
    /// The slot of `request`, answered with `response` (`abandonedAt`: the body bytes the client got before it left);
    /// `route` is the place of its route in the route table, nil for none. `extra` is set when the slot needs one.
    init(
        _ request: borrowing HTTPRequest, route: Int?, _ response: borrowing HTTPResponse,
        start: ContinuousClock.Instant, end: ContinuousClock.Instant, abandonedAt: Int?, queryClient: String? = nil,
        extra: inout Extra?
    ) {
        var client, range, ifMatch, ifNoneMatch, lastEventID, idempotencyKey: String?
        request.headers.forEachField { name, value in
            // The names clients send are mostly spelled as here: `==` first, which compares small strings whole.
            switch name.utf8.count {
            case 5 where Self.named(name, "Range"): range = range ?? value
            case 8 where Self.named(name, "If-Match"): ifMatch = ifMatch ?? value
            case 11 where Self.named(name, "X-Client-Id"): client = client ?? (value.isEmpty ? nil : value)
            case 13 where Self.named(name, "If-None-Match"): ifNoneMatch = ifNoneMatch ?? value
            case 13 where Self.named(name, "Last-Event-ID"): lastEventID = lastEventID ?? value
            case 15 where Self.named(name, "Idempotency-Key"): idempotencyKey = idempotencyKey ?? value
            default: break
            }
        }
        // An answer has more fields (eight for a page): read by index, not handed to a closure one by one, which
        // retained and released each (callgrind: 1,960 instructions a page for the slot, 1,600 so). `Retry-After`
        // goes with a 3xx, a 429 or a 503 (RFC 9110 §10.2.3): a 2xx is not searched for it.
        let (etag, contentType, retryAfterField) = response.headers.journalFields(retryAfter: response.status >= 300)
        let retryAfter = retryAfterField.flatMap { UInt16($0) } ?? Self.noRetryAfter
        client = client ?? queryClient
        let methodCode = Self.code(of: request.method)
        self.init(
            start: Self.time(start), end: Self.time(end),
            bytes: request.method == .head ? 0 : UInt32(clamping: response.body.count),
            status: UInt16(clamping: response.status), method: UInt8(methodCode ?? Self.methods.count),
            route: route.map { UInt8(clamping: $0) } ?? Self.otherRoute)
        self.abandonedAt = abandonedAt.map { UInt32(clamping: $0) } ?? Self.whole
        if request.method != .head, let identityBytes = response.identityBytes {  // a HEAD sends no body
            self.identityBytes = UInt32(clamping: identityBytes)
        }
        self.retryAfter = retryAfter
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
        if request.method == .post, !request.body.isEmpty {
            var hasher = Hasher()
            request.body.withUnsafeBytes { hasher.combine(bytes: $0) }
            bodyHash = Int64(hasher.finalize())
            flags.insert(.bodyHash)
        }
        var otherContentType: String?
        if let contentType {
            if contentType == MediaType.json {  // nearly every answer
                self.contentType = 1
            } else if let code = Self.contentTypes.firstIndex(of: contentType) {
                self.contentType = UInt8(code + 1)
            } else {
                self.contentType = Self.otherContentType
                otherContentType = contentType
            }
        }
        if client == nil {
            flags.insert(.peer)
            port = request.peerPort
        }
        // The texts, one after the other, as far as they fit; the others go with the rare fields.
        (targetLength, clientLength, etagLength) = place(request.target, client ?? request.peer, etag)
        let rare = ifNoneMatch != nil || ifMatch != nil || idempotencyKey != nil || range != nil || lastEventID != nil
        if rare || targetLength == Self.elsewhere || clientLength == Self.elsewhere || etagLength == Self.elsewhere
            || otherContentType != nil || methodCode == nil
        {
            flags.insert(.extra)
            extra = Extra(
                ifNoneMatch: ifNoneMatch, ifMatch: ifMatch, idempotencyKey: idempotencyKey, range: range,
                lastEventID: lastEventID, target: targetLength == Self.elsewhere ? request.target : nil,
                client: clientLength == Self.elsewhere ? client ?? request.peer : nil,
                etag: etagLength == Self.elsewhere ? etag : nil, contentType: otherContentType,
                methodName: methodCode == nil ? request.method.name : nil)
        }
    }

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

    /// Whether field name `name` is `canonical`, in any case.
    private static func named(_ name: String, _ canonical: String) -> Bool {
        name == canonical || HTTPHeaders.namesMatch(name, canonical)
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
            seq: seq, start: JournalEntry.microseconds(start - Self.time(epoch)),
            duration: max(0, JournalEntry.microseconds(end - start)),
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
