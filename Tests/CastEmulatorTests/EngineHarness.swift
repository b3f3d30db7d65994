import CastJSON
import Foundation
import Testing
@testable import CastEmulator

/// Drives a ``ReceiverEngine`` with a hand-moved engine time and collects what it asks to send.
struct EngineHarness {
    var engine: ReceiverEngine
    var now: Duration = .zero

    init(_ configure: (inout ReceiverEngine.Settings) -> Void = { _ in }) {
        var settings = ReceiverEngine.Settings()
        settings.shuffleSeed = 42
        configure(&settings)
        engine = ReceiverEngine(settings: settings)
    }

    mutating func open(_ socket: Int) { engine.open(socket: socket, now: now) }

    @discardableResult
    mutating func send(
        _ socket: Int, _ json: JSONValue, namespace: String, from source: String = "sender-0",
        to destination: String = "receiver-0"
    ) -> [ReceiverAction] {
        engine.receive(Envelope(sourceId: source, destinationId: destination, namespace: namespace, json: json),
                       from: socket, now: now)
    }

    /// Sends `text` as it is (JSON a `JSONValue` cannot hold exactly, such as a 64-bit integer).
    @discardableResult
    mutating func send(
        _ socket: Int, text: String, namespace: String, from source: String = "sender-0", to destination: String = "receiver-0"
    ) -> [ReceiverAction] {
        engine.receive(Envelope(sourceId: source, destinationId: destination, namespace: namespace, payload: .string(text)),
                       from: socket, now: now)
    }

    @discardableResult
    mutating func connect(_ socket: Int, from source: String = "sender-0", to destination: String = "receiver-0") -> [ReceiverAction] {
        send(socket, ["type": "CONNECT", "origin": [:]], namespace: Wire.connection, from: source, to: destination)
    }

    @discardableResult
    mutating func receiver(_ socket: Int, _ json: JSONValue, from source: String = "sender-0") -> [ReceiverAction] {
        send(socket, json, namespace: Wire.receiver, from: source)
    }

    @discardableResult
    mutating func media(_ socket: Int, _ json: JSONValue, from source: String = "sender-0") -> [ReceiverAction] {
        send(socket, json, namespace: Wire.media, from: source, to: transportId)
    }

    @discardableResult
    mutating func advance(by duration: Duration) -> [ReceiverAction] {
        now += duration
        return engine.tick(now: now)
    }

    var transportId: String { engine.app?.transportId ?? "none" }

    /// Opens a socket, connects `sender-0` to receiver-0, launches the DMR and connects to it.
    mutating func launchMediaReceiver(socket: Int = 1) {
        open(socket)
        connect(socket)
        receiver(socket, ["type": "LAUNCH", "appId": "CC1AD845", "requestId": 1])
        connect(socket, to: transportId)
    }
}

extension Array where Element == ReceiverAction {
    /// The messages sent, in order, with their sockets.
    var sent: [(socket: Int, envelope: Envelope)] {
        compactMap { action in
            if case .send(let socket, let envelope) = action { return (socket, envelope) }
            return nil
        }
    }

    /// The JSON payloads sent to `socket` (all sockets when `nil`), optionally only of `type`.
    func json(to socket: Int? = nil, type: String? = nil) -> [JSONValue] {
        sent.filter { socket == nil || $0.socket == socket }.compactMap(\.envelope.json)
            .filter { type == nil || $0["type"]?.stringValue == type || $0["responseType"]?.stringValue == type }
    }

    var closedSockets: [Int] {
        compactMap { action in
            if case .close(let socket, _) = action { return socket }
            return nil
        }
    }
}

/// Drives a ``MediaPlayerModel`` directly.
struct PlayerHarness {
    var player: MediaPlayerModel
    var now: Duration = .zero
    var nextRequestId = 1

    init(broken: @escaping @Sendable (String) -> Bool = { $0.contains("broken") }) {
        player = MediaPlayerModel(isBroken: broken, seed: 7)
    }

    /// Sends a request (a fresh requestId is added) and returns the outputs.
    @discardableResult
    mutating func request(_ json: JSONValue) -> [AppOutput] {
        var object = json.objectValue ?? [:]
        if object["requestId"] == nil {
            object["requestId"] = JSONValue(nextRequestId)
            nextRequestId += 1
        }
        let outputs = player.handle(type: object["type"]?.stringValue ?? "", request: RequestFields(object),
                                    requestId: object["requestId"]!.intValue!, now: now)
        checkStatusText()
        return outputs
    }

    /// Every state the harness reaches: the status the model writes as text is the tree's text, both
    /// written whole and as a broadcast writes it (reusing the tail the last broadcast kept, if it matches).
    func checkStatusText(sourceLocation: SourceLocation = #_sourceLocation) {
        let tree = player.status(requestId: 7, at: now).serialized()
        #expect(player.statusText(requestId: 7, at: now) == tree, sourceLocation: sourceLocation)
        var broadcasting = player
        #expect(broadcasting.cachedStatusText(requestId: 7, at: now) == tree, sourceLocation: sourceLocation)
    }

    /// A request with the current mediaSessionId.
    @discardableResult
    mutating func command(_ json: JSONValue) -> [AppOutput] {
        var json = json
        json["mediaSessionId"] = JSONValue(player.session?.mediaSessionId ?? -1)
        return request(json)
    }

    @discardableResult
    mutating func advance(by duration: Duration) -> [AppOutput] {
        now += duration
        let outputs = player.advance(to: now)
        checkStatusText()
        return outputs
    }

    var status: JSONValue? { player.status(requestId: 0, at: now)["status"]?[0] }
}

extension Array where Element == AppOutput {
    var messages: [JSONValue] {
        compactMap { output in
            switch output {
            case .reply(let json), .broadcast(let json), .pendingReply(_, let json): json
            case .broadcastText: output.broadcastJSON
            case .fetch: nil
            }
        }
    }
    var replies: [JSONValue] {
        compactMap { if case .reply(let json) = $0 { json } else { nil } }
    }
    var broadcasts: [JSONValue] {
        compactMap(\.broadcastJSON)
    }
    func first(type: String) -> JSONValue? { messages.first { $0["type"]?.stringValue == type } }
    /// The first status entry of the last MEDIA_STATUS.
    var lastEntry: JSONValue? { messages.last { $0["type"] == "MEDIA_STATUS" }?["status"]?[0] }
}

func media(_ url: String, duration: Double? = nil, tracks: JSONValue? = nil) -> JSONValue {
    var media: JSONValue = ["contentId": .string(url), "contentType": "video/mp4", "streamType": "BUFFERED",
                            "metadata": ["metadataType": 0, "title": .string(url)]]
    if let duration { media["duration"] = JSONValue(duration) }
    if let tracks { media["tracks"] = tracks }
    return media
}

func items(_ count: Int, duration: Double = 10, prefix: String = "http://h/") -> JSONValue {
    .array((0..<count).map { ["media": media("\(prefix)\($0).mp4", duration: duration)] })
}

extension AppOutput {
    /// A broadcast's JSON, whether the model built it as a tree or wrote it as text (which must parse).
    var broadcastJSON: JSONValue? {
        switch self {
        case .broadcast(let json): json
        case .broadcastText(let text): try? JSONValue(parsing: text)
        default: nil
        }
    }
}
