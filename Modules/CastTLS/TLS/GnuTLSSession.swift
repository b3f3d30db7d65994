internal import CGnuTLS
import NIOCore

/// One GnuTLS session driven entirely through memory: GnuTLS never touches a socket.
///
/// Ciphertext received from the network is appended with ``feedCiphertext(_:)``; GnuTLS pulls it
/// through ``gnutlsPull``. Ciphertext GnuTLS produces lands in ``outbound`` through ``gnutlsPush``
/// and is taken with ``takeCiphertext()``. Not thread-safe: used on one event loop only.
final class GnuTLSSession {
    /// Client or server side.
    enum Side { case client, server }

    /// Result of a nonblocking GnuTLS step.
    enum Step: Equatable {
        /// The step finished.
        case done
        /// GnuTLS needs more ciphertext from the peer.
        case wantsMoreData
        /// The peer sent `close_notify` (only from ``receive(into:)``).
        case closeNotify
    }

    let session: gnutls_session_t
    /// Kept alive as long as the session uses it.
    private let credentials: GnuTLSCertificateCredentials
    /// Ciphertext received and not yet consumed by GnuTLS.
    private var inbound = CircularBuffer<ByteBuffer>(initialCapacity: 4)
    /// Set when the peer's TCP stream ended: the pull callback then reports end of file.
    private(set) var inboundEnded = false
    /// Ciphertext GnuTLS produced and nobody has written yet. Sized by what is written: an idle
    /// connection holds none (a fixed 16 KiB buffer, replaced at that size after every write because
    /// the taken copy shares it, cost every held device 16 KiB).
    private var outbound: ByteBuffer
    private let allocator: ByteBufferAllocator
    /// Set by the pull callback when GnuTLS asked for ciphertext and none was left: only then does
    /// `GNUTLS_E_AGAIN` mean "wait for the network".
    private var pullStarved = false
    /// Ciphertext bytes GnuTLS has pulled so far (progress of one GnuTLS call).
    private var pulledBytes = 0
    /// The peer's KeyUpdate asked for ours (TLS 1.3); answered after the record call returns.
    private var peerRequestedKeyUpdate = false
    /// Whether the last ``receive(into:)`` handled a record that carries no application data (a TLS 1.3
    /// NewSessionTicket or KeyUpdate, a warning alert): the peer may be holding its next write until
    /// that record is acknowledged.
    private(set) var handledRecordWithoutData = false

    init(side: Side, credentials: GnuTLSCertificateCredentials, allocator: ByteBufferAllocator) throws(TLSError) {
        try GnuTLSLibrary.ensureInitialized()
        var handle: gnutls_session_t?
        let flags = side == .client ? castor_gnutls_client_flags() : castor_gnutls_server_flags()
        try GnuTLSLibrary.check(gnutls_init(&handle, flags), .libraryFailure, "gnutls_init failed")
        guard let handle else { throw TLSError(code: .libraryFailure, message: "gnutls_init returned no session") }
        session = handle
        self.credentials = credentials
        self.allocator = allocator
        outbound = allocator.buffer(capacity: 0)

        // TLS 1.2 and 1.3 only, otherwise the system's default priorities.
        var errorPosition: UnsafePointer<CChar>?
        try GnuTLSLibrary.check(
            gnutls_set_default_priority_append(session, "-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2", &errorPosition, 0),
            .libraryFailure, "Setting the TLS priorities failed")
        try GnuTLSLibrary.check(
            gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, UnsafeMutableRawPointer(credentials.handle)),
            .libraryFailure, "Attaching certificate credentials failed")
        // The connect timeout belongs to the transport, not to GnuTLS.
        castor_gnutls_disable_handshake_timeout(session)

        castor_gnutls_set_transport_user_data(session, Unmanaged.passUnretained(self).toOpaque())
        gnutls_transport_set_push_function(session, gnutlsPush)
        gnutls_transport_set_pull_function(session, gnutlsPull)
        gnutls_transport_set_pull_timeout_function(session, gnutlsPullTimeout)
        gnutls_handshake_set_hook_function(
            session, GNUTLS_HANDSHAKE_KEY_UPDATE.rawValue, Int32(GNUTLS_HOOK_POST), gnutlsKeyUpdateHook)
    }

    deinit { gnutls_deinit(session) }

    // MARK: Buffers

    /// Hands ciphertext from the network to GnuTLS.
    func feedCiphertext(_ buffer: ByteBuffer) {
        if buffer.readableBytes > 0 { inbound.append(buffer) }
    }

    /// Marks the network stream as ended: once the buffered ciphertext is used up, GnuTLS sees end of file.
    func markInboundEnded() { inboundEnded = true }

    /// Bytes of ciphertext buffered for GnuTLS.
    var bufferedCiphertextBytes: Int { inbound.reduce(0) { $0 + $1.readableBytes } }

    /// The ciphertext GnuTLS produced since the last call, if any.
    func takeCiphertext() -> ByteBuffer? {
        guard outbound.readableBytes > 0 else { return nil }
        let taken = outbound
        outbound = allocator.buffer(capacity: 0)
        return taken
    }

    /// Push callback body: GnuTLS wrote ciphertext.
    fileprivate func push(_ bytes: UnsafeRawBufferPointer) -> Int {
        outbound.writeBytes(bytes)
        return bytes.count
    }

    /// Pull callback body: GnuTLS wants up to `destination.count` bytes of ciphertext.
    fileprivate func pull(into destination: UnsafeMutableRawBufferPointer) -> Int {
        while let first = inbound.first, first.readableBytes == 0 { inbound.removeFirst() }
        guard !inbound.isEmpty else {
            if inboundEnded { return 0 }
            pullStarved = true
            gnutls_transport_set_errno(session, castor_gnutls_errno_again())
            return -1
        }
        var copied = 0
        while copied < destination.count, !inbound.isEmpty {
            let count = inbound.modify(inbound.startIndex) { first -> Int in
                let count = min(first.readableBytes, destination.count - copied)
                first.readWithUnsafeReadableBytes { source in
                    UnsafeMutableRawBufferPointer(rebasing: destination[copied..<(copied + count)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<count]))
                    return count
                }
                return count
            }
            copied += count
            if inbound[inbound.startIndex].readableBytes == 0 { inbound.removeFirst() }
        }
        pulledBytes += copied
        return copied
    }

    /// Pull-timeout callback body: is there anything to read (data or end of file)?
    fileprivate func hasPullableData() -> Bool {
        inboundEnded || inbound.contains { $0.readableBytes > 0 }
    }

    // MARK: TLS operations

    /// Advances the handshake as far as the buffered ciphertext allows.
    func handshake() throws(TLSError) -> Step {
        while true {
            let progress = startCall()
            let result = gnutls_handshake(session)
            if result == castor_gnutls_e_success() { return .done }
            if result == castor_gnutls_e_again() || result == castor_gnutls_e_interrupted() {
                if mayHaveMore(since: progress) { continue }
                return .wantsMoreData
            }
            if gnutls_error_is_fatal(result) == 0 { continue }  // e.g. a warning alert: keep going
            throw handshakeError(result)
        }
    }

    /// Resets the starvation flag before a GnuTLS call; returns the pull count to measure progress against.
    private func startCall() -> Int {
        pullStarved = false
        return pulledBytes
    }

    /// After a non-fatal result (`GNUTLS_E_AGAIN`, `GNUTLS_E_INTERRUPTED`, a warning alert, a
    /// renegotiation request): whether to call GnuTLS again at once.
    ///
    /// GnuTLS returns `GNUTLS_E_AGAIN` not only when it ran out of ciphertext but also after it
    /// handled a record that carries no application data: a TLS 1.3 NewSessionTicket or KeyUpdate
    /// (`_gnutls13_recv_async_handshake`), or discarded early data. More records may then still be
    /// buffered here (GnuTLS pulls exactly one record at a time), and they must not wait for the
    /// next network read: that read may never come, because the peer is waiting for our answer to
    /// the data sitting in the buffer. So it is called again whenever the call made progress and
    /// did not stop for lack of ciphertext.
    private func mayHaveMore(since pulledBefore: Int) -> Bool {
        if gnutls_record_check_pending(session) > 0 { return true }
        return !pullStarved && pulledBytes > pulledBefore
    }

    private func handshakeError(_ result: Int32) -> TLSError {
        var message = "The TLS handshake failed"
        if result == castor_gnutls_e_fatal_alert_received() {
            message += ": the peer sent the fatal alert '\(alertName)'"
        } else if result == castor_gnutls_e_premature_termination() || (inboundEnded && !hasBufferedCiphertext) {
            message += ": the peer closed the connection during the handshake"
        }
        return TLSError(code: .handshakeFailed, message: message, gnutls: result)
    }

    private var hasBufferedCiphertext: Bool { inbound.contains { $0.readableBytes > 0 } }

    /// The name of the last alert received.
    private var alertName: String {
        gnutls_alert_get_name(gnutls_alert_get(session)).map { String(cString: $0) } ?? "unknown"
    }

    /// After a fatal handshake error: queues the alert that fits the error (best effort).
    func sendAlert(for error: TLSError) {
        guard let code = error.gnutlsErrorCode, code != Int(castor_gnutls_e_premature_termination()),
              code != Int(castor_gnutls_e_fatal_alert_received()) else { return }
        _ = gnutls_alert_send_appropriate(session, Int32(code))
    }

    /// Encrypts all of `plaintext` into ciphertext (taken with ``takeCiphertext()``).
    func send(_ plaintext: ByteBuffer) throws(TLSError) {
        var plaintext = plaintext
        while plaintext.readableBytes > 0 {
            let result = plaintext.withUnsafeReadableBytes { bytes in
                gnutls_record_send(session, bytes.baseAddress, bytes.count)
            }
            if result > 0 {
                plaintext.moveReaderIndex(forwardBy: result)
            } else if result == Int(castor_gnutls_e_again()) || result == Int(castor_gnutls_e_interrupted()) {
                continue  // cannot happen with a memory push, but GnuTLS asks to retry with the same data
            } else {
                throw TLSError(code: .recordFailed, message: "Encrypting application data failed", gnutls: Int32(result))
            }
        }
    }

    /// Decrypts every complete record buffered, appending plaintext to `output`.
    ///
    /// Records without application data (session tickets, KeyUpdate, warning alerts) are handled on
    /// the way; none of them stops the loop while complete records remain. A peer's KeyUpdate that
    /// requests ours is answered at once (the answer is taken with ``takeCiphertext()``).
    /// - Returns: `.closeNotify` when the peer ended the TLS stream cleanly, `.wantsMoreData` otherwise.
    /// - Throws: ``TLSError`` (``TLSError/Code/uncleanShutdown`` when the stream ended without `close_notify`).
    func receive(into output: inout ByteBuffer) throws(TLSError) -> Step {
        defer { answerKeyUpdateRequest() }
        handledRecordWithoutData = false
        while true {
            var result = 0
            let progress = startCall()
            output.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.maximumPlaintextRecord) { destination in
                result = gnutls_record_recv(session, destination.baseAddress, destination.count)
                return max(result, 0)
            }
            if result > 0 { continue }
            if result == 0 { return .closeNotify }
            let code = Int32(result)
            if code == castor_gnutls_e_again() || code == castor_gnutls_e_interrupted() {
                if mayHaveMore(since: progress) {
                    // Progress without plaintext: a record without application data was handled.
                    handledRecordWithoutData = true
                    continue
                }
                return .wantsMoreData
            }
            if code == castor_gnutls_e_rehandshake() {
                // TLS 1.2 renegotiation (a HelloRequest, or a client's new ClientHello): Cast never
                // renegotiates. Refuse with the warning alert the RFC provides, so the peer does not
                // wait for a handshake that will not come, and keep reading.
                _ = gnutls_alert_send(session, GNUTLS_AL_WARNING, GNUTLS_A_NO_RENEGOTIATION)
                if mayHaveMore(since: progress) { continue }
                return .wantsMoreData
            }
            if code == castor_gnutls_e_premature_termination() {
                throw TLSError(
                    code: .uncleanShutdown, message: "The peer closed the connection without a TLS close_notify",
                    gnutls: code)
            }
            if gnutls_error_is_fatal(code) == 0 {  // a warning alert: ignore it, read on
                if mayHaveMore(since: progress) { continue }
                return .wantsMoreData
            }
            var message = "Decrypting application data failed"
            if code == castor_gnutls_e_fatal_alert_received() { message += ": the peer sent the fatal alert '\(alertName)'" }
            throw TLSError(code: .recordFailed, message: message, gnutls: code)
        }
    }

    /// The largest plaintext one record carries (2^14), plus room GnuTLS may ask for.
    static let maximumPlaintextRecord = 16 * 1024 + 256

    /// Called by the KeyUpdate hook (on this thread, inside `gnutls_record_recv`).
    fileprivate func keyUpdateReceived(requestingOurs: Bool) {
        if requestingOurs { peerRequestedKeyUpdate = true }
    }

    /// Answers a peer's KeyUpdate `update_requested` with our own KeyUpdate now.
    ///
    /// GnuTLS only notes the request and sends the KeyUpdate in front of our next application
    /// record, which RFC 8446 §4.6.3 allows; but a peer that asked may wait for it, and a Cast
    /// connection can stay quiet for seconds. GnuTLS will still send one more KeyUpdate (update not
    /// requested) before our next record; two updates are harmless and keep both sides in step.
    private func answerKeyUpdateRequest() {
        guard peerRequestedKeyUpdate else { return }
        peerRequestedKeyUpdate = false
        _ = gnutls_session_key_update(session, 0)
    }

    /// Queues a KeyUpdate (TLS 1.3), asking for the peer's own when `requestingPeers` (taken with
    /// ``takeCiphertext()``): for tests of how the other side handles one.
    func updateKeys(requestingPeers: Bool) {
        _ = gnutls_session_key_update(session, requestingPeers ? 1 : 0)
    }

    /// Queues a `close_notify` alert (our side will send no more data).
    func shutdownWrite() {
        _ = gnutls_bye(session, GNUTLS_SHUT_WR)
    }

    // MARK: Negotiated parameters

    /// The peer's leaf certificate in DER form, if it sent one.
    var peerCertificateDER: [UInt8]? {
        var count: UInt32 = 0
        guard let list = gnutls_certificate_get_peers(session, &count), count > 0,
              let data = list[0].data else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(list[0].size)))
    }

    /// The negotiated protocol version, e.g. "TLS1.3".
    var protocolVersionName: String {
        gnutls_protocol_get_name(gnutls_protocol_get_version(session)).map { String(cString: $0) } ?? "unknown"
    }

    /// A description of the negotiated parameters, e.g. "(TLS1.3)-(ECDHE-X25519)-(RSA-PSS-RSAE-SHA256)-(AES-256-GCM)".
    var sessionDescription: String {
        guard let description = gnutls_session_get_desc(session) else { return "" }
        defer { castor_gnutls_free(description) }
        return String(cString: description)
    }
}

// MARK: C callbacks (recover the session object from the transport pointer)

private func gnutlsPush(_ transport: gnutls_transport_ptr_t?, _ data: UnsafeRawPointer?, _ size: Int) -> Int {
    guard let transport else { return -1 }
    let session = Unmanaged<GnuTLSSession>.fromOpaque(transport).takeUnretainedValue()
    guard size > 0 else { return 0 }
    guard let data else { return -1 }
    return session.push(UnsafeRawBufferPointer(start: data, count: size))
}

private func gnutlsPull(_ transport: gnutls_transport_ptr_t?, _ data: UnsafeMutableRawPointer?, _ size: Int) -> Int {
    guard let transport else { return -1 }
    let session = Unmanaged<GnuTLSSession>.fromOpaque(transport).takeUnretainedValue()
    guard size > 0 else { return 0 }
    guard let data else { return -1 }
    return session.pull(into: UnsafeMutableRawBufferPointer(start: data, count: size))
}

/// Post-hook of every KeyUpdate message, sent or received: notes a received request for our update.
private func gnutlsKeyUpdateHook(
    _ session: gnutls_session_t?, _ type: UInt32, _ when: UInt32, _ incoming: UInt32, _ message: UnsafePointer<gnutls_datum_t>?
) -> Int32 {
    guard let session, incoming != 0, let message, message.pointee.size == 1, let data = message.pointee.data,
          let transport = castor_gnutls_transport_user_data(session) else { return 0 }
    Unmanaged<GnuTLSSession>.fromOpaque(transport).takeUnretainedValue().keyUpdateReceived(requestingOurs: data[0] == 1)
    return 0
}

private func gnutlsPullTimeout(_ transport: gnutls_transport_ptr_t?, _ milliseconds: UInt32) -> Int32 {
    guard let transport else { return -1 }
    let session = Unmanaged<GnuTLSSession>.fromOpaque(transport).takeUnretainedValue()
    if session.hasPullableData() { return 1 }
    gnutls_transport_set_errno(session.session, castor_gnutls_errno_again())
    return -1
}
