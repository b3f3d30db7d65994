/// IVF, the container of VP8/VP9/AV1 elementary streams: a 32-byte header, then each frame behind a
/// 12-byte header holding its size and presentation timestamp. ffmpeg reads and plays it.
struct IVFWriter: Sendable {
    /// The fourcc: `VP80`, `VP90` or `AV01`.
    let fourcc: String
    /// The timestamps' units per second (the RTP time base, 90 000 for video).
    let timeBase: Int
    private(set) var frameCount = 0

    init(fourcc: String, timeBase: Int) {
        self.fourcc = fourcc
        self.timeBase = timeBase
    }

    /// The file header for a stream of `width`×`height` (the count at offset 24 is rewritten at the end).
    func header(width: Int, height: Int) -> [UInt8] {
        var bytes = Array("DKIF".utf8)
        bytes += le16(0) + le16(32) + Array(fourcc.utf8.prefix(4))
        bytes += le16(UInt16(clamping: width)) + le16(UInt16(clamping: height))
        bytes += le32(UInt32(timeBase)) + le32(1) + le32(UInt32(frameCount)) + le32(0)
        return bytes
    }

    /// A frame's header and bytes, its timestamp in ``timeBase`` units.
    mutating func frame(_ data: [UInt8], timestamp: Int64) -> [UInt8] {
        frameCount += 1
        var bytes = le32(UInt32(data.count))
        bytes += le64(UInt64(bitPattern: timestamp))
        return bytes + data
    }

    /// The frame count field's bytes and offset, to rewrite when the file is closed.
    var countPatch: (offset: UInt64, bytes: [UInt8]) { (24, le32(UInt32(frameCount))) }

    private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    private func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }

    /// The picture size a VP8 key frame declares (its frame tag, start code 9d 01 2a, then the sizes).
    static func vp8KeyFrameSize(_ frame: [UInt8]) -> (width: Int, height: Int)? {
        guard frame.count >= 10, frame[0] & 1 == 0, frame[3] == 0x9d, frame[4] == 0x01, frame[5] == 0x2a else { return nil }
        return (Int(frame[6]) | (Int(frame[7]) & 0x3F) << 8, Int(frame[8]) | (Int(frame[9]) & 0x3F) << 8)
    }

    /// The picture size a VP9 key frame declares in its uncompressed header.
    static func vp9KeyFrameSize(_ frame: [UInt8]) -> (width: Int, height: Int)? {
        guard let stream = CodecConfigurations.vp9Frame(frame[...]), let width = stream.width, let height = stream.height
        else { return nil }
        return (width, height)
    }
}
