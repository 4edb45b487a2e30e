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
    /// `extra` is set when the slot needs one. ``init(opening:fields:route:queryClient:extra:)`` and
    /// ``close(_:times:abandonedAt:extra:)`` in one.
    init(
        _ request: borrowing HTTPRequest, fields: RequestFields, route: Int?, _ response: borrowing HTTPResponse,
        times: (start: Int64, end: Int64), abandonedAt: Int?, queryClient: String? = nil, extra: inout Extra?
    ) {
        self.init(opening: request, fields: fields, route: route, queryClient: queryClient, extra: &extra)
        close(response, times: times, abandonedAt: abandonedAt, extra: &extra)
    }

    /// The request's half of its slot, made when it arrives: its method, route, target, client and the fields list
    /// clients send now and then (in `extra`, set when the slot needs one); ``close(_:times:abandonedAt:extra:)``
    /// adds the answer's.
    ///
    /// Made then, the request need not be kept until its answer: a loop's note of a request in flight held a copy of
    /// it for the journal, and that copy's reference counts, taken and given back, cost 300 instructions a page
    /// (callgrind), more than this half.
    init(
        opening request: borrowing HTTPRequest, fields: RequestFields, route: Int?, queryClient: String?,
        extra: inout Extra?
    ) {
        self = .empty
        open(request, fields: fields, route: route, queryClient: queryClient, extra: &extra)
    }

    /// Writes the request's half (``init(opening:fields:route:queryClient:extra:)``) into this slot, which has
    /// nothing in it yet (``empty``, as a loop's note of a request starts): only what the request sets is written.
    /// Made as a new slot and assigned, the slot was built and copied three times (callgrind: 3 `memcpy`s of its
    /// 176 bytes a page).
    mutating func open(
        _ request: borrowing HTTPRequest, fields: RequestFields, route: Int?, queryClient: String?,
        extra: inout Extra?
    ) {
        let methodCode = Self.code(of: request.method)
        method = UInt8(methodCode ?? Self.methods.count)
        self.route = route.map { UInt8(clamping: $0) } ?? Self.otherRoute
        if methodCode == Self.postCode, !request.body.isEmpty {
            var hasher = Hasher()
            request.body.withUnsafeBytes { hasher.combine(bytes: $0) }
            bodyHash = Int64(hasher.finalize())
            flags.insert(.bodyHash)
        }
        let client = fields.client.map { request.headers.value(at: $0) } ?? queryClient
        if client == nil {
            flags.insert(.peer)
            port = request.peerPort
        }
        // The target and the client go first into the text, the answer's `ETag` after them. Each read where it lies:
        // `client ?? request.peer` made a copy of the address, a retain and a release a page.
        var used = 0
        withUnsafeMutableBytes(of: &text) { text in
            targetLength = Self.copy(request.target, into: text, at: &used)
            if let client {
                clientLength = Self.copy(client, into: text, at: &used)
            } else {
                clientLength = Self.copy(request.peer, into: text, at: &used)
            }
        }
        guard fields.rare || targetLength == Self.elsewhere || clientLength == Self.elsewhere || methodCode == nil
        else { return }
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
            etag: nil, contentType: nil, methodName: methodCode == nil ? request.method.name : nil)
    }

    /// Adds the answer's half to a slot made by ``init(opening:fields:route:queryClient:extra:)``: `response`, done at
    /// slot times `times` (from `time(_:)`; `abandonedAt`: the body bytes the client got before it left). `extra` is
    /// the opening's, replaced by one that also holds what of the answer did not fit.
    mutating func close(
        _ response: borrowing HTTPResponse, times: (start: Int64, end: Int64), abandonedAt: Int?, extra: inout Extra?
    ) {
        // Places, not values: the values of an answer's fields are read where they lie, and only those the slot
        // keeps. `Retry-After` goes with a 3xx, a 429 or a 503 (RFC 9110 §10.2.3): a 2xx is not searched for it.
        let answer = response.headers.journalFields(retryAfter: response.status >= 300)
        let sendsBody = method != Self.headCode  // a HEAD's answer sends no body
        (start, end) = times
        bytes = sendsBody ? UInt32(clamping: response.body.count) : 0
        status = UInt16(clamping: response.status)
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
        if let place = answer.etag {
            var used = Int(targetLength == Self.elsewhere ? 0 : targetLength)
            used += Int(clientLength == Self.elsewhere ? 0 : clientLength)
            // Read where it lies: a copy of the value cost a retain and a release a page.
            etagLength = withUnsafeMutableBytes(of: &text) { text in
                response.headers.withValue(at: place) { Self.copy($0, into: text, at: &used) }
            }
        }
        guard etagLength == Self.elsewhere || otherContentType != nil else { return }
        flags.insert(.extra)
        extra = Extra(
            ifNoneMatch: extra?.ifNoneMatch, ifMatch: extra?.ifMatch, idempotencyKey: extra?.idempotencyKey,
            range: extra?.range, lastEventID: extra?.lastEventID, target: extra?.target, client: extra?.client,
            etag: etagLength == Self.elsewhere ? answer.etag.map { response.headers.value(at: $0) } : nil,
            contentType: otherContentType, methodName: extra?.methodName)
    }

    /// What ``HTTPHeaders/journalRequestFields()`` found of a request's fields.
    typealias RequestFields = (dataset: Int?, client: Int?, rare: Bool)

    /// The codes of `HEAD` and `POST` in ``methods``.
    private static let headCode: UInt8 = 1
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
