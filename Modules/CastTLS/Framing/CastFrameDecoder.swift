public import NIOCore

/// Splits a byte stream into `CastMessage`s.
///
/// A pure decoder: feed it bytes as they arrive, in any split, and it yields each complete
/// message. It reads the 4-byte length first and rejects a length over `CastFrame.maxBodySize`
/// or of zero before waiting for (or allocating) the body. Any error is final: the connection
/// must be closed, as Chrome and openscreen do.
public struct CastFrameDecoder: ByteToMessageDecoder, Sendable {
    /// Decoded messages.
    public typealias InboundOut = CastMessage

    private var failed: CastTransportError?
    /// The ids and namespaces of the latest frames: most frames repeat them. Kept from the second
    /// frame on: a decoder made for one frame pays nothing for it.
    private var recent = RecentWireStrings(keeps: false)

    /// Creates a decoder.
    public init() {}

    /// Takes the next complete message out of `buffer`.
    ///
    /// - Returns: the message, or `nil` when `buffer` does not yet hold a whole frame (the bytes
    ///   stay in `buffer`).
    /// - Throws: `CastTransportError` `.frameTooLarge`, `.emptyFrame` or `.malformedMessage`;
    ///   after an error, every later call throws it again.
    public mutating func decodeFrame(from buffer: inout ByteBuffer) throws(CastTransportError) -> CastMessage? {
        if let failed { throw failed }
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return nil }
        do throws(CastTransportError) {
            guard length != 0 else {
                throw CastTransportError(code: .emptyFrame, message: "Frame announces an empty body")
            }
            guard length <= CastFrame.maxBodySize else {
                throw CastTransportError(
                    code: .frameTooLarge,
                    message: "Frame announces \(length) bytes; the limit is \(CastFrame.maxBodySize)")
            }
            guard buffer.readableBytes >= CastFrame.headerSize + Int(length) else { return nil }
            let body = CastFrame.headerSize..<CastFrame.headerSize + Int(length)
            let result = buffer.withUnsafeReadableBytes { bytes in
                Result { () throws(CastTransportError) in
                    try CastMessage(bodyBytes: UnsafeRawBufferPointer(rebasing: bytes[body]), recent: &recent)
                }
            }
            buffer.moveReaderIndex(forwardBy: body.upperBound)
            let message = try result.get()
            if !recent.keeps { recent = RecentWireStrings() }
            return message
        } catch {
            failed = error
            throw error
        }
    }

    /// `ByteToMessageDecoder` entry point.
    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let message = try decodeFrame(from: &buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(message))
        return .continue
    }

    /// Called at end of stream: a partial frame left over is dropped (the peer went away mid-frame).
    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while let message = try decodeFrame(from: &buffer) {
            context.fireChannelRead(Self.wrapInboundOut(message))
        }
        buffer.clear()
        return .needMoreData
    }
}
