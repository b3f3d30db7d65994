#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import NIOCore
import NIOPosix

extension CastTransportError {
    /// Whether the device's host refused the TCP connection (it answered with a reset: the host is
    /// up and nothing listens on the port, as while a receiver restarts), rather than not answering.
    /// A reconnect loop can retry such a device sooner: it is coming back, and a refused connect
    /// costs nothing.
    public var isConnectionRefused: Bool {
        code == .connectFailed && Self.isRefusal(cause)
    }

    private static func isRefusal(_ error: (any Error)?) -> Bool {
        switch error {
        case let error as IOError: error.errnoCode == ECONNREFUSED
        case let error as NIOConnectionError: error.connectionErrors.contains { isRefusal($0.error) }
        case let error as CastTransportError: error.isConnectionRefused
        default: false
        }
    }
}
