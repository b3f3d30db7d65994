import CastTransport

/// Accepts sender sockets for a ``CastReceiver``.
protocol CastReceiverListener: Sendable {
    /// The bound TCP port.
    var port: Int { get }
    /// Accepted sender connections.
    var connections: AsyncStream<any CastTransport> { get }
    /// Stops accepting.
    func close() async
}

extension CastTransportServer: CastReceiverListener {}

/// The TLS listener: the transport module's server, presenting the configured credentials or a fresh
/// self-signed certificate (valid two days, as real devices rotate theirs).
enum TLSReceiverListener {
    static func listen(host: String, port: Int, credentials: TLSCredentials?) async throws(CastTransportError)
        -> any CastReceiverListener
    {
        try await CastTransportServer.start(host: host, port: port, credentials: credentials)
    }
}
