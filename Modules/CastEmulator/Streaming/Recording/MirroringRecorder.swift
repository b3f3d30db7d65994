import CastJSON
import CastStreaming
import Foundation
import Synchronization

/// Writes what a mirroring session received as files ffmpeg plays: VP8/VP9/AV1 as IVF, H.264/HEVC
/// as Annex B (with a `.timestamps` file of the RTP timestamps beside it), Opus as Ogg, AAC as ADTS;
/// and, when the session ends, `session.json` with each stream's codec, SSRC, file, counters and the
/// capture time of its first frame relative to the session's first (lip sync), and how late frames came:
/// from the capture time the sender's reports give to the moment the frame was whole here (arrival) and
/// to the moment it is due on screen (playout), median and 95th percentile. Beside each stream's file,
/// `FILE.timing.csv` has those times frame by frame (milliseconds on the receiver's clock).
///
/// Files are written on a queue of their own, never on the receiver's event loop; frames that would
/// push the bytes waiting to be written past ``maximumPendingBytes`` are dropped and counted.
final class MirroringRecorder: Sendable {
    /// The session's folder.
    let directory: URL
    /// The file of each stream, by OFFER index.
    let files: [Int: URL]
    /// The most bytes queued for writing at once.
    static let maximumPendingBytes = 32 << 20
    /// The most frames whose latencies are kept for the summary (an hour of 30 fps video).
    static let maximumLatencySamples = 108_000

    private let queue = DispatchQueue(label: "castor.receiver.mirror-recorder")
    private let pending = Mutex(0)
    private let dropped = Mutex(0)
    private let state: Mutex<State>

    private struct Stream {
        var codec: StreamingCodec
        var timeBase: Int
        var handle: FileHandle?
        var timestamps: FileHandle?
        var timing: FileHandle?
        /// Arrival and playout latencies of the frames so far (at most ``maximumLatencySamples``).
        var arrivals: [Double] = []
        var playouts: [Double] = []
        var ivf: IVFWriter?
        var ogg: OggOpusWriter?
        var adts: ADTSWriter?
        var firstTimestamp: Int64?
        var headerWritten = false
        var resolution: (width: Int, height: Int)?
    }

    private struct State: @unchecked Sendable {
        var streams: [Int: Stream] = [:]
        var failure: String?
    }

    /// Creates `root/session-N/` and a file per stream.
    init(root: String, session: EmulatedReceiverMirroringSession) throws {
        directory = URL(fileURLWithPath: root).appendingPathComponent("session-\(session.number)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var files: [Int: URL] = [:]
        var streams: [Int: Stream] = [:]
        for stream in session.streams {
            let name: String
            var entry = Stream(codec: stream.codec, timeBase: stream.timeBase)
            switch stream.codec {
            case .vp8: name = "video-\(stream.index).ivf"; entry.ivf = IVFWriter(fourcc: "VP80", timeBase: stream.timeBase)
            case .vp9: name = "video-\(stream.index).ivf"; entry.ivf = IVFWriter(fourcc: "VP90", timeBase: stream.timeBase)
            case .av1: name = "video-\(stream.index).ivf"; entry.ivf = IVFWriter(fourcc: "AV01", timeBase: stream.timeBase)
            case .h264: name = "video-\(stream.index).h264"
            case .hevc: name = "video-\(stream.index).hevc"
            case .opus: name = "audio-\(stream.index).ogg"; entry.ogg = OggOpusWriter(serial: stream.ssrc, channels: stream.channels)
            default:
                name = "audio-\(stream.index).aac"
                entry.adts = ADTSWriter(sampleRate: stream.timeBase, channels: stream.channels, codecParameter: stream.codecParameter)
            }
            let url = directory.appendingPathComponent(name)
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw EmulatedReceiverError(code: .invalidConfiguration, message: "cannot create \(url.path)")
            }
            entry.handle = try FileHandle(forWritingTo: url)
            if stream.codec == .h264 || stream.codec == .hevc {
                let side = url.appendingPathExtension("timestamps")
                _ = FileManager.default.createFile(atPath: side.path, contents: nil)
                entry.timestamps = try? FileHandle(forWritingTo: side)
            }
            let timing = url.appendingPathExtension("timing.csv")
            if FileManager.default.createFile(atPath: timing.path, contents: Data("frame,key,capture_ms,completed_ms,playout_ms\n".utf8)) {
                entry.timing = try? FileHandle(forWritingTo: timing)
                _ = try? entry.timing?.seekToEnd()
            }
            files[stream.index] = url
            streams[stream.index] = entry
        }
        self.files = files
        state = Mutex(State(streams: streams))
    }

    /// Frames dropped because the disk fell behind.
    var droppedFrames: Int { dropped.withLock { $0 } }

    /// Queues a frame of a stream for writing.
    func record(stream index: Int, frame: ReceivedFrame) {
        let size = frame.data.count
        let admitted = pending.withLock { bytes -> Bool in
            guard bytes + size <= Self.maximumPendingBytes else { return false }
            bytes += size
            return true
        }
        guard admitted else {
            dropped.withLock { $0 += 1 }
            return
        }
        queue.async { [self] in
            defer { pending.withLock { $0 -= size } }
            state.withLock { state in
                guard state.failure == nil, var stream = state.streams[index], let handle = stream.handle else { return }
                do {
                    try write(frame, to: &stream, handle: handle)
                } catch {
                    state.failure = "\(error)"
                }
                state.streams[index] = stream
            }
        }
    }

    private func write(_ frame: ReceivedFrame, to stream: inout Stream, handle: FileHandle) throws {
        let first = stream.firstTimestamp ?? frame.rtpTimestamp
        if stream.firstTimestamp == nil { stream.firstTimestamp = frame.rtpTimestamp }
        let relative = frame.rtpTimestamp - first
        if var ivf = stream.ivf {
            if !stream.headerWritten {
                let size = stream.codec == .vp8 ? IVFWriter.vp8KeyFrameSize(frame.data)
                    : stream.codec == .vp9 ? IVFWriter.vp9KeyFrameSize(frame.data) : nil
                try handle.write(contentsOf: ivf.header(width: size?.width ?? 0, height: size?.height ?? 0))
                stream.headerWritten = true
            }
            try handle.write(contentsOf: ivf.frame(frame.data, timestamp: relative))
            stream.ivf = ivf
        } else if var ogg = stream.ogg {
            if !stream.headerWritten {
                try handle.write(contentsOf: ogg.headers())
                stream.headerWritten = true
            }
            try handle.write(contentsOf: ogg.packet(frame.data, rtpTimestamp: frame.rtpTimestamp))
            stream.ogg = ogg
        } else if let adts = stream.adts {
            try handle.write(contentsOf: adts.frame(frame.data))
        } else {
            try handle.write(contentsOf: frame.data)
        }
        if let timestamps = stream.timestamps {
            try timestamps.write(contentsOf: Data("\(relative)\n".utf8))
        }
        func ms(_ time: Duration) -> String { String(format: "%.3f", time.milliseconds) }
        try stream.timing?.write(contentsOf: Data(
            "\(frame.frameID.value),\(frame.isKeyFrame ? 1 : 0),\(ms(frame.captureTime)),\(ms(frame.completedAt)),\(ms(frame.playoutTime))\n".utf8))
        if stream.arrivals.count < Self.maximumLatencySamples {
            stream.arrivals.append((frame.completedAt - frame.captureTime).milliseconds)
            stream.playouts.append((max(frame.playoutTime, frame.completedAt) - frame.captureTime).milliseconds)
        }
    }

    /// Closes every file (the IVF frame count rewritten, Ogg's last page written) and writes
    /// `session.json` from the session's last state. Waits for queued frames.
    func finish(_ session: EmulatedReceiverMirroringSession) {
        queue.sync {
            state.withLock { state in
                for (index, var stream) in state.streams {
                    guard let handle = stream.handle else { continue }
                    if let ivf = stream.ivf, stream.headerWritten {
                        let patch = ivf.countPatch
                        try? handle.seek(toOffset: patch.offset)
                        try? handle.write(contentsOf: patch.bytes)
                    }
                    if var ogg = stream.ogg, stream.headerWritten { try? handle.write(contentsOf: ogg.end()) }
                    try? handle.close()
                    try? stream.timestamps?.close()
                    try? stream.timing?.close()
                    stream.handle = nil
                    state.streams[index] = stream
                }
            }
        }
        let earliest = session.streams.compactMap(\.firstCaptureTime).min()
        let streams: [JSONValue] = session.streams.map { stream in
            var object: [String: JSONValue] = [
                "index": JSONValue(stream.index), "codec": .string(stream.codec.name), "ssrc": JSONValue(Int(stream.ssrc)),
                "timeBase": JSONValue(stream.timeBase), "file": .string(files[stream.index]?.lastPathComponent ?? ""),
                "framesReceived": JSONValue(stream.statistics.framesReceived), "framesDropped": JSONValue(stream.statistics.framesDropped),
                "framesLate": JSONValue(stream.statistics.framesLate),
                "retransmissionsRequested": JSONValue(stream.statistics.retransmissionsRequested),
                "retransmissionsReceived": JSONValue(stream.statistics.retransmissionsReceived),
                "pictureLossIndications": JSONValue(stream.statistics.pictureLossIndications),
                "packetsReceived": JSONValue(stream.statistics.packetsReceived),
            ]
            if let first = stream.firstCaptureTime, let earliest {
                object["firstCaptureOffsetMs"] = .number((first - earliest).seconds * 1000)
            }
            let recorded = state.withLock { $0.streams[stream.index] }
            if let recorded, !recorded.arrivals.isEmpty {
                object["latencyMs"] = [
                    "frames": JSONValue(recorded.arrivals.count),
                    "arrivalMedian": .number(Self.percentile(recorded.arrivals, 0.5)),
                    "arrivalP95": .number(Self.percentile(recorded.arrivals, 0.95)),
                    "playoutMedian": .number(Self.percentile(recorded.playouts, 0.5)),
                    "playoutP95": .number(Self.percentile(recorded.playouts, 0.95)),
                ]
            }
            return .object(object)
        }
        var summary: [String: JSONValue] = [
            "number": JSONValue(session.number), "appSessionId": .string(session.appSessionId), "appId": .string(session.appId), "senderId": .string(session.senderId),
            "streams": .array(streams), "datagramsRefused": JSONValue(session.datagramsRefused),
            "framesDroppedByRecorder": JSONValue(droppedFrames),
        ]
        if let ended = session.ended { summary["ended"] = .string(ended) }
        if let offer = session.offer, let json = try? JSONValue(parsing: offer) { summary["offer"] = json }
        if let failure = state.withLock({ $0.failure }) { summary["recordingError"] = .string(failure) }
        try? Data(JSONValue.object(summary).serialized().utf8).write(to: directory.appendingPathComponent("session.json"))
    }

    /// The value below which `fraction` of `values` lie (nearest rank).
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        let rank = min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[rank]
    }
}
