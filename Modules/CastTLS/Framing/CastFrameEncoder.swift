public import NIOCore

/// Writes `CastMessage`s as length-prefixed frames.
public struct CastFrameEncoder: MessageToByteEncoder, Sendable {
    /// Messages to frame.
    public typealias OutboundIn = CastMessage

    /// Creates an encoder.
    public init() {}

    /// Appends the frame of `message` to `buffer`.
    /// - Throws: `CastTransportError` `.messageTooLarge` when the body would exceed
    ///   `CastFrame.maxBodySize`; nothing is written then.
    public func encodeFrame(_ message: CastMessage, into buffer: inout ByteBuffer) throws(CastTransportError) {
        let size = message.encodedSize
        guard size <= CastFrame.maxBodySize else {
            throw CastTransportError(
                code: .messageTooLarge,
                message: "Message of \(size) bytes exceeds the \(CastFrame.maxBodySize)-byte frame limit")
        }
        buffer.reserveCapacity(minimumWritableBytes: CastFrame.headerSize + size)
        buffer.writeInteger(UInt32(size))
        message.writeBody(into: &buffer)
    }

    /// `MessageToByteEncoder` entry point.
    public func encode(data: CastMessage, out: inout ByteBuffer) throws {
        try encodeFrame(data, into: &out)
    }
}
