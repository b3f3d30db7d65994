import CastTLS
import NIOCore

/// Accepts sender sockets for a ``EmulatedReceiver``.
protocol EmulatedReceiverListener: Sendable {
    /// The bound TCP port.
    var port: Int { get }
    /// What the listener did to protect itself (handshake deadline, accept back-off, senders not reading).
    var events: AsyncStream<CastTransportServer.Event> { get }
    /// Stops accepting.
    func close() async
}

extension CastTransportServer: EmulatedReceiverListener {}

/// The TLS listener: the transport module's server, presenting the configured credentials or a fresh
/// self-signed certificate (valid two days, as real devices rotate theirs), under the configured
/// connection limits and on the receiver's clock. Its sockets are served on `loop`, and each accepted
/// connection is handed to `deliver` there as its handshake completes.
enum TLSReceiverListener {
    static func listen(
        host: String, port: Int, credentials: TLSCredentials?, limits: CastTransportServer.Limits, clock: any Clock<Duration>,
        loop: any EventLoop, deliver: @escaping @Sendable (any CastTransport) -> Void
    ) async throws(CastTransportError) -> any EmulatedReceiverListener {
        try await CastTransportServer.start(
            host: host, port: port, credentials: credentials, limits: limits, clock: clock, group: loop, deliver: deliver)
    }
}
