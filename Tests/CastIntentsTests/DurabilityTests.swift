import CastIntents
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import CastTestSupport
#endif

/// Donations survive a crash: a child process donating 10 000 interactions is killed with SIGKILL at
/// a seeded random moment; reopening finds an intact database holding every acknowledged donation.
@Suite("Durability")
struct DurabilityTests {
    static let donationCount = 10_000

    /// The seeds of the kill moments. Set `CASTINTENTS_DURABILITY_SEED` to replay one seed.
    static let seeds: [UInt64] = {
        if let text = ProcessInfo.processInfo.environment["CASTINTENTS_DURABILITY_SEED"], let seed = UInt64(text) {
            return [seed]
        }
        return [0xC0FFEE, 20_261_121, 7]
    }()

    @Test(arguments: seeds)
    func acknowledgedDonationsSurviveSIGKILL(seed: UInt64) async throws {
        let child = try #require(
            Self.childExecutable(),
            "castintents-durability-child was not built next to the test bundle; run `swift build --build-tests`")
        var generator = SeededGenerator(seed: seed)
        let killAfter = Int(generator.next() % UInt64(Self.donationCount - 1)) + 1  // 1...9_999 acknowledged lines
        let directory = try TemporaryDirectory()
        let path = directory.path("durability.sqlite")

        let run = try await ChildRun.start(executable: child, arguments: [path, "\(Self.donationCount)"], killAfterLines: killAfter)
        let acknowledged = run.lines.filter { $0 != "done" }
        #expect(run.killed || run.lines.last == "done", "seed \(seed): the child failed on its own: \(run.standardError)")
        #expect(acknowledged.count >= min(killAfter, Self.donationCount), "seed \(seed): kill point \(killAfter)")

        let store = try SQLiteIntentStore(path: path)
        #expect(try await store.checkIntegrity() == [], "seed \(seed): PRAGMA integrity_check must say ok")
        let stored = try await store.mostRecentInteractions().map(\.identifier)
        let storedSet = Set(stored)
        #expect(storedSet.count == stored.count, "seed \(seed): a donation was stored twice")
        let missing = acknowledged.filter { !storedSet.contains($0) }
        #expect(missing.isEmpty, "seed \(seed): \(missing.count) acknowledged donations are lost, first \(missing.prefix(3))")
        // The child donates in order, so the database holds a prefix of its sequence: every
        // acknowledged donation and at most the one in flight when it was killed.
        let expectedPrefix = Set((0..<stored.count).map { "durability-\($0)" })
        #expect(storedSet == expectedPrefix, "seed \(seed): the stored donations are not a prefix of the child's")
        #expect(stored.count == acknowledged.count || stored.count == acknowledged.count + 1)

        // The store keeps working after the crash: a second child finishes the job.
        let rest = try await ChildRun.start(executable: child, arguments: [path, "\(stored.count + 50)"], killAfterLines: nil)
        #expect(rest.lines.last == "done", "seed \(seed): \(rest.standardError)")
        #expect(try await store.interactionCount() == stored.count + 50)
        #expect(try await store.checkIntegrity() == [])
        print("durability seed \(seed): killed after \(killAfter) acknowledgements; \(acknowledged.count) acknowledged, \(stored.count) stored")
    }

    /// The helper executable, built by SwiftPM next to the test bundle.
    static func childExecutable() -> URL? {
        if let explicit = ProcessInfo.processInfo.environment["CASTINTENTS_DURABILITY_CHILD"] {
            return URL(fileURLWithPath: explicit)
        }
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // On Linux the test binary is `<bin>/CastorPackageTests.xctest`; elsewhere it may sit deeper in a bundle.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("castintents-durability-child")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }
}

/// A child process whose standard output is read line by line, optionally SIGKILLed after a number of lines.
struct ChildRun: Sendable {
    var lines: [String]
    var killed: Bool
    var standardError: String

    /// Runs the child to completion (or to the kill), reading its output on a dedicated thread so
    /// that no Swift concurrency thread blocks on I/O.
    static func start(executable: URL, arguments: [String], killAfterLines: Int?) async throws -> ChildRun {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return await withCheckedContinuation { continuation in
            let thread = Thread {
                var lines: [String] = []
                var pending = Data()
                var killed = false
                let handle = output.fileHandleForReading
                reading: while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }  // end of file: the child exited
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                        pending.removeSubrange(pending.startIndex...newline)
                        if let killAfterLines, lines.count == killAfterLines {
                            kill(process.processIdentifier, SIGKILL)
                            killed = true
                            break reading
                        }
                    }
                }
                process.waitUntilExit()
                if killed {
                    // Lines the child wrote before dying are acknowledgements too.
                    while true {
                        let chunk = handle.availableData
                        if chunk.isEmpty { break }
                        pending.append(chunk)
                    }
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                        pending.removeSubrange(pending.startIndex...newline)
                    }
                }
                let standardError = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                let reallyKilled = killed && process.terminationReason == .uncaughtSignal
                continuation.resume(returning: ChildRun(lines: lines, killed: reallyKilled, standardError: standardError))
            }
            thread.start()
        }
    }
}
