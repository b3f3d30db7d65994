@testable import CastConversion
import CastDeviceProfiles
import Testing

/// A plan of two inputs (a video-only and an audio-only URL): the same decisions as for a file, always HLS, and
/// ffmpeg command lines that seek both inputs, send their headers and map `0:v` and `1:a`.
@Suite struct TwoInputTests {
    static func probed(_ stream: ProbedStream, input: MediaInput, container: String, duration: Double) -> ProbedMedia {
        let media = MediaDescription(
            container: MediaContainer(ffprobeFormatName: container), video: stream.kind == .video ? [stream.videoDescription] : [],
            audio: stream.kind == .audio ? [stream.audioDescription] : [], subtitles: [], duration: duration)
        return ProbedMedia(path: nil, formatName: container, media: media, streams: [stream], duration: duration, inputs: [input])
    }

    static let videoInput = MediaInput(url: "https://cdn.example/m.mpd", headers: ["User-Agent": "UA/1", "Referer": "https://site.example/"],
                                       representation: "0")
    static let audioInput = MediaInput(url: "https://cdn.example/m.mpd", headers: ["User-Agent": "UA/1"], representation: "1")

    static func merged(videoCodec: MediaCodec = .h264, audioCodec: MediaCodec = .aac) throws -> ProbedMedia {
        let video = ProbedStream(index: 0, kind: .video, codec: videoCodec, profile: CodecProfile("High"), level: CodecLevel(3, 1),
                                 width: 1280, height: 720, frameRate: 25, pixelFormat: "yuv420p", bitDepth: 8)
        let audio = ProbedStream(index: 1, kind: .audio, codec: audioCodec, profile: CodecProfile("LC"), channels: 2, sampleRate: 48_000)
        return try ProbedMedia.merging(
            video: probed(video, input: videoInput, container: "dash", duration: 8),
            audio: probed(audio, input: audioInput, container: "dash", duration: 8.02))
    }

    @Test func mergingKeepsOneStreamOfEachInput() throws {
        let media = try Self.merged()
        #expect(media.inputs == [Self.videoInput, Self.audioInput])
        #expect(media.streams.map(\.input) == [0, 1] && media.streams.map(\.index) == [0, 1])
        #expect(media.duration == 8.02 && media.path == nil)
        #expect(media.streams[1].description.hasPrefix("#1:1 "))
        let silent = Self.probed(ProbedStream(index: 0, kind: .video, codec: .h264), input: Self.audioInput, container: "dash", duration: 8)
        let error = #expect(throws: ConversionError.self) { try ProbedMedia.merging(video: silent, audio: silent) }
        #expect(error?.code == .noPlayableStream)
    }

    @Test func theSameDecisionsAsAFileButAlwaysHLS() throws {
        let copied = try ConversionPlan(for: Self.merged(), profile: .chromecast3)
        #expect(copied.video?.action == .copy && copied.audio?.action == .copy)
        #expect(copied.delivery == .hls(.mpegts), "a file like this would go as it is; two inputs are merged into segments")
        #expect(copied.deliveryReason.contains("separately"))
        let converted = try ConversionPlan(for: Self.merged(videoCodec: .hevc, audioCodec: .ac3), profile: .chromecast3)
        #expect(converted.transcodes && converted.delivery == .hls(.mpegts))
        let error = #expect(throws: ConversionError.self) {
            try ConversionPlan(for: Self.merged(), profile: .chromecast3, options: ConversionOptions(policy: .never))
        }
        #expect(error?.code == .refusedByPolicy)
    }

    @Test func ffmpegSeeksBothInputsWithTheirHeadersAndMapsEach() throws {
        let media = try Self.merged(videoCodec: .hevc)
        let plan = try ConversionPlan(for: media, profile: .chromecast3)
        let layout = try SegmentLayout.regular(duration: 8, target: 2)
        let arguments = FFmpegArguments(plan: plan, layout: layout, inputs: media.inputs, options: ConversionOptions(), sourceHasReorderedFrames: false)
        let run = arguments.segmentRun(from: 2, directory: "/tmp/x")
        let inputs = run.indices.filter { run[$0] == "-i" }
        #expect(inputs.count == 2 && inputs.allSatisfy { run[$0 + 1] == "https://cdn.example/m.mpd" })
        #expect(run.indices.filter { run[$0] == "-ss" }.count == 2, "each input seeks to the segment: \(run)")
        #expect(run.indices.filter { run[$0] == "-user_agent" }.count == 2 && run.contains("Referer: https://site.example/\r\n"))
        #expect(run.contains("[0:0]format=yuv420p[v]") || run.contains { $0.hasPrefix("[0:0]") }, "the video of input 0: \(run)")
        let maps = run.indices.filter { run[$0] == "-map" }.map { run[$0 + 1] }
        #expect(maps == ["[v]", "1:1"], "\(maps)")
    }
}
