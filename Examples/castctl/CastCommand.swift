import ArgumentParser
import CastChannels
import CastConversion
import CastDeviceProfiles
import CastJSON
import CastMedia
import CastMediaServer
import CastMediaMetadata
import CastQueue
import Castor
import CastctlKit
import Dispatch
import Foundation
import Synchronization

/// `castctl cast`: play local files (or URLs) on a device, serving the files over HTTP meanwhile.
struct Cast: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cast a local file, directory or playlist (.m3u/.pls), or a URL.",
        discussion: """
            Local files are served over HTTP from this machine, on the address that reaches the device, under \
            unguessable URLs, with byte ranges and CORS. Subtitles next to a video (movie.srt, movie.en.vtt) are \
            found and offered as text tracks; SRT is converted to WebVTT. A directory or playlist becomes a queue. \
            castctl keeps serving until playback ends or you press Ctrl-C (which stops the media).

            What plays: each local file is probed with ffprobe and planned for the device's media profile (its model, \
            or --device-profile). Streams the device decodes are copied; the others are converted by ffmpeg: video \
            the device cannot decode (HEVC on a Chromecast before the Ultra, a level or size beyond it) becomes H.264 \
            within its level and size, audio it cannot decode (AC-3 or DTS without an HDMI sink that takes them) \
            becomes AAC. A file that needs nothing converted and is in a container of Google's table is served as it \
            is; otherwise castctl serves an HLS stream whose segments ffmpeg makes as the device asks for them, so \
            the device knows the whole duration and a seek restarts ffmpeg where it is needed. Embedded text \
            subtitles (SubRip, ASS/SSA, mov_text, WebVTT) become WebVTT text tracks with their language and title; \
            image subtitles (PGS, DVB, VobSub) can only be burnt in (--burn-subtitles N). castctl prints the plan, \
            stream by stream with the reason, and the conversion's progress, on standard error. ffmpeg runs in its \
            own process group and dies with castctl (Ctrl-C, the media stopped, the device lost, or castctl killed); \
            its temporary files are removed. Without ffmpeg (apt-get install ffmpeg) files are served as they are.

            A web page (a video site's watch page, a page with a <video>) is resolved with yt-dlp when it is \
            installed (apt-get install yt-dlp or pip install yt-dlp): castctl sends the URL a HEAD request, and when \
            the answer is HTML it runs yt-dlp -J (within --resolve-timeout) and picks the format the device plays \
            from its profile: a format with both video and audio, in a container and codecs the device decodes, \
            at the highest resolution it takes. The subtitles yt-dlp lists in WebVTT become text tracks (the first \
            is turned on unless --subtitles-off); a playlist becomes a queue (its first 50 entries). --format \
            passes a yt-dlp format (yt-dlp -F URL lists them; 137+140 is a video and an audio format) instead. A \
            single format is fetched by the device itself, without the cookies or headers some sites require. A \
            page that offers its video and audio only separately (DASH, video-only and audio-only formats) goes \
            through the same conversion as a local file: castctl picks the best pair (formats the device decodes \
            first), ffprobe and ffmpeg read both over HTTP with yt-dlp's request headers, and castctl serves them \
            merged as HLS made on demand, copying what the device decodes and converting the rest (this needs \
            ffmpeg). A format the device cannot decode, with no such pair, is converted the same way. A page with \
            no video, or only formats neither the device nor ffmpeg can fetch, fails.

            When the device is lost (heartbeat timeout, reset, closed), castctl reconnects with back-off for \
            --reconnect-timeout seconds: it rejoins the app if it still runs, re-launches it and reloads what was \
            playing, at the position extrapolated to the loss, if the device restarted, and stops if another sender \
            took the device over. The file server keeps running meanwhile, so the URLs stay valid.

            \(SessionExit.help)
            """)

    @OptionGroup var device: DeviceOptions
    @OptionGroup var reconnect: ReconnectOptions
    @OptionGroup(title: "What the device can play") var conversion: ConversionCommandOptions
    @Argument(help: "A media file, a directory, an .m3u/.m3u8/.pls playlist, or an http(s) URL.") var source: String
    @Option(help: "A subtitle file (.srt or .vtt) for the first item.") var subtitles: String?
    @Option(help: ArgumentHelp(
        "For a web page: the yt-dlp format to play (yt-dlp's -f, e.g. 18, 137+140 or \"best[height<=720]\").",
        valueName: "format"))
    var format: String?
    @Option(help: "For a web page: how long yt-dlp may take to resolve it, in seconds.") var resolveTimeout: Double = 120
    @Option(help: "The address to serve files on; by default the local address that reaches the device.") var serveHost: String?
    @Option(help: "The port to serve files on (0 picks a free one).") var servePort = 0
    @Flag(help: "Don't turn the first subtitle track on.") var subtitlesOff = false
    @Flag(help: ArgumentHelp(
        "Read commands from standard input, one a line, while casting: \(ControlInput.help).",
        discussion: """
            Each command is awaited and answered with a line (a JSON object {"event":"command",...} with --json): \
            done, or failed with its error code (connectionLost when the device is away or the connection dropped \
            while the command was in flight). A failed command is never re-sent.
            """))
    var control = false

    func run() async throws {
        try await Output.run {
            let server: MediaServer
            // Where the device is (discovered once with --device): the server's route, and eureka_info's host.
            let target = CastPlan.isURL(source) && serveHost != nil ? nil : try await device.target()
            if let serveHost {
                server = try await MediaServer.start(.init(host: serveHost, port: servePort))
            } else if let target {
                server = try await MediaServer.start(reaching: target.host, receiverPort: target.port, port: servePort)
            } else {
                throw ValidationError("no device to serve to")
            }
            // The server and the conversions keep running across a lost connection, so the URLs stay valid for a
            // resume; both are stopped on every way out (ffmpeg killed and waited for, temporary files removed).
            let conversions = CastConversions()
            do {
                try await play(server: server, conversions: conversions, deviceHost: target?.host)
            } catch {
                await conversions.stopAll()
                await server.shutdown()
                throw error
            }
            await conversions.stopAll()
            await server.shutdown()
        }
    }

    private func play(server: MediaServer, conversions: CastConversions, deviceHost: String?) async throws {
        let resolved = try await resolvePage(deviceHost: deviceHost)
        // A page's separate video and audio are merged by a conversion, as a local file's streams are converted.
        let context = try await conversionContext(
            conversions: conversions, deviceHost: deviceHost, forPage: !(resolved?.conversionInputs.isEmpty ?? true))
        let items: [QueueItem]
        if let resolved {
            items = try await CastPlan.items(resolved, subtitles: subtitles, server: server, conversion: context)
        } else {
            items = try await CastPlan.items(for: source, subtitles: subtitles, server: server, conversion: context)
        }
        guard !items.isEmpty else { throw ValidationError("\(source) holds no playable media") }
        if !device.json {
            print("castctl: serving on \(server.baseURL) — \(items.count) item(s)")
            for item in items { print("  \(item.media?.metadata?.title ?? item.media?.contentId ?? "?")  \(item.media?.contentId ?? "")") }
            fflush(nil)
        }
        let started = StartFlag()
        let progress = await conversions.all.first.map { first in
            ConversionProgressPrinter.follow(first, name: (first.source.path.map { ($0 as NSString).lastPathComponent }) ?? source) {
                started.isSet
            }
        }
        defer { progress?.cancel() }
        let interrupted = SignalFlag()
        let (cast, target) = try await device.façade(reconnect: reconnect)
        let events = cast.events
        try await cast.startSession(with: target)
        guard let player = cast.player else { throw CastError(code: .noSession, message: "The session ended while starting") }
        let firstTracks = items.first?.media?.tracks ?? []
        var options = CastLoadOptions()
        // A converted item names its own track to turn on (an embedded default or forced one, else a file beside it).
        if !subtitlesOff, let first = items.first?.activeTrackIds ?? firstTracks.first.map({ [$0.trackId] }) {
            options.activeTrackIds = first
        }
        do {
            try await player.loadItems(from: items.compactMap { $0.media }.map(CastAsset.init(media:)), with: options)
        } catch {
            guard let media = error.cause as? CastMediaError, media.code == .loadFailed else { throw error }
            started.set()
            await cast.endSession()
            let detail = media.detailedErrorCode.map { " \($0.rawValue) \($0.name ?? "")" } ?? ""
            throw await refusal("the device refused the media (LOAD_FAILED\(detail))", conversions: conversions)
        }
        started.set()
        Output.print(player.mediaStatus, json: device.json)
        fflush(nil)  // castctl keeps running: show the status now, also through a pipe
        let baseline = player.mediaStatus?.mediaSessionId
        let ended = Task { [json = device.json] () -> (SessionExit, String)? in
            var narrator = SessionNarrator(json: json, baseline: baseline)
            for await event in events {
                if case .exit(let status, let message) = narrator.handle(event, player: cast.player) { return (status, message) }
            }
            return nil
        }
        let controller = control ? Task { await ControlInput.run(ControlInput.lines(), on: cast, json: device.json) } : nil
        defer { controller?.cancel() }
        // Cancelling the waiter (on Ctrl-C) cancels the follower, so neither outlives the wait.
        let outcome = await interrupted.wait(orUntil: Task {
            await withTaskCancellationHandler { await ended.value != nil } onCancel: { ended.cancel() }
        })
        if outcome == .interrupted {
            var stopped: MediaStatus?
            if let player = cast.player {
                try? await player.stop()
                stopped = player.mediaStatus
            }
            await cast.endSession()
            if !device.json { print("castctl: interrupted; stopped the media") }
            Output.print(stopped, json: device.json)
            return
        }
        let (status, message) = await ended.value ?? (.lost, "the session's events ended")
        if status == .finished {
            await cast.endSession()
            if !device.json { print("castctl: \(message)") }
            return
        }
        await cast.endSession()
        if status == .mediaError { throw await refusal(message, conversions: conversions) }
        FileHandle.standardError.write(Data("castctl: \(message)\n".utf8))
        throw ExitCode(status.rawValue)
    }

    /// Exit 5 with what the device said and, when castctl probed the file, what in it the device cannot decode.
    private func refusal(_ message: String, conversions: CastConversions) async -> ExitCode {
        let reasons = await conversions.refusals
        var line = "castctl: \(message)"
        if !reasons.isEmpty {
            line += ": " + reasons.joined(separator: "; ")
            if conversion.transcode == .never { line += " (--transcode auto converts it)" }
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
        return ExitCode(SessionExit.mediaError.rawValue)
    }

    /// What a web page plays (through ``MediaURLResolvers/standard``: yt-dlp), or `nil` for a file or a media URL.
    private func resolvePage(deviceHost: String?) async throws -> MediaURLResolution? {
        guard CastPlan.isURL(source), let url = URL(string: source) else { return nil }
        let host = deviceHost ?? serveHost ?? "127.0.0.1"
        let json = device.json
        let started = ContinuousClock.now
        // The profile decides the format; it is looked up only for a page, so a media URL costs no request to the device.
        let lookup = ProfileOnce { await DeviceProfileLookup.resolve(conversion, device: device, host: host) }
        let progress: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data("castctl: \(line)\n".utf8)) }
        let context = MediaURLContext(
            timeout: .seconds(resolveTimeout), format: format,
            profile: {
                let (profile, why) = await lookup.value()
                if !json { progress("choosing a format for \(profile) from \(why)") }
                return profile
            },
            progress: progress)
        let resolution = try await MediaURLResolvers.resolve(url, in: context)
        if let resolution, !json {
            let seconds = Double((ContinuousClock.now - started).components.seconds)
            FileHandle.standardError.write(Data("castctl: resolved \(source) to \(resolution.assets.count) item(s) in \(Int(seconds)) s\n".utf8))
        }
        return resolution
    }

    /// ffmpeg, the device's profile and the options, or `nil` when files are served as they are (no ffmpeg) or the
    /// source is a URL; `forPage`: a page's separate video and audio need it (without ffmpeg castctl fails).
    private func conversionContext(conversions: CastConversions, deviceHost: String?, forPage: Bool = false) async throws -> ConversionContext? {
        guard forPage || !CastPlan.isURL(source) else { return nil }
        let tools: FFmpegTools
        do {
            tools = try FFmpegTools.locate()
        } catch {
            if forPage {
                FileHandle.standardError.write(Data("castctl: \(error.message) (the page's video and audio come separately and are merged by ffmpeg)\n".utf8))
                throw ExitCode.failure
            }
            if conversion.transcode == .always {
                FileHandle.standardError.write(Data("castctl: \(error.message)\n".utf8))
                throw ExitCode.failure
            }
            FileHandle.standardError.write(Data("castctl: \(error.message); serving files as they are\n".utf8))
            return nil
        }
        let host = deviceHost ?? serveHost ?? "127.0.0.1"
        let (profile, why) = await DeviceProfileLookup.resolve(conversion, device: device, host: host)
        if !device.json { FileHandle.standardError.write(Data("castctl: planning for \(profile) from \(why)\n".utf8)) }
        return ConversionContext(tools: tools, profile: profile, options: conversion.conversionOptions, conversions: conversions,
                                 json: device.json)
    }
}

/// What ``CastPlan`` needs to probe, plan and convert local files.
struct ConversionContext {
    var tools: FFmpegTools
    var profile: CastDeviceProfile
    var options: ConversionOptions
    var conversions: CastConversions
    var json: Bool
}

/// Set once the media is loaded (progress lines stop then).
final class StartFlag: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
}

/// Looks the device's profile up once, when a resolver first needs it.
actor ProfileOnce {
    private let lookup: @Sendable () async -> (CastDeviceProfile, String)
    private var result: (CastDeviceProfile, String)?

    init(_ lookup: @escaping @Sendable () async -> (CastDeviceProfile, String)) { self.lookup = lookup }

    func value() async -> (CastDeviceProfile, String) {
        if let result { return result }
        let found = await lookup()
        result = found
        return found
    }
}

/// Turns a source into queue items, publishing local files on the media server.
enum CastPlan {
    /// The queue items of a resolved page; `--subtitles` adds a track to the first.
    /// The queue items of a resolved page: each asset as it is, or, for one with conversion inputs (separate video and
    /// audio), published through a conversion (`conversion` is then required).
    static func items(_ resolution: MediaURLResolution, subtitles: String?, server: MediaServer, conversion: ConversionContext?) async throws
        -> [QueueItem] {
        var media = resolution.assets.map(\.mediaInformation)
        if let subtitles, !media.isEmpty {
            let registration = try server.register(subtitles: subtitles)
            var tracks = media[0].tracks ?? []
            tracks.append(MediaTrack(trackId: (tracks.map(\.trackId).max() ?? 0) + 1, type: .text, subtype: .subtitles,
                                     contentId: registration.url, contentType: "text/vtt", name: "Subtitles", language: "und"))
            media[0].tracks = tracks
        }
        var items: [QueueItem] = []
        for (index, information) in media.enumerated() {
            guard let inputs = resolution.conversionInputs[index] else {
                items.append(QueueItemBuilder(media: information).build())
                continue
            }
            guard let conversion else { throw ValidationError("the page's separate video and audio need ffmpeg") }
            items.append(try await ConvertedItems.item(
                inputs: inputs, base: information, profile: conversion.profile, options: conversion.options, tools: conversion.tools,
                server: server, conversions: conversion.conversions, startsAtOnce: index == 0, json: conversion.json))
        }
        return items
    }

    static func items(for source: String, subtitles: String?, server: MediaServer, conversion: ConversionContext? = nil) async throws
        -> [QueueItem] {
        if isURL(source) {
            var media = try LoadOptions.parse([]).media(url: source)
            if let subtitles {
                let registration = try server.register(subtitles: subtitles)
                media.tracks = [MediaTrack(trackId: 1, type: .text, subtype: .subtitles, contentId: registration.url,
                                           contentType: "text/vtt", name: "Subtitles", language: "und")]
            }
            return [QueueItemBuilder(media: media).build()]
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) else {
            throw ValidationError("\(source): no such file or directory")
        }
        let lower = source.lowercased()
        let isPlaylist = isDirectory.boolValue || [".m3u", ".m3u8", ".pls"].contains { lower.hasSuffix($0) }
        let entries: [PlaylistEntry] = isPlaylist ? try Playlist.entries(at: source) : [PlaylistEntry(location: .file(source))]
        var items: [QueueItem] = []
        for (index, entry) in entries.enumerated() {
            switch entry.location {
            case .url(let url):
                var media = try LoadOptions.parse([]).media(url: url)
                if let title = entry.title { media.metadata?.title = title }
                items.append(QueueItemBuilder(media: media).build())
            case .file(let path):
                if let conversion, let item = try await ConvertedItems.item(
                    path: path, title: entry.title, extraSubtitles: index == 0 ? (subtitles.map { [$0] } ?? []) : [],
                    profile: conversion.profile, options: conversion.options, tools: conversion.tools, server: server,
                    conversions: conversion.conversions, startsAtOnce: index == 0, json: conversion.json) {
                    items.append(item)
                    continue
                }
                let published = try server.publish(mediaAt: path, extraSubtitles: index == 0 ? (subtitles.map { [$0] } ?? []) : [])
                var metadata = CastMetadata(title: entry.title ?? published.title, metadataType: .generic, images: [])
                metadata.subtitle = (path as NSString).lastPathComponent
                let tracks = published.subtitles.enumerated().map { offset, subtitle in
                    MediaTrack(trackId: offset + 1, type: .text, subtype: .subtitles, contentId: subtitle.registration.url,
                               contentType: "text/vtt", name: subtitle.label ?? subtitle.language ?? "Subtitles",
                               language: subtitle.language ?? "und")
                }
                let media = MediaInformation(
                    contentId: published.media.url, contentType: published.media.contentType, streamType: .buffered,
                    duration: entry.durationSeconds, metadata: metadata, tracks: tracks.isEmpty ? nil : tracks)
                items.append(QueueItemBuilder(media: media).build())
            }
        }
        return items
    }

    static func isURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }
}

/// SIGINT/SIGTERM as an awaitable event.
///
/// `@unchecked Sendable`: `sources` is written once in `init` and only kept alive afterwards.
final class SignalFlag: @unchecked Sendable {
    enum Outcome: Sendable { case interrupted, ended }

    private let sources: [any DispatchSourceSignal]
    private let stream: AsyncStream<Void>

    init() {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        self.stream = stream
        sources = [SIGINT, SIGTERM].map { signalNumber in
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            return source
        }
    }

    /// Waits for a signal or for `task` to finish with `true`.
    func wait(orUntil task: Task<Bool, Never>) async -> Outcome {
        await withTaskGroup(of: Outcome?.self) { group in
            group.addTask { [stream] in
                for await _ in stream { return .interrupted }
                return nil
            }
            group.addTask { await task.value ? .ended : nil }
            var outcome = Outcome.ended
            for await result in group {
                if let result {
                    outcome = result
                    break
                }
            }
            group.cancelAll()
            task.cancel()
            return outcome
        }
    }
}
