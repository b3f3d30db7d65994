import CastJSON
import CastTestSupport
import Foundation
import Testing

/// castctl for daily use, run as a user runs it against `cast-receiver`: the default device and
/// aliases from the configuration file, save and restore across devices, announcements; with
/// pychromecast (a sender we did not write) setting up what plays and reading what came back.
@Suite("castctl for daily use", .serialized)
struct CastctlDailyUseTests {
    static let peer = TestPaths.packageRoot.appendingPathComponent("Tests/InteropTests/announce_peer.py").path

    /// A private configuration folder (XDG_CONFIG_HOME), removed afterwards.
    final class Home {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("castctl-home-\(UUID().uuidString)").path
        var configFile: String { path + "/castor/castctl.conf" }
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }

        func castctl(_ arguments: [String], environment extra: [String: String] = [:]) async throws
            -> (status: Int32, stdout: [String], stderr: String) {
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_CONFIG_HOME"] = path
            environment["CASTCTL_DEVICE"] = nil
            environment["CASTOR_LOG_LEVEL"] = nil
            environment.merge(extra) { $1 }
            let child = try ChildProcess(TestPaths.program("castctl"), arguments, environment: environment)
            let status = await child.waitForExit()
            return (status, child.output, child.errorOutput)
        }
    }

    @Test("config: the default device, aliases, CASTCTL_DEVICE and -v; a malformed file names its line and is left alone")
    func defaultDeviceAndAliases() async throws {
        let home = try Home()
        let receiver = try await ReceiverProcess.start(["--strict"])
        let address = "127.0.0.1:\(receiver.port)"

        let none = try await home.castctl(["status"])
        #expect(none.status == 1)
        #expect(none.stderr.contains("No device given") && none.stderr.contains("castctl config set device"), "\(none.stderr)")

        #expect(try await home.castctl(["config", "set", "device", address]).status == 0)
        let byDefault = try await home.castctl(["status", "-v"])
        #expect(byDefault.status == 0, "\(byDefault.stderr)")
        #expect(byDefault.stderr.contains("using the device at \(address) (from the default device in \(home.configFile) line 1)"),
                "\(byDefault.stderr)")
        #expect(try await home.castctl(["status"]).stderr.isEmpty)

        #expect(try await home.castctl(["config", "alias", "tv", address]).status == 0)
        #expect(try await home.castctl(["config", "set", "device", "tv"]).status == 0)
        let viaAlias = try await home.castctl(["status", "-v", "--json"])
        #expect(viaAlias.status == 0)
        #expect(viaAlias.stderr.contains("using the device at \(address) (alias tv, from the default device in \(home.configFile)"))
        let flag = try await home.castctl(["volume", "0.25", "--device", "TV", "-v"])
        #expect(flag.status == 0, "\(flag.stderr)")
        #expect(flag.stderr.contains("(alias tv, from --device)"))
        // CASTCTL_DEVICE wins over the file: nothing listens on port 1.
        let overridden = try await home.castctl(["status", "--timeout", "5"], environment: ["CASTCTL_DEVICE": "127.0.0.1:1"])
        #expect(overridden.status == 1)
        #expect(overridden.stderr.contains("127.0.0.1") && !overridden.stderr.contains("No device"), "\(overridden.stderr)")

        let shown = try await home.castctl(["config", "show", "--json"])
        let json = try JSONValue(parsing: shown.stdout.joined())
        #expect(json["device"] == "tv")
        #expect(json["defaultDevice"] == .string(address))
        #expect(json["aliases"]?["tv"] == .string(address))
        #expect(try String(contentsOfFile: home.configFile, encoding: .utf8) == "device = tv\n\n[aliases]\ntv = \(address)\n")

        // A typo in the file: every device command and every change says where; the file stays as it was.
        let broken = "device = tv\n\n[aliases]\ntv \(address)\n"
        try broken.write(toFile: home.configFile, atomically: false, encoding: .utf8)
        for arguments in [["status"], ["config", "alias", "kitchen", "10.0.0.9"], ["config", "set", "device", address]] {
            let result = try await home.castctl(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.contains("\(home.configFile):4: expected KEY = VALUE or [SECTION]"), "\(arguments): \(result.stderr)")
        }
        #expect(try String(contentsOfFile: home.configFile, encoding: .utf8) == broken)
        // --host needs no configuration at all.
        #expect(try await home.castctl(["status", "--host", "127.0.0.1", "--port", String(receiver.port)]).status == 0)

        try "device = tv\n\n[aliases]\ntv = \(address)\n".write(toFile: home.configFile, atomically: false, encoding: .utf8)
        #expect(try await home.castctl(["config", "unalias", "tv"]).status == 0)
        #expect(try await home.castctl(["config", "unset", "device"]).status == 0)
        #expect(try await home.castctl(["config", "unalias", "tv"]).status == 1)
        #expect(try String(contentsOfFile: home.configFile, encoding: .utf8) == "\n[aliases]\n")
        #expect(try await home.castctl(["config", "alias", "9bad", "x"]).status == 64)
        let stopped = await receiver.stopAndCountViolations()
        #expect(stopped.violations == 0, "\(stopped.lines)")
    }

    // MARK: What plays, set up and read by pychromecast

    /// Clips the receivers fetch (60 s of tone each, made by ffmpeg) and a WebVTT track, served with CORS by Python.
    struct Media {
        let directory: String
        let server: ChildProcess
        let base: String

        static func start() async throws -> Media {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("castctl-media-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let ffmpeg = try #require(Peers.ffmpeg, "ffmpeg is needed (apt-get install ffmpeg)")
            for n in 1...3 {
                let made = try await runProgram(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=\(300 * n):duration=60",
                                                         "-ac", "1", "-ar", "8000", "-b:a", "8k", "\(directory)/item\(n).mp3"])
                try #require(made.status == 0, "ffmpeg: \(made.stderr)")
            }
            try "WEBVTT\n\n00:00.000 --> 01:00.000\nHello\n".write(toFile: "\(directory)/item2.vtt", atomically: true, encoding: .utf8)
            let python = try #require(TestPaths.python)
            let server = try ChildProcess(python, [CastctlDailyUseTests.peer, "serve", directory])
            let line = try #require(await server.waitForLine { $0.contains("port") }, "the media server did not start: \(server.errorOutput)")
            let port = try #require(try JSONValue(parsing: line)["port"]?.doubleValue)
            return Media(directory: directory, server: server, base: "http://127.0.0.1:\(Int(port))")
        }

        func stop() async {
            _ = await server.terminate()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    func peer(_ arguments: [String], receiver: ReceiverProcess) async throws -> JSONValue {
        let python = try #require(TestPaths.python)
        let result = try await runProgram(python, [Self.peer] + arguments + ["--port", String(receiver.port), "--uuid", receiver.id])
        let json = try JSONValue(parsing: result.stdout.last ?? "")
        #expect(json["ok"] == true, "pychromecast \(arguments): \(result.stdout) \(result.stderr)")
        return json["status"] ?? .null
    }

    static let peersReady = Peers.inCI || (Peers.hasVenvPychromecast && Peers.ffmpeg != nil)
    static let peersReason: Comment = "needs pychromecast 14 in the venv and ffmpeg: run `make test` (scripts/bootstrap.sh test)"
    static let speechReason: Comment = "needs pychromecast 14 in the venv, ffmpeg and espeak-ng: run `make test` (scripts/bootstrap.sh test)"

    @Test("save on one device, restore on another: pychromecast reads item 2, rate 1.5, the track and the volume there",
          .enabled(if: peersReady, peersReason))
    func saveAndRestoreOnAnotherDevice() async throws {
        let media = try await Media.start()
        let home = try Home()
        let living = try await ReceiverProcess.start(["--strict", "--fetch-media"])
        let kitchen = try await ReceiverProcess.start(["--strict", "--fetch-media", "--volume", "0.9"])
        _ = try await peer(["setup", "--base", media.base], receiver: living)
        #expect(try await home.castctl(["config", "alias", "living", "127.0.0.1:\(living.port)"]).status == 0)

        let file = home.path + "/state.json"
        let saved = try await home.castctl(["save", file, "--device", "living"])
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stdout.last?.hasPrefix("saved item 2 of 3 “Item 2” at 0:00:3") == true, "\(saved.stdout)")
        let state = try JSONValue(parsing: String(contentsOfFile: file, encoding: .utf8))
        let position = try #require(state["playback"]?["options"]?["timeSeconds"]?.doubleValue)
        #expect(position >= 30)
        #expect(state["playback"]?["options"]?["activeTrackIds"] == [1])
        #expect(state["volume"]?["level"] == 0.3)

        let restored = try await home.castctl(["restore", file, "--host", "127.0.0.1", "--port", String(kitchen.port), "--json"])
        #expect(restored.status == 0, "\(restored.stderr)")
        let status = try JSONValue(parsing: restored.stdout.last ?? "")
        #expect(status["media"]?["contentId"] == .string("\(media.base)/item2.mp3"))
        #expect(abs((status["currentTime"]?.doubleValue ?? 0) - position) < 1, "\(String(describing: status["currentTime"])) vs \(position)")
        // What another sender sees on the second device.
        let seen = try await peer(["read"], receiver: kitchen)
        #expect(seen["contentId"] == .string("\(media.base)/item2.mp3"))
        #expect(seen["playbackRate"] == 1.5)
        #expect(seen["activeTrackIds"] == [1])
        #expect(seen["playerState"] == "PLAYING")
        #expect((seen["currentTime"]?.doubleValue ?? 0) >= position - 0.5)
        #expect(abs((seen["volume"]?.doubleValue ?? 0) - 0.3) < 1e-3)

        // Nothing plays on a fresh device: save fails and writes nothing.
        let idle = try await ReceiverProcess.start(["--strict"])
        let nothing = try await home.castctl(["save", home.path + "/none.json", "--host", "127.0.0.1", "--port", String(idle.port)])
        #expect(nothing.status == 1)
        #expect(nothing.stderr.contains("nothing plays"), "\(nothing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.path + "/none.json"))
        for receiver in [living, kitchen, idle] {
            let stopped = await receiver.stopAndCountViolations()
            #expect(stopped.violations == 0, "\(stopped.lines)")
        }
        await media.stop()
    }

    @Test("announce --say: espeak-ng's speech is served and fetched, then item 2, its position, rate 1.5, the track and the volume are back",
          .enabled(if: peersReady && (Peers.inCI || Peers.onPath("espeak-ng") != nil), speechReason))
    func announceThenRestore() async throws {
        try #require(Peers.onPath("espeak-ng") != nil, "espeak-ng is missing (scripts/bootstrap.sh test installs it)")
        let media = try await Media.start()
        let home = try Home()
        let receiver = try await ReceiverProcess.start(["--fetch-media"])
        _ = try await peer(["setup", "--base", media.base], receiver: receiver)

        let result = try await home.castctl(["announce", "--say", "Dinner is ready", "--volume", "0.8", "--json",
                                             "--host", "127.0.0.1", "--port", String(receiver.port)])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONValue(parsing: result.stdout.last ?? "")
        #expect(report["end"] == "the announcement finished")
        let position = try #require(report["saved"]?["playback"]?["options"]?["timeSeconds"]?.doubleValue)
        let restored = try #require(report["restored"])
        #expect(restored["media"]?["contentId"] == .string("\(media.base)/item2.mp3"))
        #expect(abs((restored["currentTime"]?.doubleValue ?? 0) - position) < 1, "\(String(describing: restored["currentTime"])) vs \(position)")
        #expect(restored["playbackRate"] == 1.5)
        #expect(restored["activeTrackIds"] == [1])
        // Progress went to standard error, each step on its line.
        for step in ["saved item 2 of 3", "announcing", "the announcement finished", "restored: PLAYING"] {
            #expect(result.stderr.contains("castctl: \(step)"), "missing “\(step)” in \(result.stderr)")
        }
        // The receiver fetched the speech from castctl's media server (a range of a WAV, with CORS).
        #expect(receiver.child.output.contains { $0.contains("fetch media http://") && $0.contains(".wav")
                    && ($0.contains("→ 206 audio/wav") || $0.contains("→ 200 audio/wav")) && $0.contains("CORS ok") },
                "\(receiver.child.output.filter { $0.contains("fetch") })")

        let seen = try await peer(["read"], receiver: receiver)
        #expect(seen["contentId"] == .string("\(media.base)/item2.mp3"))
        #expect(seen["playbackRate"] == 1.5)
        #expect(seen["activeTrackIds"] == [1])
        #expect((seen["currentTime"]?.doubleValue ?? 0) >= position - 0.5)
        #expect(abs((seen["volume"]?.doubleValue ?? 0) - 0.3) < 1e-3)
        // Every request named a live session: the queue model's background fetches yield to the
        // announcement's LOAD instead of naming the session it replaces.
        let stopped = await receiver.stopAndCountViolations()
        let violations = stopped.lines.filter { $0.hasPrefix("cast-receiver: violation") }
        #expect(violations.isEmpty, "\(stopped.lines)")
        await media.stop()
    }
}
