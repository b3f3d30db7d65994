import Testing

@testable import CastTLS

@Suite("TLS connection state machine")
struct TLSStateMachineTests {
    @Test("writes wait for the handshake; a flush during it is replayed afterwards")
    func handshakeBuffering() {
        var machine = TLSConnectionStateMachine()
        #expect(machine.state == .idle)
        #expect(machine.write() == .buffer)
        #expect(machine.ciphertextReceived() == .bufferUntilActive)
        #expect(machine.channelActive() == .startHandshake)
        #expect(machine.channelActive() == .ignore)
        #expect(machine.state == .handshaking)
        #expect(machine.ciphertextReceived() == .driveHandshake)
        #expect(machine.flush() == .waitForHandshake)
        #expect(machine.handshakeCompleted() == .announceAndFlush(flushBufferedWrites: true))
        #expect(machine.state == .active)
        #expect(machine.ciphertextReceived() == .decrypt)
        #expect(machine.flush() == .encryptAndFlush)
    }

    @Test("no flush during the handshake: nothing to replay")
    func handshakeWithoutFlush() {
        var machine = TLSConnectionStateMachine()
        _ = machine.channelActive()
        #expect(machine.handshakeCompleted() == .announceAndFlush(flushBufferedWrites: false))
        #expect(machine.handshakeCompleted() == .ignore)
    }

    @Test("closing: before the handshake at once, after it with close_notify; later writes fail")
    func closing() {
        var early = TLSConnectionStateMachine()
        _ = early.channelActive()
        #expect(early.closeRequested() == .closeImmediately)
        #expect(early.state == .closed)
        #expect(early.write() == .fail)

        var machine = TLSConnectionStateMachine()
        _ = machine.channelActive()
        _ = machine.handshakeCompleted()
        #expect(machine.closeRequested() == .sendCloseNotifyThenClose)
        #expect(machine.state == .closing)
        #expect(machine.closeRequested() == .joinPendingClose)
        #expect(machine.write() == .fail)
        #expect(machine.flush() == .failBufferedWrites)
        #expect(machine.ciphertextReceived() == .discard)
        #expect(machine.transportEnded() == .ignore)
        machine.channelClosed()
        #expect(machine.closeRequested() == .forward)
    }

    @Test("peer close_notify and transport end")
    func peerEvents() {
        var machine = TLSConnectionStateMachine()
        #expect(machine.transportEnded() == .ignore)
        _ = machine.channelActive()
        #expect(machine.transportEnded() == .driveToEndOfFile)
        #expect(machine.closeNotifyReceived() == .ignore)
        _ = machine.handshakeCompleted()
        #expect(machine.transportEnded() == .driveToEndOfFile)
        #expect(machine.closeNotifyReceived() == .replyCloseNotifyAndClose)
        #expect(machine.closeNotifyReceived() == .ignore)
    }

    @Test("an error is reported once")
    func failure() {
        var machine = TLSConnectionStateMachine()
        _ = machine.channelActive()
        #expect(machine.failed() == .reportAndClose)
        #expect(machine.failed() == .ignore)
        #expect(machine.state == .closed)
    }
}
