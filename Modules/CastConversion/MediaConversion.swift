#if canImport(Glibc)
import Glibc
#endif
import CastDeviceProfiles
import CastMediaServer
internal import CastProcess
import Foundation
import Logging
import Synchronization

/// A file published for one device by its ``ConversionPlan``: served as it is, or as an HLS VOD stream whose
/// segments ffmpeg makes on demand, with its text subtitles extracted as WebVTT tracks.
///
/// ```swift
/// let tools = try FFmpegTools.locate()
/// let conversion = try await MediaConversion.publish(
///     file: "/home/me/Videos/movie.mkv", profile: .chromecast3, on: server, tools: tools)
/// let media = await conversion.media   // url, content type, the source's duration, WebVTT tracks
/// // LOAD media.url …; when done:
/// await conversion.stop()              // no ffmpeg left, temporary files removed
/// ```
///
/// It is the `MediaResourceProvider` of its registration on the `MediaServer`: the playlists, every
/// segment and every subtitle track are names under one token. A segment request waits (up to
/// ``Configuration/segmentTimeout``) while ffmpeg makes it; a request beyond or behind what ffmpeg is making
/// restarts ffmpeg there (see ``SegmentScheduler``), so a device's SEEK to 15 s gets the segment holding 15 s.
/// Each ffmpeg is a child that cannot outlive this process (its own process group, `PR_SET_PDEATHSIG`), and
/// ``stop()`` kills it and removes the temporary directory.
public actor MediaConversion: MediaResourceProvider {
    /// How a conversion runs.
    public struct Configuration: Sendable {
        /// How far ffmpeg runs ahead, when it restarts, and how many bytes of segments are kept.
        public var limits: SegmentScheduler.Limits
        /// How long a request waits for its segment.
        public var segmentTimeout: Duration
        /// How long the extraction of the text subtitles may take.
        public var subtitleTimeout: Duration
        /// The largest WebVTT track served.
        public var maximumSubtitleBytes: Int
        /// Where the temporary directory is made (by default the system's).
        public var temporaryDirectory: String?
        /// Whether the first segment (and the subtitles) are made at once, before the device asks.
        public var startsAtOnce: Bool
        /// Caps ffmpeg processes across conversions.
        public var limiter: ConversionLimiter
        /// Where the conversion logs.
        public var logger: Logger

        /// Creates a configuration.
        public init(
            limits: SegmentScheduler.Limits = SegmentScheduler.Limits(), segmentTimeout: Duration = .seconds(60),
            subtitleTimeout: Duration = .seconds(120), maximumSubtitleBytes: Int = 8 << 20, temporaryDirectory: String? = nil,
            startsAtOnce: Bool = true, limiter: ConversionLimiter = .shared,
            logger: Logger = Logger(label: "castor.conversion")
        ) {
            self.limits = limits
            self.segmentTimeout = segmentTimeout
            self.subtitleTimeout = subtitleTimeout
            self.maximumSubtitleBytes = maximumSubtitleBytes
            self.temporaryDirectory = temporaryDirectory
            self.startsAtOnce = startsAtOnce
            self.limiter = limiter
            self.logger = logger
        }
    }

    /// The plan carried out.
    public nonisolated let plan: ConversionPlan
    /// What ffprobe found in the source.
    public nonisolated let source: ProbedMedia
    /// What the conversion reports while it runs; ends with ``stop()``.
    public nonisolated let events: AsyncStream<ConversionEvent>

    private let tools: FFmpegTools
    /// The source's canonical path (symbolic links resolved: the server opens files with `O_NOFOLLOW`).
    private let sourcePath: String
    /// The inputs ffmpeg reads, local paths canonical.
    private let inputs: [MediaInput]
    private let options: ConversionOptions
    private let configuration: Configuration
    private let directory: String
    private let eventSink: AsyncStream<ConversionEvent>.Continuation
    private var registration: MediaRegistration?
    private weak var server: MediaServer?
    private var layoutTask: Task<SegmentLayout, any Error>?
    private var scheduler: SegmentScheduler?
    private var hardware: HardwareAcceleration
    private var runs: [SegmentScheduler.RunID: RunState] = [:]
    private var waiters: [SegmentScheduler.WaiterID: CheckedContinuation<Result<Void, ConversionError>, Never>] = [:]
    private var waiterTimers: [SegmentScheduler.WaiterID: Task<Void, Never>] = [:]
    private var nextWaiter = 1
    private var subtitleTask: Task<Result<Void, ConversionError>, Never>?
    private var subtitleChild: ChildRun?
    private var stopped = false
    private var madeOne = false

    private struct RunState {
        var start: Int
        var child: ChildRun?
        var launcher: Task<Void, Never>?
        var stopping = false
        var produced = 0
    }

    // MARK: Starting

    /// Probes a file, plans it for `profile` and publishes it on `server`.
    /// - Throws: ``ConversionError`` from probing or planning (``ConversionError/Code/toolMissing`` when ffmpeg is
    ///   not installed), or when the temporary directory cannot be made; `MediaServerError` is wrapped.
    public static func publish(
        file path: String, profile: CastDeviceProfile, options: ConversionOptions = ConversionOptions(), on server: MediaServer,
        tools: FFmpegTools, configuration: Configuration = Configuration()
    ) async throws(ConversionError) -> MediaConversion {
        let media = try await MediaProbe(tools: tools).probe(path)
        let plan = try ConversionPlan(for: media, profile: profile, options: options)
        return try await publish(media, plan: plan, options: options, on: server, tools: tools, configuration: configuration)
    }

    /// Publishes a probed file by a plan made for it.
    /// - Throws: ``ConversionError`` when the temporary directory cannot be made or the server is closed.
    public static func publish(
        _ media: ProbedMedia, plan: ConversionPlan, options: ConversionOptions = ConversionOptions(), on server: MediaServer,
        tools: FFmpegTools, configuration: Configuration = Configuration()
    ) async throws(ConversionError) -> MediaConversion {
        guard !media.inputs.isEmpty else {
            throw ConversionError(code: .invalidOptions, message: "the probed media has no input")
        }
        if case .direct = plan.delivery, media.path == nil {
            throw ConversionError(code: .invalidOptions, message: "only a local file is served as it is; \(media.name) must be segmented")
        }
        TemporaryDirectory.sweepAbandoned(in: configuration.temporaryDirectory)
        let directory = try TemporaryDirectory.make(in: configuration.temporaryDirectory)
        let conversion = MediaConversion(
            source: media, plan: plan, options: options, tools: tools, configuration: configuration, directory: directory)
        let name: String
        let contentType: String
        switch plan.delivery {
        case .direct:
            let path = media.path ?? ""
            name = (path as NSString).lastPathComponent
            contentType = Self.contentType(ofFile: path)
        case .hls:
            name = HLSPlaylists.masterName
            contentType = HLSPlaylists.contentType
        }
        do {
            let registration = try server.register(provider: conversion, name: name, contentType: contentType)
            await conversion.begin(registration: registration, server: server)
        } catch {
            await conversion.stop()
            throw ConversionError(code: .fileSystem, message: "cannot publish \(media.name): \(error.message)", cause: error)
        }
        return conversion
    }

    private init(
        source: ProbedMedia, plan: ConversionPlan, options: ConversionOptions, tools: FFmpegTools, configuration: Configuration,
        directory: String
    ) {
        self.source = source
        self.sourcePath = source.path.flatMap { path in
            guard let resolved = realpath(path, nil) else { return nil }
            defer { free(resolved) }
            return String(cString: resolved)
        } ?? source.path ?? ""
        self.inputs = source.inputs.map { input in
            guard let path = input.path, let resolved = realpath(path, nil) else { return input }
            defer { free(resolved) }
            var canonical = input
            canonical.location = String(cString: resolved)
            return canonical
        }
        self.plan = plan
        self.options = options
        self.tools = tools
        self.configuration = configuration
        self.directory = directory
        self.hardware = options.hardwareAcceleration
        (events, eventSink) = AsyncStream.makeStream(of: ConversionEvent.self, bufferingPolicy: .bufferingNewest(256))
    }

    deinit {
        for state in runs.values { state.child?.kill(SIGKILL) }
        subtitleChild?.kill(SIGKILL)
        try? FileManager.default.removeItem(atPath: directory)
        eventSink.finish()
    }

    private func begin(registration: MediaRegistration, server: MediaServer) {
        self.registration = registration
        self.server = server
        if case .hls = plan.delivery {
            let media = source, plan = self.plan, options = self.options, tools = self.tools
            layoutTask = Task { try await Self.layout(for: plan, media: media, options: options, tools: tools) }
            if configuration.startsAtOnce {
                Task { _ = try? await self.ensureScheduler(starting: true) }
            }
        }
        if configuration.startsAtOnce, !plan.textTracks.isEmpty { _ = startSubtitles() }
    }

    /// The segment layout of a plan: key frames for copied video, a regular grid otherwise.
    static func layout(for plan: ConversionPlan, media: ProbedMedia, options: ConversionOptions, tools: FFmpegTools) async throws
        -> SegmentLayout {
        guard let duration = media.duration else {
            throw ConversionError(code: .invalidOptions, message: "a converted stream needs the source's duration (ffprobe gave none)")
        }
        if let video = plan.video, video.action == .copy {
            let keyframes = try await MediaProbe(tools: tools).keyframeTimes(of: media, stream: video.stream.index, input: video.stream.input)
            return try SegmentLayout.keyframes(keyframes, duration: duration, target: options.segmentDuration)
        }
        return try SegmentLayout.regular(duration: duration, target: options.segmentDuration)
    }

    // MARK: What to load

    /// What the device is given: the URL to load, its content type, the source's duration and the text tracks.
    public var media: ConvertedMedia {
        let registration = self.registration
        var segmentContainer: HLSSegmentContainer?
        if case .hls(let format) = plan.delivery { segmentContainer = format }
        let tracks = plan.textTracks.enumerated().map { ordinal, decision in
            let stream = decision.stream
            let language = LanguageTag.bcp47(stream.language)
            return ConvertedMedia.TextTrack(
                url: registration?.url(ofResourceNamed: FFmpegArguments.subtitleName(stream: stream.index)) ?? "",
                streamIndex: stream.index, language: language,
                name: stream.title ?? language ?? "Subtitles \(ordinal + 1)", isDefault: stream.isDefault,
                isForced: stream.isForced)
        }
        return ConvertedMedia(
            url: registration?.url ?? "", contentType: registration?.contentType ?? MediaContentType.fallback,
            duration: source.duration, segmentContainer: segmentContainer, textTracks: tracks, plan: plan)
    }

    /// The temporary directory (removed by ``stop()``).
    public nonisolated var temporaryDirectory: String { directory }

    /// The process ids of the ffmpeg runs alive now (tests check that none is left after ``stop()``).
    public var runningProcesses: [Int32] {
        runs.values.compactMap { $0.child?.exitStatus == nil ? $0.child?.pid : nil }
            + (subtitleChild.flatMap { $0.exitStatus == nil ? [$0.pid] : nil } ?? [])
    }

    // MARK: Serving

    /// Answers a request under the registration: the playlists, segments, initialization sections, text tracks,
    /// or (delivered as it is) the file itself.
    public func resource(named name: String) async throws(MediaServerError) -> ProvidedResource? {
        guard !stopped else { throw MediaServerError(code: .resourceUnavailable, message: "the conversion has stopped") }
        guard let registration else { return nil }
        if case .direct = plan.delivery, name == registration.name {
            return .file(atPath: sourcePath, contentType: registration.contentType)
        }
        if let track = plan.textTracks.first(where: { FFmpegArguments.subtitleName(stream: $0.stream.index) == name }) {
            return try await subtitles(track.stream.index)
        }
        guard case .hls = plan.delivery else { return nil }
        let layout: SegmentLayout
        do {
            layout = try await ensureScheduler(starting: false)
        } catch {
            throw MediaServerError(code: .resourceUnavailable, message: error.message, cause: error)
        }
        let playlists = HLSPlaylists(plan: plan, layout: layout)
        switch name {
        case HLSPlaylists.masterName: return .bytes(Array(playlists.master.utf8), contentType: HLSPlaylists.contentType)
        case HLSPlaylists.mediaName: return .bytes(Array(playlists.media.utf8), contentType: HLSPlaylists.contentType)
        default: break
        }
        guard let resource = playlists.entry(named: name) else { return nil }
        let index: Int
        switch resource {
        case .segment(let segment), .initialization(let segment): index = segment
        }
        configuration.logger.debug(
            "conversion: \(name) requested", metadata: ["ready": "\(scheduler?.isReady(index) ?? false)", "run at": "\(scheduler?.runPosition.map(String.init) ?? "none")"])
        switch await segment(index) {
        case .success:
            switch resource {
            case .segment:
                return .file(atPath: directory + "/" + playlists.segmentName(index), contentType: playlists.format.contentType)
            case .initialization:
                return .file(atPath: directory + "/" + playlists.initializationName(index), contentType: "video/mp4")
            }
        case .failure(let error):
            throw MediaServerError(code: .resourceUnavailable, message: error.message, cause: error)
        }
    }

    /// The layout, making the scheduler (and, with `starting`, the first run) once it is known.
    private func ensureScheduler(starting: Bool) async throws(ConversionError) -> SegmentLayout {
        guard let layoutTask else { throw ConversionError(code: .invalidOptions, message: "not an HLS conversion") }
        let layout: SegmentLayout
        do {
            layout = try await layoutTask.value
        } catch let error as ConversionError {
            throw error
        } catch {
            throw ConversionError(code: .probeFailed, message: "\(error)")
        }
        guard !stopped else { throw ConversionError(code: .stopped, message: "the conversion has stopped") }
        if scheduler == nil {
            scheduler = SegmentScheduler(segmentCount: layout.count, limits: configuration.limits)
            if starting { perform(scheduler!.handle(.start), layout: layout) }
        }
        return layout
    }

    /// Waits until segment `index` is made (or fails, or its wait runs out, or the request is cancelled).
    private func segment(_ index: Int) async -> Result<Void, ConversionError> {
        guard scheduler != nil, let layoutTask, let layout = try? await layoutTask.value else {
            return .failure(ConversionError(code: .stopped, message: "the conversion has stopped"))
        }
        let id = nextWaiter
        nextWaiter += 1
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, ConversionError>, Never>) in
                self.wait(id, for: index, continuation: continuation, layout: layout)
            }
        } onCancel: {
            Task { await self.expire(id) }
        }
    }

    private func wait(
        _ id: SegmentScheduler.WaiterID, for index: Int, continuation: CheckedContinuation<Result<Void, ConversionError>, Never>,
        layout: SegmentLayout
    ) {
        guard var scheduler, !stopped else {
            continuation.resume(returning: .failure(ConversionError(code: .stopped, message: "the conversion has stopped")))
            return
        }
        waiters[id] = continuation
        let actions = scheduler.handle(.requested(segment: index, waiter: id))
        self.scheduler = scheduler
        perform(actions, layout: layout)
        if waiters[id] != nil {
            let timeout = configuration.segmentTimeout
            waiterTimers[id] = Task {
                try? await Task.sleep(for: timeout)
                if !Task.isCancelled { self.expire(id) }
            }
        }
    }

    private func expire(_ id: SegmentScheduler.WaiterID) {
        guard waiters[id] != nil, var scheduler, let layout = currentLayout else { return }
        let actions = scheduler.handle(.waitExpired(waiter: id))
        self.scheduler = scheduler
        perform(actions, layout: layout)
    }

    private var currentLayout: SegmentLayout?

    // MARK: Carrying out the scheduler's actions

    private func perform(_ actions: [SegmentScheduler.Action], layout: SegmentLayout) {
        currentLayout = layout
        for action in actions {
            switch action {
            case .startRun(let id, let segment):
                runs[id] = RunState(start: segment)
                eventSink.yield(.runStarted(segment: segment, restart: madeOne || segment > 0))
                runs[id]?.launcher = Task { await self.launch(id, from: segment, layout: layout) }
            case .stopRun(let id):
                runs[id]?.stopping = true
                runs[id]?.launcher?.cancel()
                if let child = runs[id]?.child {
                    child.kill(SIGKILL)  // its launcher reaps it and gives its slot back
                } else {
                    runs[id] = nil  // not started: its launcher finds nothing to start
                }
            case .pauseRun(let id):
                runs[id]?.child?.kill(SIGSTOP)
                configuration.logger.debug("conversion: ffmpeg paused", metadata: ["pid": "\(runs[id]?.child?.pid ?? 0)"])
                eventSink.yield(.paused(true))
            case .resumeRun(let id):
                runs[id]?.child?.kill(SIGCONT)
                configuration.logger.debug("conversion: ffmpeg resumed", metadata: ["pid": "\(runs[id]?.child?.pid ?? 0)"])
                eventSink.yield(.paused(false))
            case .serve(let waiter, _):
                finishWaiter(waiter, .success(()))
            case .fail(let waiter, _, let message):
                finishWaiter(waiter, .failure(ConversionError(code: stopped ? .stopped : .toolFailed, message: message)))
            case .evict(let segment):
                let playlists = HLSPlaylists(plan: plan, layout: layout)
                unlink(directory + "/" + playlists.segmentName(segment))
                unlink(directory + "/" + playlists.initializationName(segment))
            }
        }
    }

    private func finishWaiter(_ id: SegmentScheduler.WaiterID, _ result: Result<Void, ConversionError>) {
        waiterTimers.removeValue(forKey: id)?.cancel()
        waiters.removeValue(forKey: id)?.resume(returning: result)
    }

    private func launch(_ id: SegmentScheduler.RunID, from segment: Int, layout: SegmentLayout) async {
        let limiter = configuration.limiter
        guard await limiter.acquire() else { return }
        guard let state = runs[id], !state.stopping, !stopped else {
            await limiter.release()
            return
        }
        let arguments = FFmpegArguments(
            plan: plan, layout: layout, inputs: inputs, options: options,
            sourceHasReorderedFrames: plan.video?.stream.hasReorderedFrames ?? false)
        let commandLine = arguments.segmentRun(from: segment, directory: directory, hardware: hardware)
        let (lines, linesSink) = AsyncStream.makeStream(of: String.self)
        let events = eventSink
        let progress = ProgressRelay(events: events)
        let child: ChildRun
        do {
            child = try ChildRun.start(
                tools.ffmpeg, commandLine, output: .lines { linesSink.yield($0) }, progress: { progress.read($0) })
        } catch {
            linesSink.finish()
            await limiter.release()
            let message = error.code == .toolMissing ? FFmpegTools.missing("ffmpeg").message : error.message
            runEnded(id, succeeded: false, message: message)
            return
        }
        runs[id]?.child = child
        configuration.logger.debug("conversion: ffmpeg started", metadata: ["segment": "\(segment)", "pid": "\(child.pid)"])
        let reader = Task {
            for await line in lines { self.segmentLine(line, run: id, layout: layout) }
        }
        let exit = await child.exit()
        linesSink.finish()
        await reader.value
        await limiter.release()
        let wasStopping = runs[id]?.stopping ?? true
        let produced = runs[id]?.produced ?? 0
        runs[id] = nil
        guard !wasStopping, !stopped else { return }
        if !exit.succeeded, produced == 0, case .vaapi = hardware {
            configuration.logger.notice("VAAPI encoding failed; falling back to libx264", metadata: ["error": "\(child.lastErrorLine)"])
            hardware = .none
        }
        runEnded(id, succeeded: exit.succeeded, message: child.lastErrorLine.nonEmpty ?? exit.description)
    }

    private func runEnded(_ id: SegmentScheduler.RunID, succeeded: Bool, message: String) {
        guard var scheduler, let layout = currentLayout else { return }
        if !succeeded { eventSink.yield(.runFailed(message)) }
        let actions = scheduler.handle(.runEnded(run: id, succeeded: succeeded, message: message))
        self.scheduler = scheduler
        perform(actions, layout: layout)
    }

    /// A line of the segment list (`segment-3.ts,12.000000,15.000000`): the segment is finished.
    private func segmentLine(_ line: String, run id: SegmentScheduler.RunID, layout: SegmentLayout) {
        guard !stopped, runs[id]?.stopping == false, var scheduler else { return }
        let name = line.split(separator: ",", maxSplits: 1).first.map(String.init) ?? ""
        let base = (name as NSString).lastPathComponent
        let playlists = HLSPlaylists(plan: plan, layout: layout)
        guard base.hasPrefix("segment-"), let number = Int(base.dropFirst(8).prefix { $0.isNumber }), number < layout.count else {
            return
        }
        let written = directory + "/" + FFmpegArguments.outputName(segment: number, format: playlists.format)
        var bytes = 0
        if playlists.format == .fmp4 {
            guard let size = Self.split(written, initialization: directory + "/" + playlists.initializationName(number),
                                        media: directory + "/" + playlists.segmentName(number)) else {
                configuration.logger.warning("segment is not fragmented MP4", metadata: ["segment": "\(number)"])
                return
            }
            bytes = size
        } else {
            var info = stat()
            if stat(written, &info) == 0 { bytes = Int(info.st_size) }
        }
        runs[id]?.produced += 1
        madeOne = true
        let actions = scheduler.handle(.produced(run: id, segment: number, bytes: bytes))
        self.scheduler = scheduler
        eventSink.yield(.segmentReady(number, of: layout.count, endTime: layout.end(of: number)))
        perform(actions, layout: layout)
    }

    /// Splits ffmpeg's self-initializing segment into its initialization section and its media; returns the
    /// bytes kept, or `nil` when the file is not fragmented MP4.
    static func split(_ path: String, initialization: String, media: String) -> Int? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let prefix = [UInt8]((try? handle.read(upToCount: 1 << 20)) ?? Data())
        guard let length = FragmentedMP4.initializationLength(prefix) else { return nil }
        do {
            try Data(prefix[..<length]).write(to: URL(fileURLWithPath: initialization))
            try handle.seek(toOffset: UInt64(length))
            _ = FileManager.default.createFile(atPath: media, contents: nil)
            guard let output = FileHandle(forWritingAtPath: media) else { return nil }
            defer { try? output.close() }
            var total = length
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                try output.write(contentsOf: chunk)
                total += chunk.count
            }
            unlink(path)
            return total
        } catch {
            return nil
        }
    }

    // MARK: Subtitles

    private func startSubtitles() -> Task<Result<Void, ConversionError>, Never> {
        if let subtitleTask { return subtitleTask }
        let task = Task { await self.extractSubtitles() }
        subtitleTask = task
        return task
    }

    private func subtitles(_ stream: Int) async throws(MediaServerError) -> ProvidedResource {
        switch await startSubtitles().value {
        case .success:
            let path = directory + "/" + FFmpegArguments.subtitleName(stream: stream)
            var info = stat()
            guard stat(path, &info) == 0 else {
                throw MediaServerError(code: .resourceUnavailable, message: "subtitle stream \(stream) was not extracted")
            }
            guard Int(info.st_size) <= configuration.maximumSubtitleBytes else {
                throw MediaServerError(code: .resourceUnavailable, message: "subtitle stream \(stream) is larger than \(configuration.maximumSubtitleBytes) bytes")
            }
            return .file(atPath: path, contentType: "text/vtt")
        case .failure(let error):
            throw MediaServerError(code: .resourceUnavailable, message: error.message, cause: error)
        }
    }

    private func extractSubtitles() async -> Result<Void, ConversionError> {
        let streams = plan.textTracks.map(\.stream.index)
        let limiter = configuration.limiter
        guard await limiter.acquire() else { return .failure(ConversionError(code: .stopped, message: "the conversion has stopped")) }
        defer { Task { await limiter.release() } }
        guard !stopped else { return .failure(ConversionError(code: .stopped, message: "the conversion has stopped")) }
        let arguments = FFmpegArguments(
            plan: plan, layout: SegmentLayout(starts: [0], duration: source.duration ?? 1), inputs: inputs, options: options,
            sourceHasReorderedFrames: false
        ).subtitleExtraction(streams: streams, directory: directory)
        let child: ChildRun
        do {
            child = try ChildRun.start(tools.ffmpeg, arguments)
        } catch {
            return .failure(ConversionError(error, tool: "ffmpeg"))
        }
        subtitleChild = child
        let timeout = configuration.subtitleTimeout
        guard let exit = await child.exit(within: timeout) else {
            return .failure(ConversionError(code: .timedOut, message: "extracting the subtitles took longer than \(timeout)"))
        }
        guard exit.succeeded else {
            return .failure(ConversionError(code: .toolFailed, message: "ffmpeg could not extract the subtitles: \(child.lastErrorLine.nonEmpty ?? exit.description)"))
        }
        eventSink.yield(.subtitlesReady(count: streams.count))
        return .success(())
    }

    // MARK: Stopping

    /// Stops every ffmpeg run (and waits for it to end), fails the requests waiting, unpublishes the media and
    /// removes the temporary files. Safe to call more than once.
    public func stop() async {
        guard !stopped else { return }
        stopped = true
        if var scheduler, let layout = currentLayout {
            let actions = scheduler.handle(.stop)
            self.scheduler = scheduler
            perform(actions, layout: layout)
        }
        for (id, continuation) in waiters {
            waiterTimers.removeValue(forKey: id)?.cancel()
            continuation.resume(returning: .failure(ConversionError(code: .stopped, message: "the conversion has stopped")))
        }
        waiters = [:]
        layoutTask?.cancel()
        let children = runs.values.compactMap(\.child) + (subtitleChild.map { [$0] } ?? [])
        for state in runs.values { state.launcher?.cancel() }
        for child in children { await child.stop() }
        if let registration { server?.unregister(registration) }
        try? FileManager.default.removeItem(atPath: directory)
        eventSink.finish()
    }

    static func contentType(ofFile path: String) -> String {
        if let type = MediaContentType.forFileName(path) { return type }
        guard let handle = FileHandle(forReadingAtPath: path) else { return MediaContentType.fallback }
        defer { try? handle.close() }
        let bytes = [UInt8]((try? handle.read(upToCount: MediaContentType.sniffLength)) ?? Data())
        return MediaContentType.sniff(bytes) ?? MediaContentType.fallback
    }
}

/// Turns ffmpeg's `-progress` lines into ``ConversionEvent/progress(outputTime:speed:)`` events (at most one per
/// block ffmpeg writes, every half second).
final class ProgressRelay: Sendable {
    private let events: AsyncStream<ConversionEvent>.Continuation
    private let reader = Mutex(FFmpegProgress.Reader())

    init(events: AsyncStream<ConversionEvent>.Continuation) { self.events = events }

    func read(_ line: String) {
        guard let block = reader.withLock({ $0.read(line) }), let time = block.outputTime else { return }
        events.yield(.progress(outputTime: time, speed: block.speed))
    }
}

