import Foundation

/// Renders text to speech in an audio file, with espeak-ng or a command the user gives.
///
/// A command is run by `/bin/sh -c`; it reads the text on standard input (also in
/// `$CASTCTL_TTS_TEXT`) and writes the audio to the file named by `$CASTCTL_TTS_OUTPUT` (a `.wav`
/// path; WAV, MP3, Ogg or FLAC content is recognised): for example
/// `pico2wave -w "$CASTCTL_TTS_OUTPUT" "$CASTCTL_TTS_TEXT"`.
public struct SpeechRenderer: Sendable {
    /// How speech is made.
    public enum Engine: Sendable, Hashable {
        /// espeak-ng, with a voice (`en`, `fr`, `de+f3`…) and words per minute.
        case espeakNG(voice: String?, wordsPerMinute: Int?)
        /// A shell command.
        case command(String)
    }

    /// The longest text spoken.
    public static let maximumTextBytes = 16 * 1024
    /// The largest audio file accepted.
    public static let maximumAudioBytes = 64 * 1024 * 1024

    /// The engine.
    public var engine: Engine
    /// How long rendering may take.
    public var timeout: Duration

    /// Creates a renderer.
    public init(engine: Engine, timeout: Duration = .seconds(60)) {
        self.engine = engine
        self.timeout = timeout
    }

    /// Renders `text` to `path` and returns the audio's MIME type.
    /// - Throws: ``CastctlError`` `.speechFailed` (engine missing, failed, timed out, no or too much audio).
    public func render(_ text: String, to path: String) async throws(CastctlError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw CastctlError(code: .speechFailed, message: "there is no text to say") }
        guard trimmed.utf8.count <= Self.maximumTextBytes else {
            throw CastctlError(code: .speechFailed, message: "the text is longer than \(Self.maximumTextBytes / 1024) KiB")
        }
        // CastProcess gives a child /dev/null for standard input: the text goes in a file beside the audio,
        // read by espeak-ng (-f) or made the command's standard input by a shell redirection.
        let textPath = (path as NSString).deletingLastPathComponent + "/.castctl-tts-\(UUID().uuidString).txt"
        guard FileManager.default.createFile(atPath: textPath, contents: Data(trimmed.utf8)) else {
            throw CastctlError(code: .speechFailed, message: "cannot write the text to \(textPath)")
        }
        defer { try? FileManager.default.removeItem(atPath: textPath) }
        let program: String
        let arguments: [String]
        let name: String
        var environment = ["CASTCTL_TTS_TEXT": trimmed, "CASTCTL_TTS_OUTPUT": path]
        switch engine {
        case .espeakNG(let voice, let speed):
            name = "espeak-ng"
            program = "espeak-ng"
            arguments = ["-f", textPath, "-w", path] + (voice.map { ["-v", $0] } ?? []) + (speed.map { ["-s", String($0)] } ?? [])
        case .command(let command):
            name = "the TTS command"
            program = "/bin/sh"
            environment["CASTCTL_TTS_COMMAND"] = command
            environment["CASTCTL_TTS_INPUT"] = textPath
            arguments = ["-c", "exec /bin/sh -c \"$CASTCTL_TTS_COMMAND\" < \"$CASTCTL_TTS_INPUT\""]
        }
        try? FileManager.default.removeItem(atPath: path)
        let result: ToolRun.Result
        do {
            result = try await ToolRun.run(program, arguments, environment: environment, timeout: timeout)
        } catch {
            switch error {
            case .missing(let program):
                let hint = name == "espeak-ng" ? " (apt-get install espeak-ng, or give --tts-command)" : ""
                throw CastctlError(code: .speechFailed, message: "\(program) is not installed (not found on PATH)\(hint)")
            case .notStarted(let why): throw CastctlError(code: .speechFailed, message: why)
            case .timedOut: throw CastctlError(code: .speechFailed, message: "\(name) took longer than \(timeout); it was stopped")
            case .tooMuchOutput: throw CastctlError(code: .speechFailed, message: "\(name) wrote too much to standard output; it was stopped")
            case .cancelled: throw CastctlError(code: .speechFailed, message: "cancelled")
            }
        }
        guard result.status == 0 else {
            let detail = result.lastErrorLine.isEmpty ? "" : ": \(result.lastErrorLine)"
            throw CastctlError(code: .speechFailed, message: "\(name) failed with status \(result.status)\(detail)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard let size, size > 0 else { throw CastctlError(code: .speechFailed, message: "\(name) wrote no audio to \(path)") }
        guard size <= Self.maximumAudioBytes else {
            throw CastctlError(code: .speechFailed, message: "\(name) wrote more than \(Self.maximumAudioBytes >> 20) MiB of audio")
        }
        return Self.mimeType(ofFileAt: path)
    }

    /// The MIME type of an audio file, from its first bytes (`audio/wav` when unknown).
    static func mimeType(ofFileAt path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "audio/wav" }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 12)) ?? Data())
        func starts(_ text: String, at offset: Int = 0) -> Bool {
            let bytes = Array(text.utf8)
            return head.count >= offset + bytes.count && Array(head[offset..<(offset + bytes.count)]) == bytes
        }
        if starts("RIFF") && starts("WAVE", at: 8) { return "audio/wav" }
        if starts("OggS") { return "audio/ogg" }
        if starts("fLaC") { return "audio/flac" }
        if starts("ID3") || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0) { return "audio/mpeg" }
        return "audio/wav"
    }
}

/// The duration of a local media file, read by ffprobe (`nil` when ffprobe is missing or cannot tell).
public enum MediaDuration {
    /// Seconds, from `ffprobe -show_entries format=duration`, within 15 s.
    public static func probe(_ path: String) async -> Double? {
        let result = try? await ToolRun.run(
            "ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "default=noprint_wrappers=1:nokey=1", path],
            timeout: .seconds(15), outputLimit: 4096)
        guard let result, result.status == 0 else { return nil }
        let text = String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let seconds = Double(text), seconds.isFinite, seconds > 0 else { return nil }
        return seconds
    }
}
