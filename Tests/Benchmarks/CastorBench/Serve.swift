import CastReceiver
import CastTransport
import Foundation
import NIOCore
import NIOPosix

/// `castor-bench serve --count N [--latency-ms L]`: hosts N emulated receivers (one TLS port each)
/// and one raw GnuTLS echo server, prints `{"ports":[…],"echo":p}` and runs until killed.
enum Serve {
    static func run(_ arguments: Arguments) async throws {
        let count = try arguments.int("count", 1)
        let latency = try arguments.int("latency-ms", 0)
        // One key for every port: generating a 2048-bit RSA key per receiver would take minutes.
        let credentials = try TLSCredentials.selfSigned()
        let group = MultiThreadedEventLoopGroup.singleton
        let echo = try await RawTLS.startEchoServer(credentials: credentials, group: group)
        var ports: [Int] = []
        var keep: [(CastReceiver, CastTransportServer)] = []
        for index in 0..<count {
            let receiver = CastReceiver(configuration: CastReceiverConfiguration(
                name: "Bench \(index)", replyLatency: .milliseconds(latency)))
            // Until CastReceiver.start() has its TLS listener, host it on the transport server.
            // The descriptor reserve is the process's: one listener keeping it is enough (each keeping
            // one would hold 16 spare descriptors and scan the whole table on its first accept).
            let limits = index == 0 ? CastTransportServer.Limits() : CastTransportServer.Limits(descriptorReserve: 0)
            let server = try await CastTransportServer.start(credentials: credentials, backlog: 64, limits: limits, group: group)
            let connections = server.connections
            Task {
                for await connection in connections { await receiver.accept(connection) }
            }
            ports.append(server.port)
            keep.append((receiver, server))
        }
        emit(["ports": ports, "echo": echo.localAddress?.port ?? 0, "pid": Int(getpid())])
        try await Task.sleep(for: .seconds(86_400 * 365))
        withExtendedLifetime(keep) {}
    }
}
