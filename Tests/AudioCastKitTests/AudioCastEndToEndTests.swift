import CastJSON
import CastTestSupport
import Foundation
import Testing

/// The built `audiocast` program, run as a user runs it (found next to the test bundle, or in
/// `CASTOR_BIN_DIR`; `swift build --build-tests` builds it).
@Suite("audiocast end to end")
struct AudioCastEndToEndTests {
    static var program: String {
        if let dir = ProcessInfo.processInfo.environment["CASTOR_BIN_DIR"] { return dir + "/audiocast" }
        var candidate = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while candidate.path != "/" {
            candidate = candidate.deletingLastPathComponent()
            let binary = candidate.appendingPathComponent("audiocast").path
            if FileManager.default.isExecutableFile(atPath: binary) { return binary }
        }
        return Samples.packageRoot.appendingPathComponent(".build/debug/audiocast").path
    }

    @Test func subscribePlayHistorySuggestionsUnsubscribe() async throws {
        let library = try Samples.scratchDirectory().path
        func run(_ arguments: [String], expectSuccess: Bool = true) async throws -> (status: Int32, json: JSONValue?, stderr: String) {
            let child = try ChildProcess(Self.program, arguments + ["--library", library, "--json"])
            let status = await child.waitForExit()
            if expectSuccess { #expect(status == 0, "audiocast \(arguments): \(child.errorOutput)") }
            return (status, child.output.last.flatMap { try? JSONValue(parsing: $0) }, child.errorOutput)
        }

        let subscribed = try await run(["subscribe", Samples.feed("swift-by-night")])
        #expect(subscribed.json?["show"]?["id"] == "swift-by-night")
        #expect(try await run(["shows"]).json?.arrayValue?.count == 1)
        let episodes = try #require(try await run(["episodes", "swift-by-night"]).json?.arrayValue)
        #expect(episodes.count == 3)
        let episodeId = try #require(episodes[0]["episode"]?["id"]?.stringValue)

        // Play on the embedded receiver: the receiver's own status shows the episode playing.
        let played = try #require(try await run(["play", episodeId]).json)
        #expect(played["outcome"]?["code"] == "handleInApp")
        #expect(played["receiver"]?["playerState"] == "PLAYING")
        #expect(played["receiver"]?["media"]?["contentId"] == "https://media.swiftbynight.example.org/sbn-003.mp3")
        let donation = try #require(played["outcome"]?["donation"]?.stringValue)

        let history = try #require(try await run(["history"]).json?.arrayValue)
        #expect(history.map { $0["identifier"] } == [.string(donation)])
        #expect(history.first?["groupIdentifier"] == "swift-by-night")
        let suggestions = try #require(try await run(["suggestions"]).json?.arrayValue)
        #expect(suggestions.count == 2)
        #expect(!suggestions.contains { $0["mediaItems"]?[0]?["identifier"] == .string(episodeId) })
        let shown = try #require(try await run(["show-container", donation]).json)
        #expect(shown["container"]?["identifier"] == "swift-by-night")
        #expect(shown["highlighted"] == .string(episodeId))

        // Unsubscribe: the show's donations are gone, and so are its suggestions.
        let removed = try #require(try await run(["unsubscribe", "swift-by-night"]).json)
        #expect(removed["deletedDonations"] == [.string(donation)])
        #expect(try await run(["history"]).json == [])
        #expect(try await run(["suggestions"]).json == [])

        // Failures: one line on standard error, non-zero status.
        let unknown = try await run(["play", "nope"], expectSuccess: false)
        #expect(unknown.status != 0)
        #expect(unknown.stderr.hasPrefix("audiocast: unknownEpisode"))
    }
}
