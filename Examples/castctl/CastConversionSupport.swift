import ArgumentParser
import CastConversion
import CastDeviceProfiles
import CastDiscoveryCore
import CastHTTP
import CastJSON
import CastMedia
import CastMediaServer
import CastMediaMetadata
import CastQueue
import Foundation

/// `castctl cast`'s options for what the device can play.
struct ConversionCommandOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "auto, always or never.",
        discussion: """
            auto (the default) probes each local file with ffprobe and plans it for the device: every stream the \
            device decodes is copied, the others are converted (video to H.264 within the device's level, size and \
            rate; audio to AAC), and the result is served as an HLS stream whose segments ffmpeg makes on demand, so \
            seeking works and the device is told the source's duration. A file the device plays whole is served as \
            it is; Matroska is remuxed (copied into segments), since Google's table lists only WebM. always converts \
            video and audio even when the device plays them; never loads the file as it is and, when the device \
            refuses it, exits 5 naming the codec.
            """))
    var transcode: TranscodePolicy = .auto

    @Option(help: ArgumentHelp(
        "The device's media profile: \(CastDeviceProfile.presets.map(\.id).joined(separator: ", ")).",
        discussion: """
            By default it comes from the model the device names in eureka_info (port 8008), else in mDNS (md, with \
            --device); an unknown model is planned as chromecast-1, the most limited video device.
            """))
    var deviceProfile: String?

    @Option(help: ArgumentHelp(
        "Burn the subtitle stream with this index (as ffprobe numbers streams) into the picture.",
        discussion: "The only way to show image subtitles (PGS, DVB, VobSub); the video is then converted."))
    var burnSubtitles: Int?

    @Option(help: "The audio stream to play (as ffprobe numbers streams); by default the one marked default, else the first.")
    var audioStream: Int?

    @Flag(help: "The TV or receiver behind the device decodes AC-3 and E-AC-3, so they are passed through, not converted.")
    var hdmiPassthrough = false

    @Option(help: "Hardware video encoding: auto (VAAPI when a render node is there, else software) or none.")
    var hardware: String = "auto"

    func validate() throws {
        if let deviceProfile, CastDeviceProfile.preset(named: deviceProfile) == nil {
            throw ValidationError(
                "--device-profile \(deviceProfile): no such profile (\(CastDeviceProfile.presets.map(\.id).joined(separator: ", ")))")
        }
        if let burnSubtitles, burnSubtitles < 0 { throw ValidationError("--burn-subtitles takes a stream index, 0 or more") }
        guard ["auto", "none"].contains(hardware) else { throw ValidationError("--hardware must be auto or none") }
        if transcode == .never, burnSubtitles != nil {
            throw ValidationError("--burn-subtitles converts the video; it cannot go with --transcode never")
        }
    }

    var conversionOptions: ConversionOptions {
        ConversionOptions(
            policy: transcode, hdmiPassthrough: hdmiPassthrough, burnSubtitleStream: burnSubtitles, audioStream: audioStream,
            hardwareAcceleration: hardware == "auto" ? .automatic() : .none)
    }
}

extension TranscodePolicy: ExpressibleByArgument {}

/// Which profile a device gets: `--device-profile`, else its advertised model, else the safest.
enum DeviceProfileLookup {
    /// The profile and where it came from (`from --device-profile`, `model "Chromecast Ultra" (eureka_info)`).
    static func resolve(_ options: ConversionCommandOptions, device: DeviceOptions, host: String) async -> (CastDeviceProfile, String) {
        if let name = options.deviceProfile, let profile = CastDeviceProfile.preset(named: name) {
            return (profile, "--device-profile")
        }
        // eureka_info first: one HTTP request to the device, answered in milliseconds; mDNS only when it says nothing.
        var model = await eurekaModel(host: host)
        var source = "eureka_info"
        if model == nil, let name = device.device {
            let report = await DeviceResolver.discover(timeout: .seconds(min(device.timeout, 2)))
            let wanted = try? CastDeviceID(parsing: name)
            model = report.devices.first {
                (wanted != nil && $0.id == wanted) || $0.friendlyName.caseInsensitiveCompare(name) == .orderedSame
            }?.model
            source = "mDNS md"
        }
        guard let model else { return (.chromecast1, "the model is unknown; chromecast-1 is the safest") }
        guard let profile = CastDeviceProfile.preset(forModel: model) else {
            return (.chromecast1, "model \"\(model)\" (\(source)) is not in the table; chromecast-1 is the safest")
        }
        return (profile, "model \"\(model)\" (\(source))")
    }

    /// The `model_name` of `http://host:8008/setup/eureka_info`, when the device answers within two seconds.
    static func eurekaModel(host: String) async -> String? {
        let authority = host.contains(":") ? "[\(host)]" : host
        let url = "http://\(authority):8008/setup/eureka_info?params=device_info,name"
        guard let reply = try? await BoundedHTTPClient.simpleGet(url, limit: 64 * 1024, timeout: .seconds(2)), reply.status == 200,
              let json = try? JSONValue(parsing: Data(reply.body))
        else { return nil }
        return json["device_info"]?["model_name"]?.stringValue ?? json["model_name"]?.stringValue
    }
}

/// The conversions of one `castctl cast`, stopped together.
actor CastConversions {
    private(set) var all: [MediaConversion] = []
    private var stopped = false

    func add(_ conversion: MediaConversion) async {
        if stopped {
            await conversion.stop()
        } else {
            all.append(conversion)
        }
    }

    /// Stops every conversion: its ffmpeg is killed and waited for, its temporary files removed.
    func stopAll() async {
        stopped = true
        for conversion in all { await conversion.stop() }
    }

    /// What the device refuses of the sources as they are, for the exit-5 message.
    var refusals: [String] {
        Array(all.flatMap(\.plan.refusals).reduce(into: [String]()) { result, reason in
            if !result.contains(reason) { result.append(reason) }
        })
    }
}

/// Local files planned for the device and published through conversions.
enum ConvertedItems {
    /// A queue item for a local file: probed, planned for `profile`, published (as it is, or as HLS made on demand),
    /// with its embedded text subtitles and the subtitle files beside it as WebVTT tracks; `nil` for a file
    /// ffprobe cannot read (unless --transcode always), which is then served as it is.
    static func item(
        path: String, title: String?, extraSubtitles: [String], profile: CastDeviceProfile, options: ConversionOptions,
        tools: FFmpegTools, server: MediaServer, conversions: CastConversions, startsAtOnce: Bool, json: Bool
    ) async throws -> QueueItem? {
        let probed = await probe(path, tools: tools)
        let media: ProbedMedia
        switch probed {
        case .success(let result):
            media = result
        case .failure(let error) where options.policy != .always && [.probeFailed, .malformedProbe].contains(error.code):
            // Not media ffprobe reads: the device may still know it; it is served as it is.
            FileHandle.standardError.write(Data("castctl: \(error.message); serving it as it is\n".utf8))
            return nil
        case .failure(let error):
            throw error
        }
        let (plan, converted) = try await publish(
            media, profile: profile, options: options, tools: tools, server: server, conversions: conversions, startsAtOnce: startsAtOnce,
            json: json)
        var tracks = converted.textTracks.enumerated().map { offset, track in
            MediaTrack(trackId: offset + 1, type: .text, subtype: .subtitles, contentId: track.url, contentType: "text/vtt",
                       name: track.name, language: track.language ?? "und")
        }
        for subtitle in sidecarSubtitles(for: path, extra: extraSubtitles, server: server) {
            tracks.append(MediaTrack(trackId: tracks.count + 1, type: .text, subtype: .subtitles,
                                     contentId: subtitle.registration.url, contentType: "text/vtt",
                                     name: subtitle.label ?? subtitle.language ?? "Subtitles", language: subtitle.language ?? "und"))
        }
        var metadata = CastMetadata(title: title ?? ((path as NSString).lastPathComponent as NSString).deletingPathExtension,
                                    metadataType: .generic, images: [])
        metadata.subtitle = (path as NSString).lastPathComponent
        // The subtitle track turned on: an embedded one the file marks forced or default, else a file beside it.
        let preferred = converted.textTracks.firstIndex { $0.isForced } ?? converted.textTracks.firstIndex { $0.isDefault }
        let active = preferred.map { $0 + 1 } ?? (tracks.count > converted.textTracks.count ? converted.textTracks.count + 1 : nil)
        var information = MediaInformation(
            contentId: converted.url, contentType: converted.contentType, streamType: .buffered, duration: converted.duration,
            metadata: metadata, tracks: tracks.isEmpty ? nil : tracks)
        setSegmentFormat(of: &information, converted: converted, plan: plan)
        var item = QueueItemBuilder(media: information).build()
        item.activeTrackIds = active.map { [$0] }
        return item
    }

    /// A queue item for separate video and audio of a web page (yt-dlp's formats, ``MediaURLResolution/conversionInputs``):
    /// both inputs probed over HTTP, merged into one media, planned for `profile` and published as HLS made on demand;
    /// `base` (the resolver's asset: title, image, text tracks) keeps all but its URL, content type and duration.
    static func item(
        inputs: [MediaInput], base: MediaInformation, profile: CastDeviceProfile, options: ConversionOptions, tools: FFmpegTools,
        server: MediaServer, conversions: CastConversions, startsAtOnce: Bool, json: Bool
    ) async throws -> QueueItem {
        let probe = MediaProbe(tools: tools)
        var probed: [ProbedMedia] = []
        for input in inputs {
            if !json { FileHandle.standardError.write(Data("castctl: probing \(input)\n".utf8)) }
            probed.append(try await probe.probe(input))
        }
        let media = probed.count == 2 ? try ProbedMedia.merging(video: probed[0], audio: probed[1]) : probed[0]
        let (plan, converted) = try await publish(
            media, profile: profile, options: options, tools: tools, server: server, conversions: conversions, startsAtOnce: startsAtOnce,
            json: json)
        var information = base
        information.contentId = converted.url
        information.contentUrl = converted.url
        information.contentType = converted.contentType
        information.streamType = .buffered
        information.duration = converted.duration ?? base.duration
        setSegmentFormat(of: &information, converted: converted, plan: plan)
        return QueueItemBuilder(media: information).build()
    }

    /// Plans probed media for `profile` (printing the plan unless `json`) and publishes it on `server`.
    private static func publish(
        _ media: ProbedMedia, profile: CastDeviceProfile, options: ConversionOptions, tools: FFmpegTools, server: MediaServer,
        conversions: CastConversions, startsAtOnce: Bool, json: Bool
    ) async throws -> (ConversionPlan, ConvertedMedia) {
        let plan = try ConversionPlan(for: media, profile: profile, options: options)
        if !json {
            for line in plan.lines { FileHandle.standardError.write(Data("castctl: \(line)\n".utf8)) }
        }
        let conversion = try await MediaConversion.publish(
            media, plan: plan, options: options, on: server, tools: tools,
            configuration: .init(startsAtOnce: startsAtOnce, logger: Output.logger))
        await conversions.add(conversion)
        return (plan, await conversion.media)
    }

    /// The LOAD's HLS segment formats, which tell a device fragmented MP4 from MPEG-TS.
    private static func setSegmentFormat(of information: inout MediaInformation, converted: ConvertedMedia, plan: ConversionPlan) {
        if converted.segmentContainer == .fmp4 {
            information.hlsSegmentFormat = CastMedia.HLSSegmentFormat.fmp4
            information.hlsVideoSegmentFormat = CastMedia.HLSVideoSegmentFormat.fmp4
        } else if converted.segmentContainer == .mpegts {
            information.hlsSegmentFormat = plan.video == nil ? CastMedia.HLSSegmentFormat.tsAAC : CastMedia.HLSSegmentFormat.ts
            if plan.video != nil { information.hlsVideoSegmentFormat = CastMedia.HLSVideoSegmentFormat.mpeg2TS }
        }
    }

    private static func probe(_ path: String, tools: FFmpegTools) async -> Result<ProbedMedia, ConversionError> {
        do {
            return .success(try await MediaProbe(tools: tools).probe(path))
        } catch {
            return .failure(error)
        }
    }

    /// The subtitle files beside a video (movie.srt, movie.en.vtt) and those given, published as WebVTT.
    static func sidecarSubtitles(for path: String, extra: [String], server: MediaServer)
        -> [(registration: MediaRegistration, language: String?, label: String?)] {
        var candidates = (try? SubtitleDiscovery.subtitles(forVideoAt: path)) ?? []
        for file in extra where !candidates.contains(where: { $0.path == file }) {
            candidates.append(SubtitleFile(path: file, language: nil, format: SubtitleFormat(fileName: file) ?? .srt))
        }
        return candidates.compactMap { candidate in
            guard let registration = try? server.register(subtitles: candidate.path) else { return nil }
            return (registration, candidate.language, candidate.label)
        }
    }
}

/// Prints a conversion's progress on standard error while it starts (at most a line a second), and its failures.
enum ConversionProgressPrinter {
    static func follow(_ conversion: MediaConversion, name: String, until playing: @escaping @Sendable () -> Bool) -> Task<Void, Never> {
        Task {
            let clock = ContinuousClock()
            var last: ContinuousClock.Instant?
            var madeUpTo = 0.0
            var speed: Double?
            let duration = conversion.source.duration ?? 0
            for await event in conversion.events {
                var line: String?
                switch event {
                case .runStarted(let segment, let restart):
                    if restart { line = "restarted at segment \(segment) (a seek)" }
                case .segmentReady(let index, let count, let end):
                    madeUpTo = max(madeUpTo, end)
                    if index == 0 || last == nil || clock.now - last! >= .seconds(1) {
                        line = "segment \(index + 1)/\(count) ready, \(MediaStatus.clock(madeUpTo)) of \(MediaStatus.clock(duration)) made"
                            + (speed.map { String(format: ", %.1f× real time", $0) } ?? "")
                    }
                case .progress(let time, let rate):
                    madeUpTo = max(madeUpTo, time)
                    speed = rate
                case .runFailed(let message):
                    FileHandle.standardError.write(Data("castctl: converting \(name): ffmpeg failed: \(message)\n".utf8))
                case .subtitlesReady(let count):
                    line = "\(count) subtitle stream(s) extracted as WebVTT"
                case .paused:
                    break
                }
                if let line, !playing() {
                    last = clock.now
                    FileHandle.standardError.write(Data("castctl: converting \(name): \(line)\n".utf8))
                }
            }
        }
    }
}
