import CastJSON
import CastStreaming
import CastTLS
import Foundation

/// The state machines work on the transport's messages directly.
typealias Envelope = CastMessage

/// Well-known namespaces and endpoint ids.
enum Wire {
    static let connection = CastWireStrings.connection
    static let heartbeat = CastWireStrings.heartbeat
    static let deviceAuth = CastWireStrings.deviceAuth
    static let receiver = CastWireStrings.receiver
    static let media = CastWireStrings.media
    static let multizone = CastWireStrings.multizone
    static let webrtc = StreamingMessage.namespace
    static let remoting = StreamingMessage.remotingNamespace
    static let transportPrefix = "urn:x-cast:com.google.cast.tp."

    static let platformId = "receiver-0"
    static let heartbeatId = "Tr@n$p0rt-0"
    static let broadcastId = "*"
}

extension Wire {
    /// Whether `namespace` is `name`, one of the platform's names above: `==`, with the UTF-8 lengths
    /// compared first (known without reading the text). The platform's names share their first 27
    /// bytes, which `==` reads before it finds two of them different, and the engine tests a message's
    /// namespace against several of them; an equal one is usually the same `CastWireStrings` constant
    /// (the frame decoder hands those out), which `==` finds equal by its bits.
    ///
    /// For these names the answer is `==`'s: a string canonically equivalent to ASCII text that is
    /// not that text byte for byte holds U+037E, U+1FEF or U+212A (equivalent to `;`, `` ` `` and `K`),
    /// and no platform name has any of the three. Not for other names: an app's own namespaces are
    /// compared with `==`.
    @inline(__always)
    static func matches(_ namespace: String, _ name: String) -> Bool {
        namespace.utf8.count == name.utf8.count && namespace == name
    }
}

/// What the state machine asks the I/O shell to do.
enum ReceiverAction: Sendable, Hashable {
    /// Write this message on that socket.
    case send(socket: Int, Envelope)
    /// Close that socket (after writing what was queued before); `reason` says why, for the log
    /// (a violation's kind, such as `heartbeatTimeout`, and what happened).
    case close(socket: Int, reason: String)
    /// Fetch the content of a held media request, then call `ReceiverEngine.mediaFetchCompleted`.
    case fetch(MediaFetchPlan)
    /// Something went wrong on the device's side (not the sender's): for the receiver's log.
    case warn(String)
    /// Bind a UDP port for the mirroring app's session, then call `ReceiverEngine.streamingPortOpened`
    /// (or `streamingPortFailed`).
    case openStreamingPort(appSessionId: String, port: Int)
    /// Close the mirroring session's UDP port.
    case closeStreamingPort
    /// Send this datagram to the mirroring sender's address.
    case sendDatagram([UInt8])
    /// Something happened in a mirroring session (for the recorder, the log and the API).
    case mirroring(MirroringEvent)
}

/// What the shell learns of a mirroring session.
enum MirroringEvent: Sendable, Hashable {
    /// A session was negotiated.
    case started(EmulatedReceiverMirroringSession)
    /// A stream played a frame.
    case frame(stream: Int, codec: StreamingCodec, ReceivedFrame)
    /// A stream skipped frames.
    case skipped(stream: Int, ClosedRange<FrameID>)
    /// The session ended (its last state).
    case ended(EmulatedReceiverMirroringSession)
}

extension Duration {
    /// The duration in seconds as a `Double`.
    /// The duration in milliseconds, fractions kept.
    var milliseconds: Double { seconds * 1000 }

    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
