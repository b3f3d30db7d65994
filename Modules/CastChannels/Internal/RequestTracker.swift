/// Request ids and awaited replies, without I/O.
///
/// Ids are positive and unique among the requests in flight. The first id is random so that two
/// senders on one receiver rarely use the same ids (replies are broadcasts: a sender can only
/// tell its replies apart by id). A reply matches when its namespace and `requestId` match a
/// request in flight and the request accepts it.
package struct RequestTracker<Waiter> {
    package struct Entry {
        package var namespace: String
        package var destinationId: String
        package var accept: @Sendable (CastChannelMessage) -> Bool
        package var waiter: Waiter
        /// When the request times out, as time elapsed on the connection's clock; `nil`: never.
        package var deadline: Duration?
        /// What the request was (its `type`), for a timeout's message.
        package var label: String
        /// The time it was given, for a timeout's message.
        package var timeout: Duration?

        /// Creates an entry.
        package init(namespace: String, destinationId: String, accept: @escaping @Sendable (CastChannelMessage) -> Bool,
                     waiter: Waiter, deadline: Duration? = nil, timeout: Duration? = nil, label: String = "request") {
            self.label = label
            self.timeout = timeout
            self.namespace = namespace
            self.destinationId = destinationId
            self.accept = accept
            self.waiter = waiter
            self.deadline = deadline
        }
    }

    private var nextId: Int
    private var inFlight: [Int: Entry] = [:]
    private static var maxId: Int { Int(Int32.max) }

    /// Creates a tracker whose first id is `firstId` (clamped into 1...Int32.max).
    package init(firstId: Int) {
        nextId = min(max(firstId, 1), Self.maxId)
    }

    /// The number of requests in flight.
    package var count: Int { inFlight.count }

    /// The labels of the requests in flight.
    package var labels: [String] { inFlight.values.map { $0.label } }

    /// Reserves a fresh id.
    package mutating func allocate() -> Int {
        while inFlight[nextId] != nil { advance() }
        defer { advance() }
        return nextId
    }

    private mutating func advance() {
        nextId = nextId >= Self.maxId ? 1 : nextId + 1
    }

    /// Starts waiting for a reply to request `id`.
    package mutating func register(_ id: Int, entry: Entry) {
        inFlight[id] = entry
    }

    /// Whether `message` answers a request in flight; if so, removes and returns it.
    package mutating func match(_ message: CastChannelMessage) -> (id: Int, entry: Entry)? {
        // No request on this namespace: the message's requestId need not be read at all.
        guard inFlight.values.contains(where: { $0.namespace == message.namespace }), let id = message.requestId, id > 0, let entry = inFlight[id],
            entry.namespace == message.namespace, entry.accept(message)
        else { return nil }
        inFlight[id] = nil
        return (id, entry)
    }

    /// Removes request `id` (deadline passed, send failed, cancelled).
    package mutating func remove(_ id: Int) -> Entry? {
        inFlight.removeValue(forKey: id)
    }

    /// The earliest deadline among the requests in flight.
    package var earliestDeadline: Duration? {
        // A closure, not a key path: in this generic type a key path literal is instantiated at run time
        // on every call (swift_getKeyPath), which cost a SEEK round trip more than the rest of the tracker.
        inFlight.values.lazy.compactMap { $0.deadline }.min()
    }

    /// Removes and returns the requests whose deadline is at or before `now`.
    package mutating func removeExpired(at now: Duration) -> [(id: Int, entry: Entry)] {
        let ids = inFlight.compactMap { id, entry in entry.deadline.map { $0 <= now } == true ? id : nil }
        return ids.sorted().compactMap { id in inFlight.removeValue(forKey: id).map { (id, $0) } }
    }

    /// Removes every request addressed to `destinationId`.
    package mutating func removeAll(destinationId: String) -> [Entry] {
        let ids = inFlight.filter { $0.value.destinationId == destinationId }.map { $0.key }
        return ids.compactMap { inFlight.removeValue(forKey: $0) }
    }

    /// Removes every request.
    package mutating func removeAll() -> [Entry] {
        defer { inFlight.removeAll() }
        return Array(inFlight.values)
    }

    /// Mutates the waiter of request `id`, if it is in flight.
    package mutating func updateWaiter(_ id: Int, _ body: (inout Waiter) -> Void) -> Bool {
        guard inFlight[id] != nil else { return false }
        body(&inFlight[id]!.waiter)
        return true
    }
}

extension RequestTracker: Sendable where Waiter: Sendable {}
extension RequestTracker.Entry: Sendable where Waiter: Sendable {}
