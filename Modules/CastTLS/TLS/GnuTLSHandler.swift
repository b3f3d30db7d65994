import NIOCore

/// A SwiftNIO channel handler that runs TLS (GnuTLS) over the bytes of the channel below it.
///
/// Put it first in the pipeline of a TCP channel: inbound it turns ciphertext into plaintext
/// `ByteBuffer`s, outbound it encrypts the `ByteBuffer`s written to it. The handshake starts when the
/// channel becomes active (or at once when added to an active channel); writes made earlier are held
/// back and sent after it. When the handshake finishes it fires ``GnuTLSHandshakeCompleted`` as a
/// user inbound event. Closing the channel sends `close_notify` first; a peer's `close_notify` fires
/// ``GnuTLSCloseNotifyReceived`` and closes the channel. Every failure fires a ``TLSError`` through
/// `fireErrorCaught` and closes the channel.
///
/// Client side: presents no certificate and verifies none (Cast devices use self-signed certificates;
/// trust comes from device authentication, which reads ``peerCertificateDER``). Server side: presents
/// the given ``TLSCredentials``. TLS 1.2 and 1.3 only.
///
/// Loop-bound: use it only on its channel's event loop. Install it from the channel initializer
/// (which runs on the loop), before the handlers that deal in plaintext:
///
/// ```swift
/// // Client
/// ClientBootstrap(group: group).channelInitializer { channel in
///     channel.eventLoop.makeCompletedFuture {
///         try channel.pipeline.syncOperations.addHandler(GnuTLSHandler(role: .client))
///         try channel.pipeline.syncOperations.addHandler(MyFramingHandler())
///     }
/// }
/// // Server
/// ServerBootstrap(group: group).childChannelInitializer { channel in
///     channel.eventLoop.makeCompletedFuture {
///         try channel.pipeline.syncOperations.addHandler(GnuTLSHandler(role: .server(credentials)))
///         try channel.pipeline.syncOperations.addHandler(MyFramingHandler())
///     }
/// }
/// ```
/// To wait for the handshake, watch for ``GnuTLSHandshakeCompleted`` in a later handler or use
/// ``handshakeFuture`` (it fails with the ``TLSError`` that ended the connection, or `.closed`).
package final class GnuTLSHandler: ChannelDuplexHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer
    package typealias OutboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    /// Which side of the TLS connection the handler plays.
    package enum Role: Sendable {
        /// Connects to a server; verifies no certificate.
        case client
        /// Accepts a client, presenting `credentials`.
        case server(TLSCredentials)
    }

    private let session: GnuTLSSession
    private var machine = TLSConnectionStateMachine()
    private var bufferedWrites: [(data: ByteBuffer, promise: EventLoopPromise<Void>?)] = []
    private var closePromise: EventLoopPromise<Void>?
    private var handshakePromise: EventLoopPromise<GnuTLSHandshakeCompleted>?

    /// The peer's leaf certificate (DER) once the handshake finished; `nil` before, or if the peer sent none.
    package private(set) var peerCertificateDER: [UInt8]?
    /// What the handshake negotiated, once it finished.
    package private(set) var negotiated: GnuTLSHandshakeCompleted?
    /// Succeeds when the handshake finishes, fails with the error that ended the connection first.
    /// `nil` until the handler is added to a pipeline.
    package private(set) var handshakeFuture: EventLoopFuture<GnuTLSHandshakeCompleted>?

    /// Creates the handler and its GnuTLS session.
    /// - Throws: ``TLSError`` when GnuTLS cannot set up a session.
    package init(role: Role) throws(TLSError) {
        switch role {
        case .client:
            session = try GnuTLSSession(side: .client, credentials: GnuTLSCertificateCredentials(), allocator: ByteBufferAllocator())
        case .server(let credentials):
            session = try GnuTLSSession(side: .server, credentials: credentials.gnutlsCredentials, allocator: ByteBufferAllocator())
        }
    }

    // MARK: Lifecycle

    package func handlerAdded(context: ChannelHandlerContext) {
        let promise = context.eventLoop.makePromise(of: GnuTLSHandshakeCompleted.self)
        handshakePromise = promise
        handshakeFuture = promise.futureResult
        if context.channel.isActive { start(context: context) }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        let error = TLSError(code: .closed, message: "The TLS handler was removed from the pipeline")
        failBufferedWrites(error)
        handshakePromise?.fail(error)
        handshakePromise = nil
    }

    package func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        endOfInput(context: context)
        machine.channelClosed()
        let error = TLSError(code: .closed, message: "The connection closed")
        failBufferedWrites(error)
        handshakePromise?.fail(error)
        handshakePromise = nil
        context.fireChannelInactive()
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            endOfInput(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: Inbound

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let ciphertext = unwrapInboundIn(data)
        switch machine.ciphertextReceived() {
        case .bufferUntilActive:
            session.feedCiphertext(ciphertext)
        case .driveHandshake:
            session.feedCiphertext(ciphertext)
            driveHandshake(context: context)
        case .decrypt:
            session.feedCiphertext(ciphertext)
            decrypt(context: context)
        case .discard:
            break
        }
    }

    // MARK: Outbound

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch machine.write() {
        case .buffer:
            bufferedWrites.append((unwrapOutboundIn(data), promise))
        case .fail:
            promise?.fail(TLSError(code: .closed, message: "Cannot write: the TLS connection is shut down"))
        }
    }

    package func flush(context: ChannelHandlerContext) {
        switch machine.flush() {
        case .encryptAndFlush:
            encryptBufferedWrites(context: context)
            context.flush()
        case .waitForHandshake:
            break
        case .failBufferedWrites:
            failBufferedWrites(TLSError(code: .closed, message: "Cannot write: the TLS connection is shut down"))
        }
    }

    /// Closing (mode `.all`) sends `close_notify` after any pending writes, then closes the socket.
    /// Half-closes (`.input`, `.output`) are passed on unchanged.
    package func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all else {
            context.close(mode: mode, promise: promise)
            return
        }
        switch machine.closeRequested() {
        case .closeImmediately:
            failBufferedWrites(TLSError(code: .closed, message: "The channel closed before the TLS handshake finished"))
            context.close(mode: mode, promise: promise)
        case .sendCloseNotifyThenClose:
            encryptBufferedWrites(context: context)
            sendCloseNotifyAndClose(context: context, promise: promise)
        case .joinPendingClose:
            if let promise {
                if let closePromise {
                    closePromise.futureResult.cascade(to: promise)
                } else {
                    context.close(mode: mode, promise: promise)
                }
            }
        case .forward:
            context.close(mode: mode, promise: promise)
        }
    }

    // MARK: Driving GnuTLS

    private func start(context: ChannelHandlerContext) {
        guard machine.channelActive() == .startHandshake else { return }
        driveHandshake(context: context)
    }

    private func driveHandshake(context: ChannelHandlerContext) {
        let step: GnuTLSSession.Step
        do {
            step = try session.handshake()
        } catch {
            session.sendAlert(for: error)
            writeCiphertext(context: context)
            fail(context: context, error: error)
            return
        }
        writeCiphertext(context: context)
        switch step {
        case .done:
            handshakeDone(context: context)
        case .wantsMoreData where session.inboundEnded:
            fail(context: context, error: TLSError(
                code: .handshakeFailed, message: "The peer closed the connection during the TLS handshake"))
        case .wantsMoreData, .closeNotify:
            break
        }
    }

    private func handshakeDone(context: ChannelHandlerContext) {
        guard case .announceAndFlush(let flushBufferedWrites) = machine.handshakeCompleted() else { return }
        let info = GnuTLSHandshakeCompleted(
            protocolVersion: session.protocolVersionName, sessionDescription: session.sessionDescription,
            peerCertificateDER: session.peerCertificateDER)
        peerCertificateDER = info.peerCertificateDER
        negotiated = info
        handshakePromise?.succeed(info)
        handshakePromise = nil
        context.fireUserInboundEventTriggered(info)
        // Application data may have arrived together with the handshake's last flight
        // (buffered by us or already inside GnuTLS); with nothing there this returns at once.
        if machine.state == .active {
            decrypt(context: context)
        }
        if flushBufferedWrites, machine.state == .active {
            encryptBufferedWrites(context: context)
            context.flush()
        }
    }

    private func decrypt(context: ChannelHandlerContext) {
        var plaintext = context.channel.allocator.buffer(capacity: 0)
        let step: GnuTLSSession.Step
        do {
            step = try session.receive(into: &plaintext)
        } catch {
            if plaintext.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(plaintext)) }
            session.sendAlert(for: error)
            writeCiphertext(context: context)
            fail(context: context, error: error)
            return
        }
        // What GnuTLS wrote while reading (our answer to a KeyUpdate request, a refusal to
        // renegotiate) goes out now, not with our next message.
        writeCiphertext(context: context)
        if plaintext.readableBytes == 0, session.handledRecordWithoutData { acknowledgeNow(context: context) }
        if plaintext.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(plaintext)) }
        if step == .closeNotify {
            context.fireUserInboundEventTriggered(GnuTLSCloseNotifyReceived())
            if machine.closeNotifyReceived() == .replyCloseNotifyAndClose {
                sendCloseNotifyAndClose(context: context, promise: nil)
            }
        }
    }

    /// Acknowledges what arrived at once (Linux `TCP_QUICKACK`) instead of after the delayed-ACK timer.
    ///
    /// A read that brought only records without application data (TLS 1.3 session tickets after the
    /// handshake, a KeyUpdate) leaves us nothing to answer, so the kernel delays its ACK (40 ms on
    /// Linux); a peer with Nagle's algorithm on (an OpenSSL device writing each record with its own
    /// send, a device's own stack) holds its next small write, the reply to our request, until that
    /// ACK. `castctl status` took 40 ms longer over TLS 1.3 than over TLS 1.2 against such a peer.
    private func acknowledgeNow(context: ChannelHandlerContext) {
        #if os(Linux)
        try? context.channel.syncOptions?.setOption(Self.quickAck, value: 1)
        #endif
    }

    /// Sends a TLS 1.3 KeyUpdate now, asking for the peer's when `requestingPeers`: for tests of how a
    /// peer handles a record without application data. On the channel's event loop, after the handshake.
    package func updateKeys(requestingPeers: Bool, context: ChannelHandlerContext) {
        session.updateKeys(requestingPeers: requestingPeers)
        writeCiphertext(context: context)
    }

    /// `TCP_QUICKACK` (12 on Linux; Glibc's module does not export it).
    static let quickAck = ChannelOptions.tcpOption(NIOBSDSocket.Option(rawValue: 12))

    /// The peer's byte stream ended: let GnuTLS decide whether that was clean.
    private func endOfInput(context: ChannelHandlerContext) {
        guard machine.transportEnded() == .driveToEndOfFile else { return }
        session.markInboundEnded()
        switch machine.state {
        case .handshaking:
            driveHandshake(context: context)
        case .active:
            decrypt(context: context)
            context.fireChannelReadComplete()
        case .idle, .closing, .closed:
            break
        }
    }

    private func encryptBufferedWrites(context: ChannelHandlerContext) {
        guard !bufferedWrites.isEmpty else { return }
        let writes = bufferedWrites
        bufferedWrites.removeAll()
        let promises = writes.compactMap { $0.promise }
        do {
            for write in writes { try session.send(write.data) }
        } catch {
            for promise in promises { promise.fail(error) }
            fail(context: context, error: error)
            return
        }
        var combined: EventLoopPromise<Void>?
        if !promises.isEmpty {
            let promise = context.eventLoop.makePromise(of: Void.self)
            for each in promises { promise.futureResult.cascade(to: each) }
            combined = promise
        }
        if let ciphertext = session.takeCiphertext() {
            context.write(wrapOutboundOut(ciphertext), promise: combined)
        } else {
            combined?.succeed()
        }
    }

    private func writeCiphertext(context: ChannelHandlerContext) {
        if let ciphertext = session.takeCiphertext() {
            context.writeAndFlush(wrapOutboundOut(ciphertext), promise: nil)
        }
    }

    private func sendCloseNotifyAndClose(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        let close = context.eventLoop.makePromise(of: Void.self)
        closePromise = close
        if let promise { close.futureResult.cascade(to: promise) }
        session.shutdownWrite()
        guard let ciphertext = session.takeCiphertext() else {
            context.close(promise: close)
            return
        }
        context.writeAndFlush(wrapOutboundOut(ciphertext)).assumeIsolated().whenComplete { _ in
            context.close(promise: close)
        }
    }

    private func fail(context: ChannelHandlerContext, error: TLSError) {
        guard machine.failed() == .reportAndClose else { return }
        failBufferedWrites(error)
        handshakePromise?.fail(error)
        handshakePromise = nil
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    private func failBufferedWrites(_ error: TLSError) {
        let writes = bufferedWrites
        bufferedWrites.removeAll()
        for write in writes { write.promise?.fail(error) }
    }
}

@available(*, unavailable)
extension GnuTLSHandler: Sendable {}
