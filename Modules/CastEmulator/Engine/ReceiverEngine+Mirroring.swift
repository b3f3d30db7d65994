import CastJSON
import CastStreaming

extension ReceiverEngine {
    /// Runs the mirroring app's state machine in place and carries out what it asks.
    mutating func runMirroring(_ body: (inout MirroringModel) -> [MirroringOutput]) {
        guard app?.mirroring != nil, let address = app?.address else { return }
        let outputs = body(&app!.mirroring!)
        for output in outputs {
            switch output {
            case .reply(let json, let sender):
                actions.append(send(json, from: address.transportId, to: sender.id, namespace: Wire.webrtc, socket: sender.socket))
            case .violation(let kind, let message, let request, let sender):
                keep(EmulatedReceiverViolation(
                    kind: kind, message: message, connection: sender?.socket ?? 0,
                    namespace: kind == .malformedPacket || kind == .flood ? "udp" : Wire.webrtc,
                    sourceId: sender?.id, destinationId: address.transportId,
                    request: request.map { $0.count > 2048 ? String($0.prefix(2048)) + "…" : $0 }))
            case .datagram(let bytes):
                actions.append(.sendDatagram(bytes))
            case .started(let session):
                actions.append(.mirroring(.started(session)))
            case .frame(let stream, let codec, let frame):
                actions.append(.mirroring(.frame(stream: stream, codec: codec, frame)))
            case .skipped(let stream, let range):
                actions.append(.mirroring(.skipped(stream: stream, range)))
            case .ended:
                // The device lost its sender (or dropped a flooding one): the app stops, as on a device.
                stopRunningApp()
                if let idle = idleApp { app = launchInstance(of: idle) }
                broadcastReceiverStatus(requestId: 0)
                return
            }
        }
    }

    /// A message on the mirroring app's namespaces.
    mutating func handleMirroringMessage(_ message: Envelope, socket: Int, now: Duration) {
        guard case .string(let text) = message.payload else {
            record(.malformedPayload, "binary payload on a Cast Streaming namespace; dropped", socket: socket, envelope: message)
            return
        }
        let sender = MirroringModel.Sender(socket: socket, id: message.sourceId)
        runMirroring { $0.handle(text: text, namespace: message.namespace, from: sender, now: now) }
    }

    /// The shell bound the mirroring session's UDP port.
    mutating func streamingPortOpened(_ port: Int, appSessionId: String, now: Duration) -> [ReceiverAction] {
        runTimersBeforeInput(now: now)
        guard app?.sessionId == appSessionId else { return [.closeStreamingPort] + drain() }
        runMirroring { $0.portOpened(port, now: now) }
        return drain()
    }

    /// The shell could not bind the mirroring session's UDP port.
    mutating func streamingPortFailed(_ reason: String, appSessionId: String) -> [ReceiverAction] {
        guard app?.sessionId == appSessionId else { return drain() }
        actions.append(.warn("cannot open the Cast Streaming UDP port: \(reason)"))
        runMirroring { $0.portFailed(reason) }
        return drain()
    }

    /// A datagram arrived on the mirroring session's port.
    mutating func receiveDatagram(_ bytes: [UInt8], now: Duration) -> [ReceiverAction] {
        runTimersBeforeInput(now: now)
        runMirroring { $0.receive(datagram: bytes, now: now) }
        return drain()
    }

    /// The mirroring app's session as it stands, when it negotiated one.
    var mirroringSnapshot: EmulatedReceiverMirroringSession? { app?.mirroring?.snapshot }
}
