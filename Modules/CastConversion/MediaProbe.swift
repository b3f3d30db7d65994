import Synchronization
import CastDeviceProfiles
internal import CastProcess
import Foundation

/// Runs ffprobe on a file: its streams and duration (``probe(_:)-(String)``), and the key frames of a video stream
/// (``keyframeTimes(of:stream:input:)``), which a plan that copies video cuts its segments at.
///
/// Each run is a child process that cannot outlive this one, bounded by a deadline and an output cap.
public struct MediaProbe: Sendable {
    /// The programs.
    public var tools: FFmpegTools
    /// How long one ffprobe run reading the format and streams may take.
    public var timeout: Duration
    /// How long reading every packet's flags for ``keyframeTimes(of:stream:input:)`` may take (it reads the whole file).
    public var keyframeTimeout: Duration
    /// The most key frames read from one stream (a day of video at one key frame a second fits).
    public var maximumKeyframes: Int

    /// Creates a probe.
    public init(tools: FFmpegTools, timeout: Duration = .seconds(30), keyframeTimeout: Duration = .seconds(300),
                maximumKeyframes: Int = 100_000) {
        self.tools = tools
        self.timeout = timeout
        self.keyframeTimeout = keyframeTimeout
        self.maximumKeyframes = maximumKeyframes
    }

    /// Probes a file's format and streams.
    /// - Throws: ``ConversionError``: ``ConversionError/Code/probeFailed`` for a file ffprobe cannot read,
    ///   ``ConversionError/Code/toolMissing``, ``ConversionError/Code/timedOut``.
    public func probe(_ path: String) async throws(ConversionError) -> ProbedMedia {
        try await probe(MediaInput(path: path))
    }

    /// Probes an input's format and streams: a file, or a URL ffprobe fetches (with the input's headers, every read
    /// bounded by its ``MediaInput/readTimeout``, the whole probe by ``timeout``). For an input naming a
    /// ``MediaInput/representation``, only that representation's streams are kept (their indexes are the
    /// manifest's, which ffmpeg maps).
    /// - Throws: ``ConversionError``: ``ConversionError/Code/probeFailed`` for an input ffprobe cannot read (no such
    ///   file, an HTTP error, not media), ``ConversionError/Code/noPlayableStream`` when the representation is not
    ///   in it, ``ConversionError/Code/toolMissing``, ``ConversionError/Code/timedOut``.
    public func probe(_ input: MediaInput) async throws(ConversionError) -> ProbedMedia {
        if !input.isRemote, !FileManager.default.isReadableFile(atPath: input.location) {
            throw ConversionError(code: .probeFailed, message: "\(input.location): no such readable file")
        }
        let run = try start(
            ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "-show_error"] + input.inputOptions
                + ["--", input.location],
            output: .collect(limit: ProbedMedia.maximumReportBytes))
        let exit = try await finish(run, what: "probing \(input)", timeout: timeout)
        if run.outputOverflowed {
            throw ConversionError(code: .tooLarge, message: "ffprobe's report on \(input) is larger than \(ProbedMedia.maximumReportBytes) bytes")
        }
        let output = run.collectedOutput
        if !exit.succeeded, output.isEmpty {
            throw ConversionError(code: .probeFailed, message: "ffprobe cannot read \(input): \(run.lastErrorLine.nonEmpty ?? exit.description)")
        }
        var media = try ProbedMedia(ffprobeJSON: output, path: input.path)
        media.inputs = [input]
        guard let representation = input.representation else { return media }
        let exact = media.keeping { $0.identifier == representation }
        let chosen = exact.streams.isEmpty ? media.keeping { input.isRepresentation($0.identifier) } : exact
        guard !chosen.streams.isEmpty else {
            let ids = media.streams.compactMap(\.identifier).prefix(20).joined(separator: ", ")
            throw ConversionError(
                code: .noPlayableStream, message: "\(input) has no representation \(representation.prefix(80)) (its streams' ids: \(ids.isEmpty ? "none" : ids))")
        }
        return chosen
    }

    /// The presentation times (seconds from the file's start, ``ProbedMedia/startTime`` taken off) of the key
    /// frames of a video stream, ascending.
    ///
    /// Reads every packet's flags (not the pictures): about a second per gigabyte read from a file; a URL is
    /// fetched whole (`input` says which of the media's ``ProbedMedia/inputs``).
    /// - Throws: ``ConversionError`` as ``probe(_:)-(String)``, or ``ConversionError/Code/tooLarge`` beyond
    ///   ``maximumKeyframes``.
    public func keyframeTimes(of media: ProbedMedia, stream: Int, input: Int = 0) async throws(ConversionError) -> [Double] {
        guard media.inputs.indices.contains(input) else {
            throw ConversionError(code: .invalidOptions, message: "the probed media has no input \(input)")
        }
        let source = media.inputs[input]
        let path = source.description
        let collector = KeyframeCollector(limit: maximumKeyframes, offset: media.startTime)
        let run = try start(
            ["-v", "error", "-select_streams", String(stream), "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0"]
                + source.inputOptions + ["--", source.location],
            output: .lines { line in collector.add(line) })
        let exit = try await finish(run, what: "reading the key frames of \(path)", timeout: keyframeTimeout)
        let (times, overflowed) = collector.result
        if overflowed {
            throw ConversionError(code: .tooLarge, message: "\(path) has more than \(maximumKeyframes) key frames in stream \(stream)")
        }
        guard exit.succeeded else {
            throw ConversionError(code: .probeFailed, message: "ffprobe cannot read the packets of \(path): \(run.lastErrorLine.nonEmpty ?? exit.description)")
        }
        return times
    }

    private func start(_ arguments: [String], output: ChildRun.OutputHandling) throws(ConversionError) -> ChildRun {
        do {
            return try ChildRun.start(tools.ffprobe, arguments, output: output)
        } catch {
            throw ConversionError(error, tool: "ffprobe")
        }
    }

    private func finish(_ run: ChildRun, what: String, timeout: Duration) async throws(ConversionError) -> ChildExit {
        if let exit = await run.exit(within: timeout) { return exit }
        throw ConversionError(code: .timedOut, message: "ffprobe took longer than \(timeout) \(what)")
    }
}

/// Keeps the key frames of ffprobe's `pts_time,flags` lines (`12.005000,K__`), bounded.
final class KeyframeCollector: Sendable {
    private let limit: Int
    private let offset: Double
    private let state = Mutex<(times: [Double], overflowed: Bool)>(([], false))

    init(limit: Int, offset: Double) {
        self.limit = limit
        self.offset = offset
    }

    func add(_ line: String) {
        guard let time = Self.keyframeTime(line) else { return }
        state.withLock { state in
            guard state.times.count < limit else {
                state.overflowed = true
                return
            }
            state.times.append(max(0, time - offset))
        }
    }

    var result: ([Double], Bool) {
        state.withLock { state in (Self.ascending(state.times), state.overflowed) }
    }

    /// The time of a key frame line, `nil` for other lines.
    static func keyframeTime(_ line: String) -> Double? {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count >= 2, fields[1].hasPrefix("K"), fields[0].utf8.count <= 32,
              let time = Double(fields[0]), time.isFinite, time > -1e6, time < 1e9 else { return nil }
        return time
    }

    /// Sorted, without near-duplicates (packets of one frame split across fields).
    static func ascending(_ times: [Double]) -> [Double] {
        var result: [Double] = []
        for time in times.sorted() where result.last.map({ time - $0 > 0.0005 }) ?? true { result.append(time) }
        return result
    }
}

