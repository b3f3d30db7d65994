@testable import CastMPRIS
import CastDiscoveryCore
import CastMedia
import CastEmulator
import CastTestSupport
import CastCore
import Castor
import Foundation
import Synchronization
import Testing

/// Connects a `Cast` to in-process emulated receivers over in-memory transports.
private final class InMemoryConnector: CastDeviceConnector {
    private let receivers = Mutex<[CastDeviceID: EmulatedReceiver]>([:])

    func register(_ receiver: EmulatedReceiver, for device: CastDevice) {
        receivers.withLock { $0[device.id] = receiver }
    }

    func connect(to device: CastDevice) async throws -> any CastTransport {
        guard let receiver = receivers.withLock({ $0[device.id] }) else {
            throw CastTransportError(code: .connectFailed, message: "\(device.friendlyName) is unknown")
        }
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        await receiver.accept(receiverEnd)
        return senderEnd
    }
}

/// A session published by ``CastMPRISPlayer`` on a private bus, with the façade and the emulated
/// receiver on one ``ManualClock``; `dbus-monitor` (Debian's, a client we did not write) records
/// every signal on the MPRIS object path, in the order the bus delivered them.
private struct SignalLab {
    let bus: ChildProcess
    let monitor: ChildProcess
    let clock: ManualClock
    let cast: Cast
    let receiver: EmulatedReceiver
    let device: CastDevice

    static let daemon = ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let dbusMonitor = ["/usr/bin/dbus-monitor", "/bin/dbus-monitor"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let available = ProcessInfo.processInfo.environment["CI"] == "true" || (daemon != nil && dbusMonitor != nil)

    static func start(_ name: String, clock: ManualClock = ManualClock()) async throws -> (SignalLab, address: String) {
        let bus = try ChildProcess(try #require(daemon), ["--session", "--nofork", "--nopidfile", "--print-address=1"])
        let line = await bus.waitForLine { $0.hasPrefix("unix:") }
        let address = try #require(line, "dbus-daemon: \(bus.errorOutput)").trimmingCharacters(in: .whitespaces)
        let monitor = try ChildProcess(try #require(dbusMonitor),
                                       ["--address", address, "type='signal',path='/org/mpris/MediaPlayer2'"])
        // dbus-monitor prints the NameLost of becoming a monitor once it is attached.
        #expect(await monitor.waitForLine { $0.contains("member=NameLost") } != nil, "dbus-monitor: \(monitor.errorOutput)")
        let id = UUID()
        let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(name: name, id: id, clock: clock, replyLatency: .zero))
        let device = CastDevice(id: CastDeviceID(id), friendlyName: name)
        let connector = InMemoryConnector()
        connector.register(receiver, for: device)
        let cast = Cast(configuration: CastConfiguration(reconnectPolicy: .never), connector: connector, clock: clock)
        return (SignalLab(bus: bus, monitor: monitor, clock: clock, cast: cast, receiver: receiver, device: device), address)
    }

    /// Another emulated device and its façade, on the same clock.
    static func session(_ name: String, clock: ManualClock) -> (Cast, CastDevice) {
        let id = UUID()
        let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(name: name, id: id, clock: clock, replyLatency: .zero))
        let device = CastDevice(id: CastDeviceID(id), friendlyName: name)
        let connector = InMemoryConnector()
        connector.register(receiver, for: device)
        return (Cast(configuration: CastConfiguration(reconnectPolicy: .never), connector: connector, clock: clock), device)
    }

    /// The signals dbus-monitor printed so far: each header line with its argument lines.
    var signals: [String] {
        var result: [String] = []
        for line in monitor.output {
            if line.hasPrefix("signal ") { result.append(line) } else if !result.isEmpty { result[result.count - 1] += "\n" + line }
        }
        return result.filter { !$0.contains("interface=org.freedesktop.DBus;") }
    }

    /// Waits until dbus-monitor printed `count` lines containing `text`; the signals up to then.
    func waitForSignal(containing text: String, count: Int = 1) async -> [String] {
        let seen = Mutex(0)
        _ = await monitor.waitForLine { line in
            guard line.contains(text) else { return false }
            return seen.withLock { $0 += 1; return $0 >= count }
        }
        return signals
    }

    func stop() async {
        await cast.endSession()
        _ = await monitor.terminate()
        _ = await bus.terminate()
    }
}

/// `Seeked` is emitted for a jump of the position (a seek by anyone), never for playback moving
/// it: the façade, the receiver and the player's stopwatch share one manual clock, so playback
/// time passes exactly as the test says, without any timing in the test.
@Suite("MPRIS signals on a manual clock", .serialized, .timeLimit(.minutes(1)))  // a safety net against a hang, not a timing check
struct PlayerSignalTests {
    static let movie = CastAsset.url(URL(string: "https://example.com/movie.mp4")!,
                                     configuration: CastAssetURLConfiguration(mimeType: "video/mp4", duration: 600),
                                     metadata: .init(title: "Movie"))

    /// Moves the shared clock by `seconds` in one step (less than the 5 s heartbeat interval, so no
    /// heartbeat falls due; and no reading of the façade in between can split the elapsed time).
    func advance(_ clock: ManualClock, seconds: Int) async {
        await clock.advance(by: .seconds(seconds))
    }

    @Test("Playback moving the position is no Seeked; a seek is, with the new position; a paused position stays put",
          .enabled(if: SignalLab.available, "needs dbus-daemon and dbus-monitor (apt-get install dbus)"))
    func seekedOnJumpsOnly() async throws {
        let (lab, address) = try await SignalLab.start("Signal TV")
        try await lab.cast.startSession(with: lab.device)
        let player = try #require(lab.cast.player)
        try await player.loadItems(from: [Self.movie])

        let mpris = CastMPRISPlayer(cast: lab.cast, configuration: CastMPRISConfiguration(bus: .address(address), instanceName: "signals"))
        let running = Task { try await mpris.run() }
        var names = mpris.busNames.makeAsyncIterator()
        while let name = await names.next() { if name != nil { break } }

        // 4 s of playback, then a status (the repeat mode changes): the position moved by exactly
        // the elapsed time, so only PropertiesChanged (LoopStatus) is signalled.
        await advance(lab.clock, seconds: 4)
        try await player.setRepeatMode(.all)
        var signals = await lab.waitForSignal(containing: "string \"Playlist\"")
        #expect(player.mediaStatus?.currentTime == 4)
        #expect(!signals.contains { $0.contains("member=Seeked") }, "\(signals)")

        // A seek: Seeked with the new position in microseconds.
        try await player.seek(to: .seconds(100))
        _ = await lab.waitForSignal(containing: "member=Seeked")
        _ = await lab.monitor.waitForLine { $0.hasPrefix("   int64 ") }  // the signal's argument, on the next line
        signals = lab.signals
        let seeked = try #require(signals.last { $0.contains("member=Seeked") })
        #expect(seeked.contains("int64 100000000"), "\(seeked)")

        // Paused, time passes: the position stays at 100 s, so again no Seeked.
        try await player.pause()
        _ = await lab.waitForSignal(containing: "string \"Paused\"")
        await advance(lab.clock, seconds: 4)
        try await player.setRepeatMode(.off)
        signals = await lab.waitForSignal(containing: "string \"None\"")
        #expect(signals.filter { $0.contains("member=Seeked") }.count == 1, "\(signals)")
        #expect(player.mediaStatus?.currentTime == 100)

        running.cancel()
        try await running.value
        await lab.stop()
    }

    static let playerctlPath = ["/usr/bin/playerctl", "/bin/playerctl"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs Debian's playerctl on the bus at `address`; its trimmed output.
    @discardableResult
    func playerctl(_ address: String, _ arguments: [String]) async throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        let child = try ChildProcess(try #require(Self.playerctlPath), arguments, environment: environment)
        #expect(await child.waitForExit() == 0, "playerctl \(arguments): \(child.errorOutput)")
        return child.output.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("Two sessions in one process, two players: each under its own name with its own track, driven on its own",
          .enabled(if: SignalLab.available && (ProcessInfo.processInfo.environment["CI"] == "true" || playerctlPath != nil),
                   "needs dbus-daemon, dbus-monitor and playerctl"))
    func everySessionItsOwnPlayer() async throws {
        let (lab, address) = try await SignalLab.start("Kitchen")
        let (lounge, loungeDevice) = SignalLab.session("Lounge", clock: lab.clock)
        try await lab.cast.startSession(with: lab.device)
        try await lounge.startSession(with: loungeDevice)
        let kitchenPlayer = try #require(lab.cast.player), loungePlayer = try #require(lounge.player)
        try await kitchenPlayer.loadItems(from: [Self.movie])
        try await loungePlayer.loadItems(from: [.url(URL(string: "https://example.com/song.mp3")!,
                                                     configuration: CastAssetURLConfiguration(mimeType: "audio/mpeg", duration: 180),
                                                     metadata: .init(title: "Song"))])

        let players = [CastMPRISPlayer(cast: lab.cast, configuration: CastMPRISConfiguration(bus: .address(address))),
                       CastMPRISPlayer(cast: lounge, configuration: CastMPRISConfiguration(bus: .address(address)))]
        let running = players.map { player in Task { try await player.run() } }
        var names: [String] = []
        for player in players {
            var updates = player.busNames.makeAsyncIterator()
            while let name = await updates.next() { if let name { names.append(name); break } }
        }
        // The default names come from the device ids: different devices, different players.
        #expect(names[0] != names[1])
        #expect(try players.map { try $0.busName(for: $0.cast.currentDevice!) } == names)
        let list = try await playerctl(address, ["--list-all"]).split(separator: "\n").map(String.init)
        let short = names.map { String($0.dropFirst("org.mpris.MediaPlayer2.".count)) }
        #expect(Set(list) == Set(short), "\(list)")
        #expect(try await playerctl(address, ["--player", short[0], "metadata", "--format", "{{xesam:title}} {{mpris:length}}"]) == "Movie 600000000")
        #expect(try await playerctl(address, ["--player", short[1], "metadata", "--format", "{{xesam:title}} {{mpris:length}}"]) == "Song 180000000")

        // Pausing one pauses that device only.
        try await playerctl(address, ["--player", short[1], "pause"])
        #expect(loungePlayer.mediaStatus?.playerState == .paused)
        #expect(kitchenPlayer.mediaStatus?.playerState == .playing)
        #expect(try await playerctl(address, ["--player", short[0], "status"]) == "Playing")
        #expect(try await playerctl(address, ["--player", short[1], "status"]) == "Paused")

        // One session ends: its player leaves the bus, the other stays.
        await lounge.endSession()
        var loungeNames = players[1].busNames.makeAsyncIterator()
        while let name = await loungeNames.next() { if name == nil { break } }
        #expect(try await playerctl(address, ["--list-all"]) == short[0])

        for task in running { task.cancel() }
        for task in running { try await task.value }
        await lab.stop()
    }

    static let dbusSendPath = ["/usr/bin/dbus-send", "/bin/dbus-send"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Calls `member` on the player with Debian's `dbus-send`; the printed reply.
    func dbusSend(_ address: String, _ name: String, _ member: String, _ arguments: [String] = []) async throws -> String {
        // --session with the address in the environment: with --address, dbus-send does not register
        // on the bus, so no reply can reach it.
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        let child = try ChildProcess(try #require(Self.dbusSendPath), ["--session", "--print-reply", "--dest=\(name)",
                                                                        "/org/mpris/MediaPlayer2", member] + arguments, environment: environment)
        #expect(await child.waitForExit() == 0, "dbus-send \(member): \(child.errorOutput)")
        return child.output.joined(separator: "\n")
    }

    /// The quoted values after `prefix` in dbus-send's output, in order.
    func values(_ text: String, after prefix: String) -> [String] {
        text.components(separatedBy: prefix + " \"").dropFirst().compactMap { $0.split(separator: "\"", maxSplits: 1).first.map(String.init) }
    }

    @Test("GetTracksMetadata fetches the queue items nobody fetched yet: every track asked about has its title, in batches",
          .enabled(if: SignalLab.available && (ProcessInfo.processInfo.environment["CI"] == "true" || dbusSendPath != nil),
                   "needs dbus-daemon, dbus-monitor and dbus-send"))
    func trackMetadataFetchesWhatIsMissing() async throws {
        let (lab, address) = try await SignalLab.start("Long Queue TV")
        try await lab.cast.startSession(with: lab.device)
        let player = try #require(lab.cast.player)
        // More items than one QUEUE_GET_ITEMS batch (20), none fetched by the sender.
        let songs = (1...30).map { n in
            CastAsset.url(URL(string: "https://example.com/song\(n).mp3")!,
                          configuration: CastAssetURLConfiguration(mimeType: "audio/mpeg", duration: 180), metadata: .init(title: "Song \(n)"))
        }
        try await player.loadItems(from: songs)
        try #require(player.items.count == 30)
        let fetchedBefore = player.items.filter(\.isFetched).count
        #expect(fetchedBefore < 30, "the status's window alone")

        let mpris = CastMPRISPlayer(cast: lab.cast, configuration: CastMPRISConfiguration(bus: .address(address), instanceName: "longqueue"))
        let running = Task { try await mpris.run() }
        var names = mpris.busNames.makeAsyncIterator()
        var published: String?
        while let name = await names.next() { if let name { published = name; break } }
        let name = try #require(published)

        let property = ["string:org.mpris.MediaPlayer2.TrackList", "string:Tracks"]
        let tracks = values(try await dbusSend(address, name, "org.freedesktop.DBus.Properties.Get", property), after: "object path")
        try #require(tracks.count == 30)
        let metadata = try await dbusSend(address, name, "org.mpris.MediaPlayer2.TrackList.GetTracksMetadata",
                                          ["array:objpath:" + tracks.reversed().joined(separator: ",")])
        let titles = values(metadata, after: "string").filter { $0.hasPrefix("Song ") }
        // Every track, in the order asked, with the title the receiver's queue holds.
        #expect(titles == (1...30).reversed().map { "Song \($0)" }, "\(metadata)")
        #expect(player.items.filter(\.isFetched).count == 30)

        running.cancel()
        try await running.value
        await lab.stop()
    }

    @Test("The queue as org.mpris.MediaPlayer2.TrackList, read and edited with dbus-send: Tracks, GetTracksMetadata, GoTo, AddTrack, RemoveTrack",
          .enabled(if: SignalLab.available && (ProcessInfo.processInfo.environment["CI"] == "true" || dbusSendPath != nil),
                   "needs dbus-daemon, dbus-monitor and dbus-send"))
    func trackListShowsAndEditsTheQueue() async throws {
        let (lab, address) = try await SignalLab.start("Queue TV")
        try await lab.cast.startSession(with: lab.device)
        let player = try #require(lab.cast.player)
        let movies = (1...3).map { n in
            CastAsset.url(URL(string: "https://example.com/movie\(n).mp4")!,
                          configuration: CastAssetURLConfiguration(mimeType: "video/mp4", duration: 600), metadata: .init(title: "Movie \(n)"))
        }
        try await player.loadItems(from: movies)
        // The façade fetches queue items on demand; a program showing the whole queue asks for them.
        #expect(player.items.count == 3)
        for item in player.items { _ = try await item.fetch() }

        let mpris = CastMPRISPlayer(cast: lab.cast, configuration: CastMPRISConfiguration(bus: .address(address), instanceName: "queue"))
        let running = Task { try await mpris.run() }
        var names = mpris.busNames.makeAsyncIterator()
        var published: String?
        while let name = await names.next() { if let name { published = name; break } }
        let name = try #require(published)

        let property = ["string:org.mpris.MediaPlayer2.TrackList", "string:Tracks"]
        let tracks = values(try await dbusSend(address, name, "org.freedesktop.DBus.Properties.Get", property), after: "object path")
        try #require(tracks.count == 3)
        let metadata = try await dbusSend(address, name, "org.mpris.MediaPlayer2.TrackList.GetTracksMetadata",
                                          ["array:objpath:" + tracks.reversed().joined(separator: ",")])
        #expect(values(metadata, after: "string").filter { $0.hasPrefix("Movie ") } == ["Movie 3", "Movie 2", "Movie 1"], "\(metadata)")

        // GoTo the third track: the receiver plays it.
        _ = try await dbusSend(address, name, "org.mpris.MediaPlayer2.TrackList.GoTo", ["objpath:" + tracks[2]])
        #expect(player.currentItem?.id == player.items.last?.id)
        #expect(player.mediaStatus?.media?.metadata?.title == "Movie 3")

        // AddTrack after the first one, RemoveTrack the second: the queue changes, TrackListReplaced says so.
        _ = try await dbusSend(address, name, "org.mpris.MediaPlayer2.TrackList.AddTrack",
                               ["string:https://example.com/extra.mp3", "objpath:" + tracks[0], "boolean:false"])
        #expect(player.items.count == 4)
        _ = await lab.waitForSignal(containing: "member=TrackListReplaced")
        _ = try await dbusSend(address, name, "org.mpris.MediaPlayer2.TrackList.RemoveTrack", ["objpath:" + tracks[1]])
        #expect(player.items.count == 3)
        let after = values(try await dbusSend(address, name, "org.freedesktop.DBus.Properties.Get", property), after: "object path")
        #expect(after.count == 3 && !after.contains(tracks[1]), "\(after)")
        #expect(player.items.map { $0.queueItem?.media?.contentId } .contains("https://example.com/movie2.mp4") == false)

        running.cancel()
        try await running.value
        await lab.stop()
    }
}
