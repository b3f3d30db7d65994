import CastChannels
import CastMedia
import CastCore
import Foundation

/// Commands per second with many devices at once, and the CPU time each command costs.
enum Throughput {
    /// `throughput --ports a,b,... --seconds S [--auth off|report] [--caller pool|loop]`: connects to every
    /// device, launches the Default Media Receiver and loads a video on each, then every device SEEKs back
    /// to back (each SEEK awaits its MEDIA_STATUS) for S seconds. Reports the SEEKs completed, the wall
    /// time, and this process's CPU time (user + system) over that window. `--caller loop` runs each
    /// device's SEEKs in a task that prefers its connection's event loop.
    static func run(_ arguments: Arguments) async throws {
        let ports = (arguments.values["ports"] ?? "").split(separator: ",").compactMap { Int($0) }
        guard !ports.isEmpty else { throw BenchError("--ports wants a comma-separated list") }
        let seconds = try arguments.int("seconds", 5)
        let configuration = try Network.configuration(arguments)
        var devices: [(CastConnection, CastMediaChannel, (any TaskExecutor)?)] = []
        for port in ports {
            let media = CastMediaChannel()
            let connection = try await Network.open(port: port, configuration, plugins: [media])
            _ = try await connection.receiver.launch(appId: CastAppID.defaultMediaReceiver)
            _ = try await connection.waitUntilConnected(media)
            try await media.load(Fixture.media, startTime: 0)
            devices.append((connection, media, try arguments.callerExecutor(loop: connection.transport.taskExecutor)))
        }
        let clock = ContinuousClock()
        let cpuStart = cpuSeconds()
        let start = clock.now
        let end = start.advanced(by: .seconds(seconds))
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for (_, media, executor) in devices {
                group.addTask(executorPreference: executor) {
                    var done = 0
                    while clock.now < end {
                        _ = try await media.seek(to: Double(10 + done % 500))
                        done += 1
                    }
                    return done
                }
            }
            return try await group.reduce(0, +)
        }
        let wall = clock.now - start
        let cpu = cpuSeconds() - cpuStart
        for (connection, _, _) in devices { await connection.close() }
        let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        emit(["commands": total, "wall_seconds": wallSeconds, "cpu_seconds": cpu, "devices": devices.count])
    }

    /// User plus system CPU time of this process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
