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

/// The TLS listener: the transport module's server with fresh self-signed credentials.
enum TLSReceiverListener {
    static func listen(host: String, port: Int) async throws -> any CastReceiverListener {
        throw CastReceiverError(code: .listenFailed, message: "The TLS server is not available in this build yet")
    }
}
