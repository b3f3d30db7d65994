internal import CastProcess
public import CastStreaming
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Pictures that ffmpeg captures or decodes: the X11 screen (`x11grab`), or a media file played at its
/// own pace. ffmpeg scales them to the size chosen and writes raw I420 to a pipe; a frame the encoder
/// has not taken yet is replaced by the next one (frames are dropped, never queued).
///
/// ffmpeg runs as a child that cannot outlive this process (its own process group, killed with it), and
/// stops when the stream of frames ends or is cancelled.
public struct FFmpegVideoSource: VideoSource {
    public let width: Int
    public let height: Int
    public let frameRate: Int
    /// ffmpeg's arguments before the output options: the input and how it is read.
    public let inputArguments: [String]
    /// ffmpeg's path.
    public let ffmpeg: String
    /// What the source shows, for messages (`the X11 screen :0`, `movie.mkv`).
    public let name: String

    /// A source from ffmpeg input arguments, scaled to `width`×`height` at `frameRate`.
    public init(name: String, inputArguments: [String], width: Int, height: Int, frameRate: Int, ffmpeg: String) {
        self.name = name
        self.inputArguments = inputArguments
        self.width = max(2, width & ~1)
        self.height = max(2, height & ~1)
        self.frameRate = max(1, frameRate)
        self.ffmpeg = ffmpeg
    }

    /// The X11 screen of `display` (by default `$DISPLAY`), whole, its size kept and scaled down to fit
    /// `maximumSize` (a device takes at most 1920×1080 in a mirroring session).
    /// - Throws: `StreamingError` `.captureFailed` when there is no display, no ffmpeg, or ffprobe cannot
    ///   open the screen within `timeout`.
    public static func screen(
        display: String? = nil, frameRate: Int = 30, maximumSize: OfferedStream.Resolution = .init(width: 1920, height: 1080),
        timeout: Duration = .seconds(10)
    ) async throws(StreamingError) -> FFmpegVideoSource {
        guard let display = display ?? ProcessInfo.processInfo.environment["DISPLAY"], !display.isEmpty else {
            throw StreamingError(code: .captureFailed, message: "no X11 display to capture: set DISPLAY or give one (Wayland is not captured yet)")
        }
        let tools = try FFmpegCapture.tools()
        let input = ["-f", "x11grab", "-framerate", "\(frameRate)", "-draw_mouse", "1", "-i", display]
        let size = try await FFmpegCapture.probeSize(tools.ffprobe, input: ["-f", "x11grab", "-i", display], what: "the X11 screen \(display)", timeout: timeout)
        let scaled = FFmpegCapture.fit(size, within: maximumSize)
        return FFmpegVideoSource(name: "the X11 screen \(display)", inputArguments: input, width: scaled.width, height: scaled.height,
                                 frameRate: frameRate, ffmpeg: tools.ffmpeg)
    }

    /// The pictures of a media file, decoded at the file's own pace (`-re`), scaled down to fit
    /// `maximumSize` and converted to `frameRate`, from `start` on (a session that starts again after the
    /// device was lost goes on where the last one was).
    /// - Throws: `StreamingError` `.captureFailed` when the file has no video ffprobe reads within `timeout`.
    public static func file(
        _ path: String, frameRate: Int = 30, maximumSize: OfferedStream.Resolution = .init(width: 1920, height: 1080),
        start: Duration = .zero, timeout: Duration = .seconds(10)
    ) async throws(StreamingError) -> FFmpegVideoSource {
        let tools = try FFmpegCapture.tools()
        let size = try await FFmpegCapture.probeSize(tools.ffprobe, input: ["-i", path], what: path, timeout: timeout)
        let scaled = FFmpegCapture.fit(size, within: maximumSize)
        return FFmpegVideoSource(name: (path as NSString).lastPathComponent, inputArguments: FFmpegCapture.seek(start) + ["-re", "-i", path, "-map", "0:v:0"],
                                 width: scaled.width, height: scaled.height, frameRate: frameRate, ffmpeg: tools.ffmpeg)
    }

    /// ffmpeg's whole command line after the program name.
    public var arguments: [String] {
        ["-nostdin", "-hide_banner", "-loglevel", "error"] + inputArguments + [
            "-an", "-sn", "-vf", "scale=\(width):\(height):flags=bilinear,format=yuv420p,fps=\(frameRate)",
            "-f", "rawvideo", "-pix_fmt", "yuv420p", "pipe:1",
        ]
    }

    public func frames(clock: CaptureClock) -> AsyncThrowingStream<VideoFrame, any Error> {
        let (width, height) = (self.width, self.height)
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: VideoFrame.self, bufferingPolicy: .bufferingNewest(1))
        FFmpegCapture.run(ffmpeg, arguments, name: name, recordSize: VideoFrame.byteCount(width: width, height: height),
                          continuation: continuation) { record in
            VideoFrame(width: width, height: height, i420: record, captureTime: clock.now)
        }
        return stream
    }
}

/// Sound that ffmpeg captures or decodes: a PulseAudio or PipeWire source (by default the monitor of the
/// default sink: what the desktop plays), or a media file's sound at its own pace; 48 kHz, 16 bits, in
/// 10 ms chunks.
public struct FFmpegAudioSource: AudioSource {
    public let channels: Int
    /// ffmpeg's arguments before the output options.
    public let inputArguments: [String]
    /// ffmpeg's path.
    public let ffmpeg: String
    /// What the source plays, for messages.
    public let name: String
    /// The sound in each chunk.
    public static let chunkDuration = Duration.milliseconds(10)
    /// How far chunk times may drift from the time they arrive before they are set again from it.
    public static let resynchronizeAfter = Duration.milliseconds(200)

    /// A source from ffmpeg input arguments.
    public init(name: String, inputArguments: [String], channels: Int = 2, ffmpeg: String) {
        self.name = name
        self.inputArguments = inputArguments
        self.channels = max(1, min(2, channels))
        self.ffmpeg = ffmpeg
    }

    /// A PulseAudio (or PipeWire's pulse server) source: `source`, or when `nil` the monitor of the default
    /// sink, found with `pactl get-default-sink` — what the desktop is playing.
    /// - Throws: `StreamingError` `.captureFailed` without ffmpeg, or without `pactl` when no source is named.
    public static func pulse(source: String? = nil, timeout: Duration = .seconds(10)) async throws(StreamingError) -> FFmpegAudioSource {
        let tools = try FFmpegCapture.tools()
        var device = source
        if device == nil {
            guard let pactl = ChildRun.executable(named: "pactl") else {
                throw StreamingError(code: .captureFailed, message: "pactl is not installed (apt-get install pulseaudio-utils) to find the default sink; or name a source")
            }
            let sink = try await FFmpegCapture.collect(pactl, ["get-default-sink"], what: "the default sink", timeout: timeout)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard !sink.isEmpty else { throw StreamingError(code: .captureFailed, message: "PulseAudio has no default sink") }
            device = sink + ".monitor"
        }
        let name = device!
        // A 10 ms fragment: PulseAudio hands the sound over as it comes, not in the default 0.5 s blocks.
        return FFmpegAudioSource(name: "PulseAudio source \(name)", inputArguments: ["-f", "pulse", "-fragment_size", "1920", "-i", name],
                                 ffmpeg: tools.ffmpeg)
    }

    /// The sound of a media file, at the file's own pace, from `start` on.
    public static func file(_ path: String, start: Duration = .zero) throws(StreamingError) -> FFmpegAudioSource {
        let tools = try FFmpegCapture.tools()
        return FFmpegAudioSource(name: (path as NSString).lastPathComponent, inputArguments: FFmpegCapture.seek(start) + ["-re", "-i", path, "-map", "0:a:0"],
                                 ffmpeg: tools.ffmpeg)
    }

    /// ffmpeg's whole command line after the program name.
    public var arguments: [String] {
        ["-nostdin", "-hide_banner", "-loglevel", "error"] + inputArguments + [
            "-vn", "-sn", "-ar", "\(AudioChunk.sampleRate)", "-ac", "\(channels)", "-f", "s16le", "pipe:1",
        ]
    }

    public func chunks(clock: CaptureClock) -> AsyncThrowingStream<AudioChunk, any Error> {
        let channels = self.channels
        let samplesPerChunk = AudioChunk.sampleRate / 100
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: AudioChunk.self, bufferingPolicy: .bufferingNewest(8))
        // Chunk times count samples from the first chunk's arrival, so that bursts from the sound server
        // do not bunch them; a drift beyond `resynchronizeAfter` (a pause, a lost block) sets them again.
        let timeline = Mutex<(origin: Duration, index: Int)?>(nil)
        FFmpegCapture.run(ffmpeg, arguments, name: name, recordSize: samplesPerChunk * channels * 2, continuation: continuation) { record in
            let arrived = clock.now - Self.chunkDuration
            let captureTime = timeline.withLock { state -> Duration in
                var current = state ?? (arrived, 0)
                var expected = current.origin + Self.chunkDuration * current.index
                if expected - arrived > Self.resynchronizeAfter || arrived - expected > Self.resynchronizeAfter {
                    current = (arrived - Self.chunkDuration * current.index, current.index)
                    expected = arrived
                }
                current.index += 1
                state = current
                return expected
            }
            let samples = record.withUnsafeBytes { raw in
                (0..<(record.count / 2)).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
            }
            return AudioChunk(samples: samples, channels: channels, captureTime: captureTime)
        }
        return stream
    }
}

/// What the ffmpeg sources share: finding the tools, probing, fitting a size, and running ffmpeg into a stream.
enum FFmpegCapture {
    /// ffmpeg's input seek to `start` (nothing for zero).
    static func seek(_ start: Duration) -> [String] {
        guard start > .zero else { return [] }
        let milliseconds = start.components.seconds * 1000 + start.components.attoseconds / 1_000_000_000_000_000
        return ["-ss", "\(milliseconds / 1000).\(String(format: "%03d", Int(milliseconds % 1000)))"]
    }

    static func tools() throws(StreamingError) -> (ffmpeg: String, ffprobe: String) {
        guard let ffmpeg = ChildRun.executable(named: "ffmpeg"), let ffprobe = ChildRun.executable(named: "ffprobe") else {
            throw StreamingError(code: .captureFailed, message: "ffmpeg is not installed (apt-get install ffmpeg): it captures the screen, sound and files")
        }
        return (ffmpeg, ffprobe)
    }

    /// The largest even size of the same shape as `size` within `maximum` (either way round: a portrait
    /// screen fits the maximum turned).
    static func fit(_ size: OfferedStream.Resolution, within maximum: OfferedStream.Resolution) -> OfferedStream.Resolution {
        let portrait = size.height > size.width
        let (limitWidth, limitHeight) = portrait
            ? (min(maximum.width, maximum.height), max(maximum.width, maximum.height))
            : (max(maximum.width, maximum.height), min(maximum.width, maximum.height))
        let scale = min(1, Double(limitWidth) / Double(size.width), Double(limitHeight) / Double(size.height))
        return OfferedStream.Resolution(width: max(2, Int(Double(size.width) * scale) & ~1), height: max(2, Int(Double(size.height) * scale) & ~1))
    }

    /// The picture size of the first video stream of an ffmpeg input, as ffprobe reads it.
    static func probeSize(_ ffprobe: String, input: [String], what: String, timeout: Duration) async throws(StreamingError) -> OfferedStream.Resolution {
        let text = try await collect(ffprobe, ["-v", "error"] + input + ["-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0"],
                                     what: what, timeout: timeout)
        let numbers = text.split(whereSeparator: { $0 == "," || $0.isNewline }).compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count >= 2, numbers[0] > 0, numbers[1] > 0 else {
            throw StreamingError(code: .captureFailed, message: "\(what) has no picture ffprobe can read")
        }
        return OfferedStream.Resolution(width: numbers[0], height: numbers[1])
    }

    /// A short program's standard output (at most 64 KiB), within `timeout` (the program is killed after it).
    static func collect(_ program: String, _ arguments: [String], what: String, timeout: Duration) async throws(StreamingError) -> String {
        let run: ChildRun
        do {
            run = try ChildRun.start(program, arguments, output: .collect(limit: 64 * 1024))
        } catch {
            throw StreamingError(code: .captureFailed, message: "cannot read \(what): \(error.message)")
        }
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            run.kill(SIGKILL)
        }
        let exit = await run.exit()
        watchdog.cancel()
        guard exit.succeeded else {
            let reason = exit == .signalled(SIGKILL) ? "no answer within \(timeout)" : run.lastErrorLine
            throw StreamingError(code: .captureFailed, message: "cannot read \(what): \(reason.isEmpty ? exit.description : reason)")
        }
        return String(decoding: run.collectedOutput, as: UTF8.self)
    }

    /// Runs ffmpeg and feeds `continuation` with what `make` builds from each record of its output; a
    /// failure of ffmpeg ends the stream with `.captureFailed` and its last error line, the stream's end
    /// kills ffmpeg.
    static func run<Element: Sendable>(
        _ ffmpeg: String, _ arguments: [String], name: String, recordSize: Int,
        continuation: AsyncThrowingStream<Element, any Error>.Continuation, make: @escaping @Sendable ([UInt8]) -> Element
    ) {
        let run: ChildRun
        do {
            run = try ChildRun.start(ffmpeg, arguments, output: .records(size: recordSize) { record in continuation.yield(make(record)) })
        } catch {
            continuation.finish(throwing: StreamingError(code: .captureFailed, message: "cannot start ffmpeg for \(name): \(error.message)"))
            return
        }
        let stopped = Atomic(false)
        continuation.onTermination = { _ in
            stopped.store(true, ordering: .relaxed)
            run.kill(SIGKILL)
        }
        Task {
            let exit = await run.exit()
            if exit.succeeded || stopped.load(ordering: .relaxed) {
                continuation.finish()
            } else {
                let reason = run.lastErrorLine
                continuation.finish(throwing: StreamingError(
                    code: .captureFailed, message: "ffmpeg stopped capturing \(name) (\(exit))\(reason.isEmpty ? "" : ": \(reason)")"))
            }
        }
    }
}
