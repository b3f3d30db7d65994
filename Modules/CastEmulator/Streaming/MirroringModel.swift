import CastJSON
import CastStreaming

/// What a mirroring app's state machine asks the engine to do.
enum MirroringOutput: Sendable, Hashable {
    /// Answer the sender that negotiates, on the webrtc namespace.
    case reply(JSONValue, to: MirroringModel.Sender)
    /// Record a sender mistake (with the offending payload).
    case violation(EmulatedReceiverViolation.Kind, String, request: String?, sender: MirroringModel.Sender?)
    /// Send this datagram (RTCP) to the sender's address.
    case datagram([UInt8])
    /// A session was negotiated.
    case started(EmulatedReceiverMirroringSession)
    /// A stream played a frame.
    case frame(stream: Int, codec: StreamingCodec, ReceivedFrame)
    /// A stream skipped frames that were incomplete when due.
    case skipped(stream: Int, ClosedRange<FrameID>)
    /// The session is over (idle, flooded): the app stops as on a device that lost its sender.
    case ended(String)
}

/// The mirroring app of the emulated device as a state machine: OFFER in, ANSWER out once its UDP
/// port is open; then datagrams in, RTCP and played frames out. It reads no clock and does no I/O.
struct MirroringModel: Sendable {
    /// A sender endpoint on a socket.
    struct Sender: Sendable, Hashable {
        var socket: Int
        var id: String
    }

    enum Port: Sendable, Hashable {
        case opening
        case open(Int)
        case failed(String)
    }

    struct ActiveStream: Sendable {
        var offered: OfferedStream
        var receiver: StreamReceiver
        var firstCapture: Duration?
    }

    struct Negotiation: Sendable {
        var sender: Sender
        var streams: [ActiveStream]
        var lastDatagram: Duration
        var windowStart: Duration
        var windowCount: Int
    }

    let settings: EmulatedReceiverMirroring
    let audioOnly: Bool
    let number: Int
    let appSessionId: String
    let ntpTimeline: NTPTimeline
    private(set) var port = Port.opening
    private var pending: (sender: Sender, sequence: Int, offer: StreamingOffer, now: Duration)?
    private(set) var negotiation: Negotiation?
    private(set) var datagramsRefused = 0
    private var violationsRecorded = 0
    private(set) var endedReason: String?
    /// The last OFFER, as the sender wrote it.
    private(set) var lastOfferText: String?

    /// The most datagram violations recorded one by one per session; later ones are only counted.
    static let maximumRecordedViolations = 20

    init(settings: EmulatedReceiverMirroring, audioOnly: Bool, number: Int, appSessionId: String, ntpTimeline: NTPTimeline) {
        self.settings = settings
        self.audioOnly = audioOnly
        self.number = number
        self.appSessionId = appSessionId
        self.ntpTimeline = ntpTimeline
    }

    /// The UDP port the ANSWER names.
    private var answerPort: Int? {
        guard case .open(let bound) = port else { return nil }
        return settings.advertisedPort ?? bound
    }

    // MARK: Control messages

    /// A message a sender sent on the webrtc (or remoting) namespace.
    mutating func handle(text: String, namespace: String, from sender: Sender, now: Duration) -> [MirroringOutput] {
        let message: StreamingMessage
        do {
            message = try StreamingMessage(parsing: text)
        } catch {
            return refuseUnreadable(text, error: error, from: sender)
        }
        switch message {
        case .offer(let sequence, let offer):
            lastOfferText = text
            return receiveOffer(offer, sequence: sequence, from: sender, now: now)
        case .getCapabilities(let sequence):
            // This device does no remoting: it says so, as Open Screen's receiver without remoting does.
            return [.reply(StreamingMessage.error(
                type: "CAPABILITIES_RESPONSE", sequenceNumber: sequence,
                code: StreamingMessage.errorCodeOffset + StreamingMessage.ErrorCode.remotingNotSupported,
                description: "Remoting is not supported").json, to: sender)]
        case .getStatus(let sequence):
            return [.reply(StreamingMessage.status(sequenceNumber: sequence, wifiSNR: 38.5, wifiSpeed: [433, 433, 433, 433]).json, to: sender)]
        case .rpc:
            return [.violation(.unexpectedMessage, "remoting RPC without a negotiated remoting session; dropped", request: text, sender: sender)]
        case .answer, .capabilities, .status, .error:
            return [.violation(.unexpectedMessage, "\(message.type) is a receiver's message; dropped", request: text, sender: sender)]
        }
    }

    private func refuseUnreadable(_ text: String, error: StreamingError, from sender: Sender) -> [MirroringOutput] {
        var outputs: [MirroringOutput] = [.violation(.malformedPayload, "\(error.message); answered with an error where a seqNum was readable", request: text, sender: sender)]
        // An OFFER that cannot be read still gets an ANSWER when its seqNum can be: the sender is told why.
        if let json = try? JSONValue(parsing: text), json["type"]?.stringValue?.uppercased() == "OFFER",
            let sequence = json["seqNum"]?.intValue, sequence >= 0
        {
            let code = error.code == .encryptionRequired ? StreamingMessage.ErrorCode.unencryptedOffer : StreamingMessage.ErrorCode.parameterInvalid
            outputs.append(.reply(StreamingMessage.error(type: "ANSWER", sequenceNumber: sequence, code: StreamingMessage.errorCodeOffset + code,
                                                         description: error.message).json, to: sender))
        }
        return outputs
    }

    private mutating func receiveOffer(_ offer: StreamingOffer, sequence: Int, from sender: Sender, now: Duration) -> [MirroringOutput] {
        func refuse(_ code: Int, _ description: String) -> [MirroringOutput] {
            [.violation(.refusedRequest, "answered ANSWER error \(code): \(description)", request: StreamingMessage.offer(sequenceNumber: sequence, offer: offer).text, sender: sender),
             .reply(StreamingMessage.error(type: "ANSWER", sequenceNumber: sequence, code: StreamingMessage.errorCodeOffset + code,
                                           description: description).json, to: sender)]
        }
        guard offer.mode == .mirroring else {
            return refuse(StreamingMessage.ErrorCode.remotingNotSupported, "This receiver does not have remoting enabled.")
        }
        guard !select(offer).isEmpty else {
            return refuse(StreamingMessage.ErrorCode.noStreamSelected, "Failed to select any streams from OFFER")
        }
        var outputs: [MirroringOutput] = []
        if let previous = pending {
            outputs.append(.reply(StreamingMessage.error(
                type: "ANSWER", sequenceNumber: previous.sequence, code: StreamingMessage.errorCodeOffset + StreamingMessage.ErrorCode.interrupted,
                description: "Received a new OFFER before negotiation could complete.").json, to: previous.sender))
            pending = nil
        }
        switch port {
        case .failed(let reason):
            return outputs + refuse(StreamingMessage.ErrorCode.socketFailure, "UDP socket is closed: \(reason)")
        case .opening:
            pending = (sender, sequence, offer, now)
            return outputs
        case .open:
            return outputs + negotiate(offer, sequence: sequence, sender: sender, now: now)
        }
    }

    /// The streams the device takes from an OFFER: the first audio codec it prefers that is offered,
    /// and likewise for video unless this is the audio-only app.
    func select(_ offer: StreamingOffer) -> [OfferedStream] {
        var chosen: [OfferedStream] = []
        for codec in settings.audioCodecs {
            if let stream = offer.audio.first(where: { $0.codec == codec }) {
                chosen.append(stream)
                break
            }
        }
        if !audioOnly {
            for codec in settings.videoCodecs {
                if let stream = offer.video.first(where: { $0.codec == codec }) {
                    chosen.append(stream)
                    break
                }
            }
        }
        return chosen
    }

    private mutating func negotiate(_ offer: StreamingOffer, sequence: Int, sender: Sender, now: Duration) -> [MirroringOutput] {
        let chosen = select(offer)
        var streams: [ActiveStream] = []
        for stream in chosen {
            guard let crypto = try? FrameCrypto(key: stream.aesKey, ivMask: stream.aesIvMask) else { continue }
            let receiver = StreamReceiver(configuration: .init(
                senderSSRC: stream.ssrc, receiverSSRC: stream.ssrc &+ 1, timeBase: stream.timeBase,
                targetDelay: .milliseconds(stream.targetDelay), crypto: crypto, sendsPictureLoss: stream.codec.isVideo,
                ntpTimeline: ntpTimeline))
            streams.append(ActiveStream(offered: stream, receiver: receiver))
        }
        negotiation = Negotiation(sender: sender, streams: streams, lastDatagram: now, windowStart: now, windowCount: 0)
        let answer = StreamingAnswer(
            udpPort: answerPort ?? 0, sendIndexes: streams.map(\.offered.index), ssrcs: streams.map { $0.offered.ssrc &+ 1 },
            constraints: .init(
                audio: .init(maxSampleRate: 48_000, maxChannels: 2, maxBitRate: settings.maximumAudioBitRate),
                video: .init(maxPixelsPerSecond: Double(settings.maximumWidth * settings.maximumHeight) * settings.maximumFrameRate,
                             maxWidth: settings.maximumWidth, maxHeight: settings.maximumHeight, maxFrameRate: settings.maximumFrameRate,
                             maxBitRate: settings.maximumVideoBitRate)),
            display: audioOnly ? nil : .init(width: settings.maximumWidth, height: settings.maximumHeight,
                                             frameRate: settings.maximumFrameRate, receiverScales: false))
        return [.reply(StreamingMessage.answer(sequenceNumber: sequence, answer: answer).json, to: sender), .started(snapshot!)]
    }

    /// The UDP port was bound: a held OFFER is answered.
    mutating func portOpened(_ bound: Int, now: Duration) -> [MirroringOutput] {
        port = .open(bound)
        guard let held = pending else { return [] }
        pending = nil
        return negotiate(held.offer, sequence: held.sequence, sender: held.sender, now: now)
    }

    /// The UDP port could not be bound: a held OFFER is answered with the error.
    mutating func portFailed(_ reason: String) -> [MirroringOutput] {
        port = .failed(reason)
        guard let held = pending else { return [] }
        pending = nil
        return [.reply(StreamingMessage.error(
            type: "ANSWER", sequenceNumber: held.sequence, code: StreamingMessage.errorCodeOffset + StreamingMessage.ErrorCode.socketFailure,
            description: "UDP socket is closed: \(reason)").json, to: held.sender)]
    }

    // MARK: Datagrams

    /// A datagram arrived on the session's port (from the address the session locked onto).
    mutating func receive(datagram: [UInt8], now: Duration) -> [MirroringOutput] {
        guard endedReason == nil, var session = negotiation else {
            datagramsRefused += 1
            return []
        }
        session.lastDatagram = now
        if now - session.windowStart >= .seconds(1) {
            session.windowStart = now
            session.windowCount = 0
        }
        session.windowCount += 1
        negotiation = session
        if session.windowCount > settings.maximumPacketRate {
            endedReason = "flood: more than \(settings.maximumPacketRate) datagrams in a second"
            return [.violation(.flood, "the sender sent more than \(settings.maximumPacketRate) datagrams in one second; session ended",
                               request: nil, sender: session.sender), .ended(endedReason!)]
        }
        var outputs: [MirroringOutput] = []
        if RTPPacket.looksLikeRTP(datagram) {
            let packet: RTPPacket
            do {
                packet = try RTPPacket(parsing: datagram)
            } catch {
                return refuseDatagram(datagram, error.message)
            }
            guard let index = negotiation!.streams.firstIndex(where: { $0.offered.ssrc == packet.ssrc }) else {
                return refuseDatagram(datagram, "RTP packet for SSRC \(packet.ssrc), which no negotiated stream has")
            }
            outputs += apply(negotiation!.streams[index].receiver.receive(packet, at: now), stream: index)
        } else {
            let packets: [RTCPPacket]
            do {
                packets = try RTCPPacket.parseCompound(datagram)
            } catch {
                return refuseDatagram(datagram, error.message)
            }
            for index in negotiation!.streams.indices {
                outputs += apply(negotiation!.streams[index].receiver.receive(packets, at: now), stream: index)
            }
        }
        return outputs
    }

    private mutating func refuseDatagram(_ datagram: [UInt8], _ reason: String) -> [MirroringOutput] {
        datagramsRefused += 1
        guard violationsRecorded < Self.maximumRecordedViolations else { return [] }
        violationsRecorded += 1
        let hex = datagram.prefix(64).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        let more = violationsRecorded == Self.maximumRecordedViolations ? " (later ones only counted)" : ""
        return [.violation(.malformedPacket, reason + more, request: "<\(datagram.count) bytes: \(hex)\(datagram.count > 64 ? "…" : "")>",
                           sender: negotiation?.sender)]
    }

    private mutating func apply(_ actions: [StreamReceiver.Action], stream index: Int) -> [MirroringOutput] {
        var outputs: [MirroringOutput] = []
        for action in actions {
            switch action {
            case .sendRTCP(let bytes):
                outputs.append(.datagram(bytes))
            case .play(let frame):
                if negotiation!.streams[index].firstCapture == nil { negotiation!.streams[index].firstCapture = frame.captureTime }
                outputs.append(.frame(stream: negotiation!.streams[index].offered.index, codec: negotiation!.streams[index].offered.codec, frame))
            case .skip(let range):
                outputs.append(.skipped(stream: negotiation!.streams[index].offered.index, range))
            }
        }
        return outputs
    }

    // MARK: Time

    /// The next instant ``tick(now:)`` has something to do.
    var nextDeadline: Duration? {
        guard endedReason == nil, let session = negotiation else { return nil }
        var earliest = session.lastDatagram + settings.idleTimeout
        for stream in session.streams {
            if let deadline = stream.receiver.nextDeadline, deadline < earliest { earliest = deadline }
        }
        return earliest
    }

    mutating func tick(now: Duration) -> [MirroringOutput] {
        guard endedReason == nil, let session = negotiation else { return [] }
        if now - session.lastDatagram >= settings.idleTimeout {
            endedReason = "no packet for \(settings.idleTimeout)"
            return [.ended(endedReason!)]
        }
        var outputs: [MirroringOutput] = []
        for index in session.streams.indices {
            outputs += apply(negotiation!.streams[index].receiver.tick(now: now), stream: index)
        }
        return outputs
    }

    /// A datagram from another address than the one the session locked onto: counted, dropped.
    mutating func refuseForeign() { datagramsRefused += 1 }

    /// Marks the session ended (the app stopped); nothing more is taken.
    mutating func end(_ reason: String) {
        if endedReason == nil { endedReason = reason }
    }

    // MARK: Status

    /// The session as the public API reports it; `nil` before an OFFER was answered.
    var snapshot: EmulatedReceiverMirroringSession? {
        guard let session = negotiation else { return nil }
        return EmulatedReceiverMirroringSession(
            number: number, appSessionId: appSessionId, appId: audioOnly ? ReceiverEngine.audioMirroringId : ReceiverEngine.mirroringId,
            senderId: session.sender.id,
            streams: session.streams.map {
                EmulatedReceiverMirroringSession.Stream(
                    index: $0.offered.index, codec: $0.offered.codec, ssrc: $0.offered.ssrc, targetDelay: .milliseconds($0.offered.targetDelay),
                    timeBase: $0.offered.timeBase, channels: $0.offered.channels, codecParameter: $0.offered.codecParameter,
                    statistics: $0.receiver.statistics, firstCaptureTime: $0.firstCapture, recording: nil)
            },
            ended: endedReason, datagramsRefused: datagramsRefused, offer: lastOfferText)
    }
}
