import CastJSON
import CastTLS
import Foundation

/// What the receiver fuzz target drives: the emulated device's state machine, fed arbitrary requests.
@_spi(Fuzzing) extension EmulatedReceiverFuzzing {
    /// The custom app every script may launch: it echoes JSON back to the sender and to everyone.
    public static let appId = "F0220001"
    /// The custom app's namespace.
    public static let appNamespace = "urn:x-cast:com.example.fuzz"

    /// Runs a script against a fresh engine (a video device with the custom app, a fixed shuffle seed, two sender
    /// sockets), trapping when an invariant breaks: every message the device sends goes to an open socket,
    /// encodes as a `CastMessage` that decodes to itself, and carries JSON that Foundation's `JSONSerialization`
    /// reads (a binary payload only on the device-auth namespace); after every message, the media status the
    /// player writes as text (reusing its kept tail) is the status tree's text.
    ///
    /// A script is lines, one message each: `N D T payload`, without the spaces. `N` picks the namespace:
    /// `c` connection, `h` heartbeat, `r` receiver, `m` media, `z` multizone, `a` device auth, `x` the custom app's,
    /// anything else `urn:x-cast:` and that character; an upper-case letter sends on socket 2, lower case on
    /// socket 1. `D` picks the destination: `r` `receiver-0`, `t` the running app's transport id, `*` broadcast,
    /// anything else that character. `T` is how many seconds pass first (`0` to `9`; anything else 0). The payload
    /// is the rest of the line: a string when it is UTF-8, else binary. A line `o` reopens socket 1, `O` socket 2.
    public static func run(script: [UInt8]) {
        var settings = ReceiverEngine.Settings()
        settings.shuffleSeed = 0x22
        settings.apps = [EmulatedReceiverApp(appId: appId, displayName: "Fuzz", namespaces: [appNamespace], handler: Echo())]
        var engine = ReceiverEngine(settings: settings)
        var now = Duration.zero
        var open: Set<Int> = [1, 2]
        engine.open(socket: 1, now: now)
        engine.open(socket: 2, now: now)
        for line in script.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            let bytes = Array(line)
            if bytes == [UInt8(ascii: "o")] || bytes == [UInt8(ascii: "O")] {
                let socket = bytes[0] == UInt8(ascii: "o") ? 1 : 2
                engine.open(socket: socket, now: now)
                open.insert(socket)
                continue
            }
            guard bytes.count >= 3 else { continue }
            let socket = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[0]) ? 2 : 1
            let namespace = Self.namespace(bytes[0] | 0x20)
            let destination: String
            switch bytes[1] {
            case UInt8(ascii: "r"): destination = Wire.platformId
            case UInt8(ascii: "t"): destination = engine.app?.transportId ?? "transport-0"
            default: destination = String(decoding: [bytes[1]], as: UTF8.self)
            }
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[2]) { now += .seconds(Int(bytes[2] - UInt8(ascii: "0"))) }
            let body = Array(bytes[3...])
            let payload: CastMessage.Payload = String(validating: body, as: UTF8.self).map { .string($0) } ?? .binary(Data(body))
            let sender = socket == 1 ? "sender-0" : "sender-fuzz"
            guard !namespace.isEmpty, !destination.isEmpty else { continue }
            let message = CastMessage(sourceId: sender, destinationId: destination, namespace: namespace, payload: payload)
            let actions = engine.receive(message, from: socket, now: now) + engine.tick(now: now)
            check(actions, open: &open)
            checkStatusText(engine, now: now)
        }
    }

    /// The MEDIA_STATUS a broadcast writes as text, reusing the tail the player kept from its last one,
    /// is what the status tree serializes to.
    private static func checkStatusText(_ engine: ReceiverEngine, now: Duration) {
        guard var player = engine.app?.media else { return }
        let tree = player.status(requestId: 1, at: now).serialized()
        let text = player.cachedStatusText(requestId: 1, at: now)
        guard text == tree else { fatalError("the status text differs from the tree's: \(text) vs \(tree)") }
    }

    private static func namespace(_ byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: "c"): Wire.connection
        case UInt8(ascii: "h"): Wire.heartbeat
        case UInt8(ascii: "r"): Wire.receiver
        case UInt8(ascii: "m"): Wire.media
        case UInt8(ascii: "z"): Wire.multizone
        case UInt8(ascii: "a"): Wire.deviceAuth
        case UInt8(ascii: "x"): appNamespace
        default: "urn:x-cast:" + String(decoding: [byte], as: UTF8.self)
        }
    }

    private static func check(_ actions: [ReceiverAction], open: inout Set<Int>) {
        for action in actions {
            switch action {
            case .send(let socket, let envelope):
                guard open.contains(socket) else { fatalError("a message to closed socket \(socket): \(envelope)") }
                // The media app's statuses always fit a frame, whatever was loaded (a too-large one used to
                // end every sender's connection).
                if envelope.namespace == Wire.media, envelope.destinationId == Wire.broadcastId,
                    envelope.encodedSize > CastFrame.maxBodySize
                {
                    fatalError("a media broadcast of \(envelope.encodedSize) bytes, too large for a Cast frame")
                }
                if envelope.encodedSize <= CastFrame.maxBodySize {
                    guard let decoded = try? CastMessage(body: envelope.serializedBody()), decoded == envelope else {
                        fatalError("the device sent a message that does not decode as itself: \(envelope)")
                    }
                }
                switch envelope.payload {
                case .string(let text):
                    guard (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil else {
                        fatalError("the device sent text that is not JSON: \(text.debugDescription)")
                    }
                case .binary:
                    guard envelope.namespace == Wire.deviceAuth else { fatalError("a binary message on \(envelope.namespace)") }
                }
            case .close(let socket, _):
                open.remove(socket)
            case .fetch, .warn, .openStreamingPort, .closeStreamingPort, .sendDatagram, .mirroring:
                break
            }
        }
    }

    private struct Echo: EmulatedReceiverAppHandler {
        func handle(_ message: EmulatedReceiverAppMessage) -> [EmulatedReceiverAppResponse] {
            guard let json = message.json else { return [] }
            return [.reply(json), .broadcast(["echo": json])]
        }
    }
}
