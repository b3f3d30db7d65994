/// The protocol logic of ``GnuTLSHandler``, free of I/O: which phase the TLS connection is in and
/// what each channel event means in that phase. The handler performs the returned actions.
struct TLSConnectionStateMachine: Sendable {
    /// The phase of the connection.
    enum State: Sendable, Hashable {
        /// Not yet connected; nothing sent.
        case idle
        /// The handshake is running; application writes are held back.
        case handshaking
        /// The handshake finished; application data flows.
        case active
        /// Our `close_notify` is queued; the channel is being closed.
        case closing
        /// Done, cleanly or not.
        case closed
    }

    private(set) var state: State = .idle
    /// A flush arrived while the handshake was running.
    private(set) var flushPending = false

    /// The channel became active (or the handler was added to an active channel).
    enum StartAction: Equatable { case startHandshake, ignore }
    mutating func channelActive() -> StartAction {
        guard state == .idle else { return .ignore }
        state = .handshaking
        return .startHandshake
    }

    /// Ciphertext arrived from the network.
    enum ReadAction: Equatable { case driveHandshake, decrypt, bufferUntilActive, discard }
    func ciphertextReceived() -> ReadAction {
        switch state {
        case .idle: .bufferUntilActive
        case .handshaking: .driveHandshake
        case .active: .decrypt
        case .closing, .closed: .discard
        }
    }

    /// GnuTLS finished the handshake.
    enum HandshakeAction: Equatable { case announceAndFlush(flushBufferedWrites: Bool), ignore }
    mutating func handshakeCompleted() -> HandshakeAction {
        guard state == .handshaking else { return .ignore }
        state = .active
        defer { flushPending = false }
        return .announceAndFlush(flushBufferedWrites: flushPending)
    }

    /// The application wrote data.
    enum WriteAction: Equatable { case buffer, fail }
    func write() -> WriteAction {
        switch state {
        case .idle, .handshaking, .active: .buffer
        case .closing, .closed: .fail
        }
    }

    /// The application flushed.
    enum FlushAction: Equatable { case encryptAndFlush, waitForHandshake, failBufferedWrites }
    mutating func flush() -> FlushAction {
        switch state {
        case .idle, .handshaking:
            flushPending = true
            return .waitForHandshake
        case .active: return .encryptAndFlush
        case .closing, .closed: return .failBufferedWrites
        }
    }

    /// The application closed the channel.
    enum CloseAction: Equatable {
        /// Nothing negotiated yet: close the socket, fail held-back writes.
        case closeImmediately
        /// Encrypt held-back writes, queue `close_notify`, write it, then close the socket.
        case sendCloseNotifyThenClose
        /// A close is already under way: chain onto it.
        case joinPendingClose
        /// Already closed: let the channel report it.
        case forward
    }
    mutating func closeRequested() -> CloseAction {
        switch state {
        case .idle, .handshaking:
            state = .closed
            return .closeImmediately
        case .active:
            state = .closing
            return .sendCloseNotifyThenClose
        case .closing: return .joinPendingClose
        case .closed: return .forward
        }
    }

    /// The peer's `close_notify` arrived.
    enum PeerCloseAction: Equatable { case replyCloseNotifyAndClose, ignore }
    mutating func closeNotifyReceived() -> PeerCloseAction {
        guard state == .active else { return .ignore }
        state = .closing
        return .replyCloseNotifyAndClose
    }

    /// The TCP connection ended (channel inactive or input closed).
    enum TransportEndAction: Equatable {
        /// Let GnuTLS see end of file and report what it makes of it (an error, or a late `close_notify`).
        case driveToEndOfFile
        /// Nothing to do.
        case ignore
    }
    func transportEnded() -> TransportEndAction {
        switch state {
        case .handshaking, .active: .driveToEndOfFile
        case .idle, .closing, .closed: .ignore
        }
    }

    /// A fatal error occurred (handshake, record layer or transport end).
    enum FailAction: Equatable { case reportAndClose, ignore }
    mutating func failed() -> FailAction {
        guard state != .closed else { return .ignore }
        state = .closed
        return .reportAndClose
    }

    /// The channel's close finished.
    mutating func channelClosed() { state = .closed }
}
