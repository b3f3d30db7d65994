import CastJSON
import CastStreaming
import CastTLS
import Foundation

/// The whole emulated device as a pure state machine: sockets and their virtual connections,
/// heartbeat, the platform (receiver, multizone, device-auth) namespaces, the running app and its
/// media player. Every input carries the engine time `now`; every call returns the actions the I/O
/// shell must perform. Nothing here does I/O or reads a clock.
struct ReceiverEngine: Sendable {
    /// The settings the state machine needs from a ``EmulatedReceiverConfiguration``.
    struct Settings: Sendable {
        var kind: EmulatedReceiverDeviceKind = .video
        var apps: [EmulatedReceiverApp] = []
        var heartbeat = EmulatedReceiverHeartbeat()
        var volumeLevel = 0.5
        var volumeControl = EmulatedReceiverVolumeControl.attenuation
        var isBrokenContent: @Sendable (String) -> Bool = { _ in false }
        var shuffleSeed: UInt64 = 0x5EED
        /// Device-authentication credentials, and the DER of the TLS certificate they sign over.
        var deviceCredentials: CastDeviceCredentials?
        var tlsCertificateDER: [UInt8]?
        /// Whether the media player holds loads until their content was fetched.
        var fetchesMedia = false
        /// The duration (seconds) of BUFFERED media nobody gave one.
        var defaultMediaDuration: Double?
        /// How the mirroring apps take Cast Streaming.
        var mirroring = EmulatedReceiverMirroring()
        /// The wall clock at engine time zero, for the NTP times of RTCP reports.
        var ntpTimeline = NTPTimeline(local: .zero, wallClock: .zero)
        /// The most virtual connections one socket may hold. A sender needs two or three (the platform,
        /// an app, perhaps a second app or sender id); a device refuses more, and each costs memory.
        var maximumVirtualConnections = 16

        init() {}

        init(_ configuration: EmulatedReceiverConfiguration) {
            kind = configuration.kind
            apps = configuration.apps
            heartbeat = configuration.heartbeat
            volumeLevel = configuration.volumeLevel
            volumeControl = configuration.volumeControl
            isBrokenContent = configuration.isBrokenContent
            shuffleSeed = configuration.shuffleSeed ?? UInt64.random(in: .min ... .max)
            deviceCredentials = configuration.deviceCredentials
            tlsCertificateDER = configuration.tlsCredentials?.certificateDER
            fetchesMedia = configuration.mediaFetching != nil
            defaultMediaDuration = configuration.defaultMediaDuration.map(\.seconds)
            mirroring = configuration.mirroring
        }
    }

    /// A virtual connection: the receiver-side endpoint (`receiver-0` or a transport id) and the sender's id.
    struct VirtualConnection: Sendable, Hashable {
        var local: String
        var peer: String
    }

    struct SocketState: Sendable {
        /// Open virtual connections, with the CONNECT message that opened each (at most
        /// ``Settings/maximumVirtualConnections``).
        var connections: [VirtualConnection: JSONValue] = [:]
        /// CONNECTs refused because the socket held the most virtual connections it may.
        var refusedConnects = 0
        var lastInbound: Duration
        /// When the next receiver PING is due; `nil` until the socket is past device authentication.
        var nextPing: Duration?

        /// Notes a message that arrived at `now`; the first one past device authentication
        /// (`startsHeartbeat`) schedules the first PING.
        mutating func noteInbound(at now: Duration, startsHeartbeat: Bool, pingInterval: Duration) {
            lastInbound = now
            if startsHeartbeat, nextPing == nil { nextPing = now + pingInterval }
        }

        /// Whether the virtual connection from `peer` to `local` is open. A socket holds a few (the
        /// platform's and an app's): compared in a scan, which costs less than hashing both ids.
        func isConnected(local: String, peer: String) -> Bool {
            if connections.count <= 4 {
                return connections.keys.contains { $0.local == local && $0.peer == peer }
            }
            return connections[VirtualConnection(local: local, peer: peer)] != nil
        }

        /// When this socket has been silent too long: `silenceTimeout` after its last message in.
        func silenceDeadline(_ silenceTimeout: Duration) -> Duration { lastInbound + silenceTimeout }

        /// The first instant a timer of this socket is due: its silence deadline or its next PING.
        /// What the timers run by (``ReceiverEngine/tick(now:)``) and what the receiver sleeps until
        /// (``ReceiverEngine/nextDeadline``) both come from here.
        func nextTimer(silenceTimeout: Duration) -> Duration {
            let silence = silenceDeadline(silenceTimeout)
            guard let ping = nextPing else { return silence }
            return min(silence, ping)
        }
    }

    /// An application the device can run.
    struct AppDescriptor: Sendable {
        enum Behaviour: Sendable {
            case mediaReceiver
            case idleScreen
            case custom(any EmulatedReceiverAppHandler)
            /// Cast Streaming (screen or audio mirroring).
            case mirroring(audioOnly: Bool)
        }
        var appId: String
        var displayName: String
        var statusText: String
        var namespaces: [String]
        var isIdleScreen: Bool
        var behaviour: Behaviour
    }

    struct RunningApp: Sendable {
        var descriptor: AppDescriptor
        var sessionId: String
        var transportId: String
        var media: MediaPlayerModel?
        var mirroring: MirroringModel?

        /// Where the app's messages come from, without the rest of it.
        var address: AppAddress { AppAddress(sessionId: sessionId, transportId: transportId) }
    }

    /// A running app's session and transport ids: what delivering its outputs needs.
    struct AppAddress: Sendable {
        var sessionId: String
        var transportId: String
    }

    static let defaultMediaReceiverId = "CC1AD845"
    static let audioMediaReceiverId = "705D30C6"
    static let backdropId = "E8C28D3C"
    /// Cast Streaming, audio and video (Chrome's tab and screen mirroring).
    static let mirroringId = "0F5096E8"
    /// Cast Streaming, audio only.
    static let audioMirroringId = "85CDB22F"

    var settings: Settings
    var sockets: [Int: SocketState] = [:]
    var app: RunningApp? {
        didSet { mediaDeadline = app?.media?.nextDeadline }
    }
    /// The running player's next deadline, kept with `app`: the receiver asks for the engine's next
    /// deadline after every request, and reading it through the optional app and player from a
    /// getter copied the whole player each time.
    private(set) var mediaDeadline: Duration?
    var volumeLevel: Double
    var isMuted = false
    var members: [EmulatedReceiverGroupMember]
    /// The newest ``maximumViolations`` violations, in order.
    private(set) var violations: [EmulatedReceiverViolation] = []
    /// How many violations were recorded in all (some may have left ``violations`` since).
    private(set) var violationCount = 0
    /// The most violations kept: a sender that keeps misbehaving cannot make the record grow for ever.
    static let maximumViolations = 10_000
    private var mediaSeed: SplitMix64
    var actions: [ReceiverAction] = []
    /// How many mirroring sessions this device has started (to number them).
    var mirroringCount = 0
    /// Who sent each media request held for fetching, by app session and token, with the request's
    /// `requestId` when it is past 2^53 (see ``exactRequestId``).
    var fetchRequesters: [FetchKey: (socket: Int, sender: String, exactRequestId: Int?)] = [:]
    /// The `requestId` of the request being handled, when it lies past ±2^53: replies carry it with
    /// all its digits (``replyText(_:exactRequestId:)``) where a `Double` in a JSON tree would round
    /// it. `nil` for every usual id, which the trees hold exactly. Set while one message is handled.
    var exactRequestId: Int?

    struct FetchKey: Sendable, Hashable {
        var sessionId: String
        var token: Int
    }

    init(settings: Settings) {
        self.settings = settings
        self.volumeLevel = min(1, max(0, settings.volumeLevel))
        self.members = settings.kind.members
        self.mediaSeed = SplitMix64(seed: settings.shuffleSeed)
        if let idle = idleApp { app = launchInstance(of: idle) }
        // Observers do not run for assignments in an initializer.
        mediaDeadline = app?.media?.nextDeadline
    }

    // MARK: Apps

    /// The apps this device can launch, by id: the Default Media Receiver (and its audio variant
    /// on audio devices), Backdrop on video devices, and the configured custom apps.
    var availableApps: [String: AppDescriptor] {
        let cac = "urn:x-cast:com.google.cast.cac"
        let debug = "urn:x-cast:com.google.cast.debugoverlay"
        var apps: [String: AppDescriptor] = [
            Self.defaultMediaReceiverId: AppDescriptor(
                appId: Self.defaultMediaReceiverId, displayName: "Default Media Receiver",
                statusText: "Default Media Receiver", namespaces: [debug, cac, Wire.media],
                isIdleScreen: false, behaviour: .mediaReceiver)
        ]
        if settings.kind.hasVideoOutput {
            apps[Self.backdropId] = AppDescriptor(
                appId: Self.backdropId, displayName: "Backdrop", statusText: "Ready To Cast",
                namespaces: [debug, cac, "urn:x-cast:com.google.cast.sse"], isIdleScreen: true,
                behaviour: .idleScreen)
        } else {
            apps[Self.audioMediaReceiverId] = AppDescriptor(
                appId: Self.audioMediaReceiverId, displayName: "Default Media Receiver",
                statusText: "Cast Media Player", namespaces: [Wire.media], isIdleScreen: false,
                behaviour: .mediaReceiver)
        }
        for (appId, audioOnly) in [(Self.mirroringId, false), (Self.audioMirroringId, true)] where settings.kind.hasVideoOutput || audioOnly {
            apps[appId] = AppDescriptor(
                appId: appId, displayName: "Chrome Mirroring", statusText: audioOnly ? "Casting audio" : "Casting tab",
                namespaces: [Wire.webrtc, Wire.remoting], isIdleScreen: false, behaviour: .mirroring(audioOnly: audioOnly))
        }
        for custom in settings.apps {
            apps[custom.appId] = AppDescriptor(
                appId: custom.appId, displayName: custom.displayName, statusText: custom.statusText,
                namespaces: custom.namespaces, isIdleScreen: false, behaviour: .custom(custom.handler))
        }
        return apps
    }

    var idleApp: AppDescriptor? { availableApps[Self.backdropId] }

    mutating func launchInstance(of descriptor: AppDescriptor) -> RunningApp {
        let session = UUID().uuidString.lowercased()
        var media: MediaPlayerModel?
        if case .mediaReceiver = descriptor.behaviour {
            media = MediaPlayerModel(isBroken: settings.isBrokenContent, seed: mediaSeed.next())
            media?.fetchesMedia = settings.fetchesMedia
            media?.defaultDuration = settings.defaultMediaDuration
        }
        var mirroring: MirroringModel?
        if case .mirroring(let audioOnly) = descriptor.behaviour {
            mirroringCount += 1
            mirroring = MirroringModel(settings: settings.mirroring, audioOnly: audioOnly, number: mirroringCount,
                                       appSessionId: session, ntpTimeline: settings.ntpTimeline)
        }
        return RunningApp(descriptor: descriptor, sessionId: session, transportId: session, media: media, mirroring: mirroring)
    }

    /// The running app's status text for the TXT record's `rs` (empty when idle).
    var runningAppStatusText: String {
        guard let app, !app.descriptor.isIdleScreen else { return "" }
        return app.descriptor.statusText
    }

    // MARK: Sockets

    /// A sender's socket was accepted.
    mutating func open(socket: Int, now: Duration) {
        sockets[socket] = SocketState(lastInbound: now, nextPing: nil)
    }

    /// A sender's socket went away: its virtual connections vanish silently; apps keep running.
    mutating func closed(socket: Int) {
        sockets[socket] = nil
    }

    /// A socket sent a frame that is not a CastMessage (oversized, empty, garbage): record it and close
    /// only that socket.
    mutating func invalidFrame(socket: Int, reason: String) -> [ReceiverAction] {
        guard sockets[socket] != nil else { return [] }
        record(.invalidFrame, reason, socket: socket)
        sockets[socket] = nil
        actions.append(.close(socket: socket, reason: "\(EmulatedReceiverViolation.Kind.invalidFrame): \(reason)"))
        return drain()
    }

    mutating func drain() -> [ReceiverAction] {
        defer { actions = [] }
        return actions
    }

    mutating func record(_ kind: EmulatedReceiverViolation.Kind, _ message: String, socket: Int, envelope: Envelope? = nil) {
        var request: String?
        switch envelope?.payload {
        case .string(let text): request = text.count > 2048 ? String(text.prefix(2048)) + "…" : text
        case .binary(let data): request = "<\(data.count) bytes>"
        case nil: request = nil
        }
        keep(EmulatedReceiverViolation(
            kind: kind, message: message, connection: socket, namespace: envelope?.namespace,
            sourceId: envelope?.sourceId, destinationId: envelope?.destinationId, request: request))
    }

    /// Adds a violation to the bounded record and counts it.
    mutating func keep(_ violation: EmulatedReceiverViolation) {
        // Past the bound, the oldest tenth goes at once (not one per violation: that would move the whole record each time).
        if violations.count >= Self.maximumViolations { violations.removeFirst(Self.maximumViolations / 10) }
        violations.append(violation)
        violationCount += 1
    }

    /// Error types with which a receiver refuses a request (LOAD_FAILED and LOAD_CANCELLED are not
    /// refusals: the content failed, or a newer request replaced this one).
    static let refusalTypes: Set<String> = ["INVALID_REQUEST", "INVALID_PLAYER_STATE", "LAUNCH_ERROR", "ERROR"]

    /// Records a violation for each refusal among an app's direct replies to `message`.
    mutating func recordRefusals(_ outputs: [AppOutput], for message: Envelope, socket: Int) {
        for case .reply(let json) in outputs {
            guard let type = json["type"]?.stringValue, Self.refusalTypes.contains(type) else { continue }
            let reason = json["reason"]?.stringValue.map { " (\($0))" } ?? ""
            record(.refusedRequest, "answered \(type)\(reason)", socket: socket, envelope: message)
        }
    }

    func send(_ json: JSONValue, from source: String, to destination: String, namespace: String, socket: Int) -> ReceiverAction {
        .send(socket: socket, Envelope(sourceId: source, destinationId: destination, namespace: namespace,
                                       payload: .string(replyText(json))))
    }

    /// The text of a message the receiver sends: `json` serialized, with a `requestId` that stands for
    /// `exactRequestId` (the request's, by default the one being handled) written with all its digits.
    func replyText(_ json: JSONValue, exactRequestId: Int? = nil) -> String {
        Self.replyText(json, exactRequestId: exactRequestId ?? self.exactRequestId)
    }

    /// ``replyText(_:exactRequestId:)`` with the request's id given.
    static func replyText(_ json: JSONValue, exactRequestId: Int?) -> String {
        guard let exact = exactRequestId, case .number(let number)? = json["requestId"], number == Double(exact) else {
            return json.serialized()
        }
        return json.serialized(settingInteger: "requestId", to: exact)
    }

    /// Queues `json` for every socket holding a virtual connection to `local`, addressed to `*`.
    mutating func broadcast(_ json: JSONValue, from local: String, namespace: String) {
        broadcast(text: replyText(json), from: local, namespace: namespace)
    }

    /// Queues `text` (JSON) for every socket holding a virtual connection to `local`, addressed to `*`.
    mutating func broadcast(text: String, from local: String, namespace: String) {
        let envelope = Envelope(sourceId: local, destinationId: Wire.broadcastId, namespace: namespace, payload: .string(text))
        // The sockets in ascending order, chosen and sorted in a stack buffer: every status a media app
        // sends is a broadcast, and sorting all keys into an array and looking each up again cost more
        // than choosing the one or two sockets it goes to.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: sockets.count) { targets in
            var count = 0
            for (socket, state) in sockets where state.connections.keys.contains(where: { $0.local == local }) {
                targets.initializeElement(at: count, to: socket)
                count += 1
            }
            var chosen = UnsafeMutableBufferPointer(rebasing: targets[0..<count])
            chosen.sort()
            for socket in chosen { actions.append(.send(socket: socket, envelope)) }
        }
    }

    // MARK: Time

    /// The next instant at which ``tick(now:)`` has something to do.
    var nextDeadline: Duration? {
        // A running minimum, not a list: the receiver asks after every request.
        var earliest = mediaDeadline
        func consider(_ deadline: Duration) {
            if earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
        }
        if let streaming = app?.mirroring?.nextDeadline { consider(streaming) }
        let silence = settings.heartbeat.silenceTimeout
        for state in sockets.values { consider(state.nextTimer(silenceTimeout: silence)) }
        return earliest
    }

    /// Runs the timers due at `now`: silent sockets are dropped, PINGs are sent, playback advances.
    mutating func tick(now: Duration) -> [ReceiverAction] {
        runTimers(now: now)
        return drain()
    }

    private mutating func runTimers(now: Duration) {
        // Every request runs the timers first, and on nearly all of them no socket has one due: checked
        // before the sockets are sorted and walked.
        let silence = settings.heartbeat.silenceTimeout
        if sockets.values.contains(where: { $0.nextTimer(silenceTimeout: silence) <= now }) {
            runSocketTimers(now: now)
        }
        // Only when playback has something due: copying the running app out and back for nothing cost
        // every request (each runs the timers first) a few thousand instructions.
        advanceMediaIfDue(now: now)
        if let due = app?.mirroring?.nextDeadline, due <= now { runMirroring { $0.tick(now: now) } }
    }

    /// Drops silent sockets and sends the PINGs due, in socket order.
    private mutating func runSocketTimers(now: Duration) {
        for socket in sockets.keys.sorted() {
            guard var state = sockets[socket] else { continue }
            if state.silenceDeadline(settings.heartbeat.silenceTimeout) <= now {
                record(.heartbeatTimeout, "no message for \(settings.heartbeat.silenceTimeout); socket closed", socket: socket)
                sockets[socket] = nil
                actions.append(.close(socket: socket, reason: "\(EmulatedReceiverViolation.Kind.heartbeatTimeout): no message for \(settings.heartbeat.silenceTimeout)"))
                continue
            }
            if let due = state.nextPing, due <= now {
                actions.append(send(["type": "PING"], from: Wire.heartbeatId, to: Wire.heartbeatId,
                                    namespace: Wire.heartbeat, socket: socket))
                var next = due + settings.heartbeat.pingInterval
                while next <= now { next += settings.heartbeat.pingInterval }
                state.nextPing = next
                sockets[socket] = state
            }
        }
    }

    /// Sends an app's outputs: replies to the requester, broadcasts to every sender connected to the app.
    mutating func deliver(_ outputs: [AppOutput], from app: AppAddress, namespace: String, requester: (socket: Int, sender: String)?) {
        for output in outputs {
            switch output {
            case .reply(let json):
                if let requester {
                    actions.append(send(json, from: app.transportId, to: requester.sender, namespace: namespace, socket: requester.socket))
                } else {
                    broadcast(json, from: app.transportId, namespace: namespace)
                }
            case .broadcast(let json):
                broadcast(json, from: app.transportId, namespace: namespace)
            case .broadcastText(let text):
                broadcast(text: text, from: app.transportId, namespace: namespace)
            case .fetch(var plan):
                plan.sessionId = app.sessionId
                if let requester {
                    fetchRequesters[FetchKey(sessionId: app.sessionId, token: plan.token)] = (requester.socket, requester.sender, exactRequestId)
                }
                actions.append(.fetch(plan))
            case .pendingReply(let token, let json):
                guard let held = fetchRequesters.removeValue(forKey: FetchKey(sessionId: app.sessionId, token: token)) else { continue }
                actions.append(.send(socket: held.socket, Envelope(
                    sourceId: app.transportId, destinationId: held.sender, namespace: namespace,
                    payload: .string(replyText(json, exactRequestId: held.exactRequestId)))))
            }
        }
    }
}
