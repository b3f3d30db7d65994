@_spi(Fuzzing) import CastMediaServer
import NIOCore
import NIOEmbedded
import NIOHTTP1

/// Feeds arbitrary bytes to a media-server connection (NIO's HTTP parser with the server's limits, then
/// Castor's routing, conditional requests, ranges and responses), to the planner for every request head the
/// parser decodes, and to the header-field parsers as one field value. Whatever the server writes must be
/// HTTP/1.1 responses; see `CastMediaServerFuzzing` for the invariants.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMediaRequest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    CastMediaServerFuzzing.checkFieldParsers(String(decoding: bytes, as: UTF8.self))

    // The server's connection, fed the bytes in two pieces split where the first byte says.
    let server = EmbeddedChannel()
    do { try CastMediaServerFuzzing.configureConnection(server.pipeline.syncOperations) } catch { fatalError("\(error)") }
    let split = count > 0 ? Int(bytes[0]) % (count + 1) : 0
    for piece in [bytes[..<split], bytes[split...]] where server.isActive {
        _ = try? server.writeInbound(ByteBuffer(bytes: piece))
        server.embeddedEventLoop.run()
    }
    var written: [UInt8] = []
    while let data = try? server.readOutbound(as: IOData.self) {
        if case .byteBuffer(let buffer) = data { written += buffer.readableBytesView }
    }
    _ = try? server.finish()
    if !written.isEmpty, !written.starts(with: Array("HTTP/1.1 ".utf8)) {
        fatalError("the server wrote \(String(decoding: written.prefix(64), as: UTF8.self).debugDescription)")
    }

    // Every head NIO's parser decodes, through the planner.
    let parser = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
    _ = try? parser.writeInbound(ByteBuffer(bytes: bytes))
    while let part = try? parser.readInbound(as: HTTPServerRequestPart.self) {
        if case .head(let head) = part { CastMediaServerFuzzing.checkRequest(head) }
    }
    _ = try? parser.finish()
    return 0
}
