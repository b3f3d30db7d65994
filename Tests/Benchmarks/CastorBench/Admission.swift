import CastChannels
import CastTLS
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `admission --port P --idlers N --runs R [--auth off|report]`: a real sender among idle connections.
///
/// Holds N raw TCP connections to the receiver that never send a byte (each one the receiver closes is
/// replaced at once, on a thread of its own), waits until the receiver has closed as many as it holds
/// (it is at its descriptor reserve and evicting), then times R connects → first RECEIVER_STATUS, one
/// after the other, each with a 10 s connect timeout (castctl's default budget). Reports the samples, how
/// many connects failed, and the idle connections opened and closed by the receiver meanwhile.
///
/// Issue 45: under `prlimit --nofile=64:64` a sender was served after 9.6 s with 20 idlers, 19.6 s with 40
/// and 69.6 s with 100; with about 270 the listen backlog filled and connects timed out.
enum Admission {
    static func run(_ arguments: Arguments) async throws {
        let port = try arguments.int("port", 0)
        let count = try arguments.int("idlers", 100)
        let runs = try arguments.int("runs", 10)
        let configuration = try Network.configuration(arguments)
        let idlers = IdleHolder(port: port, count: count)
        defer { idlers.stop() }
        // Pressure: the receiver has closed as many idle connections as are held (or, with room for all,
        // they have been held for two seconds).
        let clock = ContinuousClock()
        let waitStart = clock.now
        while idlers.closedByServer < count, clock.now - waitStart < .seconds(2) {
            try await Task.sleep(for: .milliseconds(20))
        }
        let pressure = idlers.closedByServer
        var samples = Samples()
        var failures: [String] = []
        for _ in 0..<runs {
            let start = clock.now
            do {
                let transport = try await TLSCastTransport.connect(
                    host: "127.0.0.1", port: port, configuration: .init(connectTimeout: .seconds(10)))
                let connection = CastConnection(transport: transport, configuration: configuration)
                try await connection.start()
                samples.add(clock.now - start)
                await connection.close()
            } catch {
                failures.append("\(error)")
            }
        }
        emit([
            "samples_us": samples.values, "failures": failures.count, "failure_examples": Array(failures.prefix(3)),
            "idlers": count, "closed_before": pressure, "opened": idlers.opened, "closed_by_server": idlers.closedByServer,
        ])
    }
}

/// Raw TCP connections to a loopback port that never send a byte, kept open and replaced as soon as the
/// server closes one, on a thread of their own until ``stop()``.
final class IdleHolder: Sendable {
    private let port: Int
    private let count: Int
    private let stopping = Mutex(false)
    private let counters = Mutex((opened: 0, closedByServer: 0))
    private let done = DispatchSemaphore(value: 0)

    init(port: Int, count: Int) {
        self.port = port
        self.count = count
        Thread.detachNewThread { [self] in
            run()
            done.signal()
        }
    }

    var opened: Int { counters.withLock { $0.opened } }
    var closedByServer: Int { counters.withLock { $0.closedByServer } }

    func stop() {
        stopping.withLock { $0 = true }
        done.wait()
    }

    private func run() {
        var descriptors: [Int32] = []
        defer { for fd in descriptors { close(fd) } }
        var buffer = [UInt8](repeating: 0, count: 256)
        while !stopping.withLock({ $0 }) {
            while descriptors.count < count {
                let fd = connectWithoutWaiting()
                guard fd >= 0 else { break }
                descriptors.append(fd)
                counters.withLock { $0.opened += 1 }
            }
            var polls = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&polls, nfds_t(polls.count), 50) > 0 else { continue }
            var closed: Set<Int32> = []
            for entry in polls where entry.revents != 0 {
                let got = recv(entry.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                guard got <= 0, !(got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) else { continue }
                close(entry.fd)
                closed.insert(entry.fd)
            }
            if !closed.isEmpty {
                descriptors.removeAll { closed.contains($0) }
                counters.withLock { $0.closedByServer += closed.count }
            }
        }
    }

    private func connectWithoutWaiting() -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 || errno == EINPROGRESS else {
            close(fd)
            return -1
        }
        return fd
    }
}
