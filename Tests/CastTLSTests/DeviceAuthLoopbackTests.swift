import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import CastTLS

/// Answers device-auth challenges arriving as `CastMessage`s with `credentials`, signing over `tlsCertificateDER`.
private final class DeviceAuthResponderHandler: ChannelInboundHandler {
    typealias InboundIn = CastMessage
    typealias OutboundOut = CastMessage
    private let credentials: CastDeviceCredentials
    private let tlsCertificateDER: [UInt8]

    init(credentials: CastDeviceCredentials, tlsCertificateDER: [UInt8]) {
        self.credentials = credentials
        self.tlsCertificateDER = tlsCertificateDER
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let reply = credentials.respond(to: unwrapInboundIn(data), tlsCertificateDER: tlsCertificateDER) {
            context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
        }
    }
}

/// What the sender side sees: the handshake (with the peer certificate) and Cast messages.
private enum DeviceAuthClientEvent: Sendable {
    case handshake(GnuTLSHandshakeCompleted)
    case message(CastMessage)
    case error(any Error)
}

private final class DeviceAuthClientCollector: ChannelInboundHandler {
    typealias InboundIn = CastMessage
    private let continuation: AsyncStream<DeviceAuthClientEvent>.Continuation

    init(_ continuation: AsyncStream<DeviceAuthClientEvent>.Continuation) { self.continuation = continuation }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(.message(unwrapInboundIn(data)))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? GnuTLSHandshakeCompleted { continuation.yield(.handshake(event)) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.yield(.error(error))
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }
}

@Suite("Device authentication over real TLS on loopback", .timeLimit(.minutes(2)))
struct DeviceAuthLoopbackTests {
    /// Starts a GnuTLS server presenting `tls` that answers challenges with `credentials`, connects a
    /// GnuTLS client, sends a challenge as the first message and verifies the reply against the peer
    /// certificate the client's TLS handshake saw.
    private func authenticate(
        credentials: CastDeviceCredentials, tls: TLSCredentials, policy: CastDeviceAuthPolicy
    ) async throws -> (status: CastDeviceAuthStatus, peerCertificateDER: [UInt8]?) {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    let pipeline = child.pipeline.syncOperations
                    try pipeline.addHandler(GnuTLSHandler(role: .server(tls)))
                    try pipeline.addHandler(ByteToMessageHandler(CastFrameDecoder()))
                    try pipeline.addHandler(MessageToByteHandler(CastFrameEncoder()))
                    try pipeline.addHandler(DeviceAuthResponderHandler(credentials: credentials, tlsCertificateDER: tls.certificateDER))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)

        let (events, continuation) = AsyncStream.makeStream(of: DeviceAuthClientEvent.self)
        let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(GnuTLSHandler(role: .client))
                    try pipeline.addHandler(ByteToMessageHandler(CastFrameDecoder()))
                    try pipeline.addHandler(MessageToByteHandler(CastFrameEncoder()))
                    try pipeline.addHandler(DeviceAuthClientCollector(continuation))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()

        let authenticator = try DeviceAuthFixtures.authenticator(policy)
        let challenge = authenticator.makeChallenge()
        var peerCertificateDER: [UInt8]?
        var reply: CastMessage?
        for await event in events {
            switch event {
            case .handshake(let info):
                peerCertificateDER = info.peerCertificateDER
                // The challenge is the very first message after the handshake.
                try await client.writeAndFlush(challenge.message)
            case .message(let message) where CastDeviceAuthenticator.isDeviceAuthMessage(message):
                reply = message
            case .message:
                continue
            case .error(let error):
                Issue.record("connection error: \(error)")
            }
            if reply != nil { break }
        }
        let status = authenticator.evaluate(reply: reply, to: challenge, peerCertificateDER: peerCertificateDER, now: Date())
        try await client.close()
        try await server.close()
        return (status, peerCertificateDER)
    }

    @Test("a genuine device is verified over TLS, against the certificate the client's handshake saw")
    func genuineOverTLS() async throws {
        let device = try DeviceAuthFixtures.device.get()
        let tls = try DeviceAuthFixtures.tls.get()
        let outcome = try await authenticate(
            credentials: device, tls: tls, policy: CastDeviceAuthPolicy(mode: .require, enforceNonce: true, requireCRL: true))
        #expect(outcome.peerCertificateDER == tls.certificateDER)
        guard case .verified(let result) = outcome.status else {
            Issue.record("not verified: \(outcome.status)")
            return
        }
        #expect(result.deviceCommonName == "Castor-Test-Device-01")
        #expect(result.nonce == .matched)
        #expect(result.crlChecked)
    }

    @Test("over TLS, a device signing over another certificate fails with badSignature")
    func wrongCertificateOverTLS() async throws {
        let device = try DeviceAuthFixtures.device.get().withMisbehaviour(.signOverOtherCertificate)
        let tls = try DeviceAuthFixtures.tls.get()
        let outcome = try await authenticate(credentials: device, tls: tls, policy: .require)
        guard case .failed(let error) = outcome.status else {
            Issue.record("not failed: \(outcome.status)")
            return
        }
        #expect(error.code == .badSignature)
    }

    @Test("over TLS, a server whose certificate is valid for 30 days fails with tlsCertificateValidTooLong")
    func longLivedTLSCertificate() async throws {
        let device = try DeviceAuthFixtures.device.get()
        let longLived = try TLSCredentials.selfSigned(
            commonName: "Castor Long-Lived TLS", validity: .seconds(30 * 24 * 3600), keyBits: 2048, notBefore: Date(),
            allowLongValidity: true)
        let outcome = try await authenticate(credentials: device, tls: longLived, policy: .require)
        guard case .failed(let error) = outcome.status else {
            Issue.record("not failed: \(outcome.status)")
            return
        }
        #expect(error.code == .tlsCertificateValidTooLong)
    }
}
