import CastChannels
import CastCore
import CastJSON
import CastMedia

// A sender on the light layer: a connection, the receiver's platform channel and the media channel,
// over the in-memory transport, against a device written here (a transport of your own works the same).
let (senderEnd, deviceEnd) = InMemoryCastTransport.pair()
let device = Task { await runDevice(on: deviceEnd) }

let connection = CastConnection(transport: senderEnd)
let media = CastMediaChannel()
try await connection.add(media)
try await connection.start()
print("device authentication: \(connection.deviceAuthStatus)")
_ = try await connection.receiver.launch(appId: CastAppID.defaultMediaReceiver)
_ = try await connection.waitUntilConnected(media)
let status = try await media.load(MediaInformation(contentId: "https://example.com/song.mp3", contentType: "audio/mpeg"))
print(status.playerState.rawValue)
await connection.close()
await device.value

/// A device with the Default Media Receiver: answers PING, GET_STATUS, LAUNCH and LOAD, until the sender closes.
func runDevice(on transport: InMemoryCastTransport) async {
    let receiver = "urn:x-cast:com.google.cast.receiver"
    let media = "urn:x-cast:com.google.cast.media"
    let app = "web-1"
    var launched = false
    func send(_ json: JSONValue, _ namespace: String, from source: String, to destination: String) {
        try? transport.send(CastMessage(sourceId: source, destinationId: destination, namespace: namespace, json: json))
    }
    func receiverStatus(_ requestId: JSONValue) -> JSONValue {
        let applications: [JSONValue] = launched
            ? [["appId": "CC1AD845", "displayName": "Default Media Receiver", "sessionId": "session-1",
                "transportId": .string(app), "namespaces": [["name": .string(media)]]]]
            : []
        return ["type": "RECEIVER_STATUS", "requestId": requestId,
                "status": ["applications": .array(applications), "volume": ["level": 1, "muted": false]]]
    }
    do {
        for try await message in transport.inbound {
            guard let json = message.json, let type = json["type"]?.stringValue else { continue }
            let requestId = json["requestId"] ?? 0
            switch (message.namespace, type) {
            case ("urn:x-cast:com.google.cast.tp.heartbeat", "PING"):
                send(["type": "PONG"], message.namespace, from: message.destinationId, to: message.sourceId)
            case (receiver, "GET_STATUS"):
                send(receiverStatus(requestId), receiver, from: "receiver-0", to: message.sourceId)
            case (receiver, "LAUNCH"):
                launched = true
                send(receiverStatus(requestId), receiver, from: "receiver-0", to: message.sourceId)
            case (media, "LOAD") where message.destinationId == app:
                let status: JSONValue = ["mediaSessionId": 1, "playerState": "PLAYING", "currentTime": 0,
                                         "playbackRate": 1, "supportedMediaCommands": 12303, "media": json["media"] ?? .null]
                send(["type": "MEDIA_STATUS", "requestId": requestId, "status": [status]], media, from: app, to: message.sourceId)
            default:
                break
            }
        }
    } catch let error as CastTransportError where error.code == .peerClosed {
        // The sender closed the connection: the device's work is done.
    } catch {
        print("device: \(error)")
    }
}
