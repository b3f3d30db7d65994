@testable import CastctlKit
import Foundation
import Testing

/// In CI (`CI=true`) a missing tool fails its test instead of skipping it.
enum Tools {
    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"
    static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").lazy.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    static let espeak = onPath("espeak-ng")
    static let ffmpeg = onPath("ffmpeg")
    static let ffprobe = onPath("ffprobe")
}

/// Whether a process is gone (or a zombie waiting to be reaped by whoever inherited it).
func isGone(_ pid: pid_t) -> Bool {
    if kill(pid, 0) != 0 { return true }
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
}

/// ToolRun's own bounds on top of CastProcess (whose tests cover process groups, the parent-death signal,
/// the output cap and a missing program): a deadline and the caller's cancellation kill the whole group.
@Suite struct ToolRunTests {
    @Test func collectsOutputStatusAndTheLastErrorLineWithExtraEnvironment() async throws {
        let result = try await ToolRun.run(
            "/bin/sh", ["-c", "echo \"$EXTRA\"; echo first >&2; echo 'last line' >&2; exit 3"], environment: ["EXTRA": "hello"],
            timeout: .seconds(60))
        #expect(result.status == 3)
        #expect(String(decoding: result.output, as: UTF8.self) == "hello\n")
        #expect(result.lastErrorLine == "last line")
    }

    @Test func aMissingProgramIsNamed() async {
        let error = await #expect(throws: ToolRun.Failure.self) { try await ToolRun.run("castctl-no-such-tool", [], timeout: .seconds(5)) }
        #expect(error == .missing("castctl-no-such-tool"))
    }

    /// A child that never ends is killed with everything it started (its process group); the test
    /// waits for that, whatever the wait limit, and asserts on what is left, not on how long it took.
    @Test func aChildPastItsTimeKillsItsWholeGroup() async throws {
        let folder = try ScratchFolder()
        let pidFile = folder.path + "/pid"
        let error = await #expect(throws: ToolRun.Failure.self) {
            try await ToolRun.run("/bin/sh", ["-c", "sleep 600 & echo $! > \(pidFile); wait"], timeout: .seconds(1))
        }
        #expect(error == .timedOut)
        let pid = try #require(pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(isGone(pid), "the shell's background child \(pid) outlived the run")
    }

    /// The caller's cancellation kills the child: the run ends with `.cancelled` long before its deadline.
    @Test func aCancelledRunKillsItsChild() async throws {
        let folder = try ScratchFolder()
        let pidFile = folder.path + "/pid"
        let run = Task { () throws(ToolRun.Failure) -> ToolRun.Result in
            try await ToolRun.run("/bin/sh", ["-c", "echo $$ > \(pidFile); exec sleep 600"], timeout: .seconds(3600))
        }
        // Cancel once the child is there (its pid file written; no event tells it, so the file is looked at every
        // 5 ms, for 30 s at most), not at an arbitrary moment.
        for _ in 0..<6_000 {
            if (try? String(contentsOfFile: pidFile, encoding: .utf8))?.hasSuffix("\n") == true { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        run.cancel()
        let result = await run.result
        #expect(throws: ToolRun.Failure.cancelled) { try result.get() }
        let pid = try #require(pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(isGone(pid), "the child \(pid) outlived the cancelled run")
    }

    @Test func tooMuchOutputIsStopped() async {
        let error = await #expect(throws: ToolRun.Failure.self) {
            try await ToolRun.run("/bin/sh", ["-c", "yes"], timeout: .seconds(60), outputLimit: 100_000)
        }
        #expect(error == .tooMuchOutput)
    }
}

@Suite struct SpeechRendererTests {
    @Test func espeakNGWritesAWAVFile() async throws {
        guard Tools.espeak != nil else {
            if Tools.inCI { Issue.record("espeak-ng is missing (scripts/bootstrap.sh test installs it)") }
            return
        }
        let folder = try ScratchFolder()
        let path = folder.path + "/speech.wav"
        let type = try await SpeechRenderer(engine: .espeakNG(voice: "en", wordsPerMinute: 170)).render("Dinner is ready", to: path)
        #expect(type == "audio/wav")
        let head = try #require(FileHandle(forReadingAtPath: path)).readData(ofLength: 12)
        #expect(head.prefix(4) == Data("RIFF".utf8) && head.suffix(4) == Data("WAVE".utf8))
        if Tools.ffprobe != nil {
            let seconds = try #require(await MediaDuration.probe(path))
            #expect(seconds > 0.3 && seconds < 10, "\(seconds) s for three words")
        }
    }

    /// A TTS command of the user's: the text on standard input and in $CASTCTL_TTS_TEXT, the audio to $CASTCTL_TTS_OUTPUT.
    @Test func aCommandGetsTheTextAndWritesTheAudio() async throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/speech.wav"
        let seen = folder.path + "/seen"
        let command = "cat > \(seen); printf '%s' \"$CASTCTL_TTS_TEXT\" >> \(seen); printf 'ID3fake' > \"$CASTCTL_TTS_OUTPUT\""
        let type = try await SpeechRenderer(engine: .command(command)).render("  it's 7 o'clock; \"$HOME\" `x`  ", to: path)
        #expect(type == "audio/mpeg")
        let text = "it's 7 o'clock; \"$HOME\" `x`"
        #expect(try String(contentsOfFile: seen, encoding: .utf8) == text + text)
    }

    @Test func failuresSayWhy() async throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/speech.wav"
        let failing = await #expect(throws: CastctlError.self) {
            try await SpeechRenderer(engine: .command("echo 'no voice called xx' >&2; exit 2")).render("hi", to: path)
        }
        #expect(failing?.message == "the TTS command failed with status 2: no voice called xx")
        let silent = await #expect(throws: CastctlError.self) { try await SpeechRenderer(engine: .command("true")).render("hi", to: path) }
        #expect(silent?.message.contains("wrote no audio") == true)
        let empty = await #expect(throws: CastctlError.self) { try await SpeechRenderer(engine: .command("true")).render(" \n ", to: path) }
        #expect(empty?.message == "there is no text to say")
        let long = String(repeating: "a", count: SpeechRenderer.maximumTextBytes + 1)
        await #expect(throws: CastctlError.self) { try await SpeechRenderer(engine: .command("true")).render(long, to: path) }
    }
}
