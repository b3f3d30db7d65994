import CastJSON
import CastCore
import Testing

/// A bare-bones sender for tests: sends JSON on any namespace and reads what comes back in order.
actor RawSender {
    let transport: any CastTransport
    let senderId: String
    private var iterator: AsyncThrowingStream<CastMessage, any Error>.AsyncIterator

    init(_ transport: any CastTransport, senderId: String = "sender-0") {
        self.transport = transport
        self.senderId = senderId
        self.iterator = transport.inbound.makeAsyncIterator()
    }

    func send(_ json: JSONValue, namespace: String, to destination: String = "receiver-0") async throws {
        try transport.send(CastMessage(sourceId: senderId, destinationId: destination, namespace: namespace, json: json))
    }

    func connect(to destination: String = "receiver-0") async throws {
        try await send(["type": "CONNECT", "origin": [:]], namespace: "urn:x-cast:com.google.cast.tp.connection", to: destination)
    }

    /// The next message; `nil` once the receiver closed the socket.
    func next() async throws -> CastMessage? {
        var iterator = self.iterator
        defer { self.iterator = iterator }
        return try await iterator.next(isolation: self)
    }

    /// The next message whose JSON `type` is `type` (others are skipped); fails if the socket closes first.
    func next(type: String) async throws -> CastMessage {
        while let message = try await next() {
            if message.json?["type"]?.stringValue == type || message.json?["responseType"]?.stringValue == type {
                return message
            }
        }
        throw CastTransportError(code: .closed, message: "socket closed while waiting for \(type)")
    }

    /// Reads until the receiver closes the socket; returns what arrived meanwhile.
    func drainUntilClosed() async -> [CastMessage] {
        var seen: [CastMessage] = []
        while true {
            do {
                guard let message = try await next() else { return seen }
                seen.append(message)
            } catch {
                return seen
            }
        }
    }

    /// Sends a request (on receiver-0 by default) and returns the reply of `type` carrying the
    /// request's `requestId` (any reply of `type` when the request has none). Messages before it are skipped.
    func request(_ json: JSONValue, namespace: String = "urn:x-cast:com.google.cast.receiver",
                 to destination: String = "receiver-0", reply type: String) async throws -> JSONValue {
        try await send(json, namespace: namespace, to: destination)
        while true {
            let reply = try await next(type: type).json ?? .null
            if json["requestId"] == nil || reply["requestId"] == json["requestId"] { return reply }
        }
    }
}

enum NS {
    static let receiver = "urn:x-cast:com.google.cast.receiver"
    static let media = "urn:x-cast:com.google.cast.media"
    static let heartbeat = "urn:x-cast:com.google.cast.tp.heartbeat"
    static let connection = "urn:x-cast:com.google.cast.tp.connection"
    static let multizone = "urn:x-cast:com.google.cast.multizone"
}
