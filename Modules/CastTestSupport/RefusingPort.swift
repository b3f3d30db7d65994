import Foundation

/// A loopback TCP port that is bound but not listening: every connection to it is refused, and no
/// other test can take it while this value lives (unlike a port freed by closing a server, which a
/// test running in parallel may bind again).
public final class RefusingPort: Sendable {
    /// The port number.
    public let port: Int
    private let descriptor: Int32

    /// Binds a free port on 127.0.0.1 without listening.
    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ChildProcessError(message: "socket() failed: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic -> Bool in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw ChildProcessError(message: "bind() failed: \(errno)")
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
