import CastEmulator
import CastTLS
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
        var keep: [EmulatedReceiver] = []
        for index in 0..<count {
            // Each receiver listens with `start()`, as a user's does: its sockets are served on the
            // receiver's own event loop, so a request is read, answered and written on one thread.
            // (Until 2026-11-27 the bench hosted receivers on a transport server over the whole event
            // loop group: half the connections were served on the other loop, two thread hand-offs per
            // request that `EmulatedReceiver.start()` never makes.)
            // The descriptor reserve is the process's: one listener keeping it is enough (each keeping
            // one would hold 16 spare descriptors and scan the whole table on its first accept).
            var configuration = EmulatedReceiverConfiguration(name: "Bench \(index)", replyLatency: .milliseconds(latency))
            configuration.tlsCredentials = credentials
            configuration.connectionLimits = index == 0 ? CastTransportServer.Limits() : CastTransportServer.Limits(descriptorReserve: 0)
            let receiver = EmulatedReceiver(configuration: configuration)
            try await receiver.start()
            guard let port = await receiver.port else { throw BenchError("receiver \(index) has no port") }
            ports.append(port)
            keep.append(receiver)
        }
        emit(["ports": ports, "echo": echo.localAddress?.port ?? 0, "pid": Int(getpid())])
        try await Task.sleep(for: .seconds(86_400 * 365))
        withExtendedLifetime(keep) {}
    }
}
