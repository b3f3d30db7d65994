import CastChannels
import CastDiscoveryCore
import CastJSON
import CastMedia
import CastMediaMetadata
import CastEmulator
import CastTestSupport
import CastTLS
import CastctlKit
import Castor
import Foundation
import Synchronization
import Testing

/// An emulated receiver on loopback (real TLS) whose playback runs on a manual clock, so positions are exact.
struct AnnounceRig {
    let receiver: EmulatedReceiver
    let clock: ManualClock
    let device: CastDevice
    let port: Int
    let members: [EmulatedReceiverGroupMember]

    static func start(members: [EmulatedReceiverGroupMember] = []) async throws -> AnnounceRig {
        let clock = ManualClock()
        let id = UUID()
        let kind: EmulatedReceiverDeviceKind = members.isEmpty ? .video : .group(members: members)
        let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(
            name: "Announce TV", id: id, kind: kind, clock: clock, replyLatency: .zero, volumeLevel: 0.5))
        try await receiver.start()
        let port = try #require(await receiver.port)
        let device = CastDevice(id: CastDeviceID(id), friendlyName: "Announce TV", endpoints: [KnownHost(host: "127.0.0.1", port: port).endpoint])
        return AnnounceRig(receiver: receiver, clock: clock, device: device, port: port, members: members)
    }

    /// A façade on the rig's device; `manual` puts its timers and position extrapolation on the rig's clock.
    func cast(manual: Bool) -> Cast {
        // A generous handshake bound: tests run next to others on few cores.
        Cast(configuration: CastConfiguration(reconnectPolicy: .never), connector: TLSDeviceConnector(connectTimeout: .seconds(60)),
             clock: manual ? clock : ContinuousClock())
    }

    /// The receiver status, read on a connection of its own (as castctl does before announcing).
    func receiverStatus() async throws -> ReceiverStatus {
        let transport = try await TLSCastTransport.connect(host: "127.0.0.1", port: port, configuration: .init(connectTimeout: .seconds(60)))
        let connection = CastConnection(transport: transport)
        let status = try await connection.start()
        await connection.close()
        return status
    }

    /// The receiver's own media status entry and device volume (not a sender's view).
    var mediaStatus: JSONValue? { get async { await receiver.mediaStatus?.arrayValue?.first } }
    var volume: Double? { get async { await receiver.receiverStatus["volume"]?["level"]?.doubleValue } }

    static func item(_ n: Int, track: Bool = false) -> CastAsset {
        var asset = CastAsset.url(URL(string: "http://127.0.0.1:9/item\(n).mp4")!,
                                  configuration: CastAssetURLConfiguration(mimeType: "video/mp4", duration: 600),
                                  metadata: CastMetadata(title: "Item \(n)"))
        if track { asset.tracks = [MediaTrack.text(id: 1, contentId: "http://127.0.0.1:9/item\(n).vtt", name: "English", language: "en")] }
        return asset
    }

    static let chime = CastAsset.url(URL(string: "http://127.0.0.1:9/chime.wav")!,
                                     configuration: CastAssetURLConfiguration(mimeType: "audio/wav", duration: 5),
                                     metadata: CastMetadata(title: "Announcement"))
}

/// Whether a volume level is `expected`, up to the Float the façade's volume API carries (0.3 is 0.30000001192 as a Float).
func close(_ level: Double?, _ expected: Double) -> Bool {
    guard let level else { return false }
    return abs(level - expected) < 1e-6
}

/// Records the announcer's steps and wakes waiters on each.
final class Steps: Sendable {
    private let steps = Mutex<[String]>([])
    var all: [String] { steps.withLock { $0 } }
    func record(_ step: AnnouncerProgress) {
        let name: String
        switch step {
        case .saved: name = "saved"
        case .playing: name = "playing"
        case .ended: name = "ended"
        case .restored: name = "restored"
        }
        steps.withLock { $0.append(name) }
        ChangeSignal.shared.bump()
    }
    func wait(for step: String) async throws {
        let reached = await ChangeSignal.shared.wait(for: { all.contains(step) }, until: .now + .seconds(60))
        try #require(reached, "the announcer never reached “\(step)”: \(all)")
    }
}

@Suite("Announcements on the emulated receiver", .serialized)
struct AnnouncerTests {
    /// The done-when: a three-item queue plays item 2 at 30 s, rate 1.5, a text track on, volume 0.3;
    /// 4 s later (36 s of the item) an announcement plays at volume 0.8 for its 5 s; afterwards item 2 plays
    /// at 36 s, rate 1.5, the track on, volume 0.3 — read from the receiver itself.
    @Test func afterTheAnnouncementTheQueueItemPositionRateTrackAndVolumeAreBack() async throws {
        let rig = try await AnnounceRig.start()
        // Another sender (the user's player) sets the scene, then leaves.
        let other = rig.cast(manual: false)
        try await other.startSession(with: rig.device)
        var options = CastLoadOptions(index: 1, time: .seconds(30), shouldPlay: true, playbackSpeed: 1.5)
        options.activeTrackIds = [1]
        try await #require(other.player).loadItems(from: [AnnounceRig.item(1), AnnounceRig.item(2, track: true), AnnounceRig.item(3)],
                                                   with: options)
        try await #require(other.deviceManager()).setVolume(0.3)
        await other.endSession(stoppingReceiverApp: false)
        await rig.clock.advance(by: .seconds(4))
        let before = try #require(await rig.mediaStatus)
        #expect(before["currentTime"]?.doubleValue == 36)

        let cast = rig.cast(manual: true)
        let steps = Steps()
        let announcer = Announcer(cast: cast, device: rig.device, clock: rig.clock, joinTimeout: .seconds(60))
        let status = try await rig.receiverStatus()
        let running = Task {
            try await announcer.announce(Announcement(asset: AnnounceRig.chime, volume: 0.8, waitLimit: .seconds(60)),
                                         receiverStatus: status) { steps.record($0) }
        }
        try await steps.wait(for: "playing")
        let playing = try #require(await rig.mediaStatus)
        #expect(playing["media"]?["contentId"] == "http://127.0.0.1:9/chime.wav")
        #expect(close(await rig.volume, 0.8))
        await rig.clock.advance(by: .seconds(5))  // the chime plays to its end
        let report = try await running.value
        #expect(steps.all == ["saved", "playing", "ended", "restored"])
        #expect(report.end == .finished)
        #expect(report.before.playback?.options.index == 1)
        #expect(report.before.volume == DeviceSnapshot.Volume(level: 0.3, muted: false))

        let after = try #require(await rig.mediaStatus)
        #expect(after["media"]?["contentId"] == "http://127.0.0.1:9/item2.mp4")
        let position = try #require(after["currentTime"]?.doubleValue)
        #expect(abs(position - 36) < 1, "resumed at \(position) s, not 36 s")
        #expect(after["playbackRate"] == 1.5)
        #expect(after["playerState"] == "PLAYING")
        #expect(after["activeTrackIds"]?.arrayValue?.compactMap(\.doubleValue) == [1])
        #expect(close(await rig.volume, 0.3))
        // The whole queue is back, in order, with item 2 current.
        let viewer = rig.cast(manual: false)
        try await viewer.joinSession(with: rig.device)
        let player = try #require(viewer.player)
        try await player.fetchItems(player.items)
        #expect(player.items.compactMap { $0.asset?.mediaInformation.contentId }
            == ["http://127.0.0.1:9/item1.mp4", "http://127.0.0.1:9/item2.mp4", "http://127.0.0.1:9/item3.mp4"])
        #expect(player.currentItem?.asset?.mediaInformation.contentId == "http://127.0.0.1:9/item2.mp4")
        await viewer.endSession(stoppingReceiverApp: false)
        // Every request named a live session: the queue model's background fetches yield to the
        // announcement's LOAD instead of naming the session it replaces.
        let violations = await rig.receiver.violations
        #expect(violations.isEmpty, "\(violations)")
        await rig.receiver.stop()
    }

    /// Paused content comes back paused; Ctrl-C (an interruption) cuts the announcement short.
    @Test func anInterruptedAnnouncementRestoresPausedContentPaused() async throws {
        let rig = try await AnnounceRig.start()
        let other = rig.cast(manual: false)
        try await other.startSession(with: rig.device)
        try await #require(other.player).loadItems(from: [AnnounceRig.item(1), AnnounceRig.item(2)],
                                                   with: CastLoadOptions(index: 0, time: .seconds(12), shouldPlay: false))
        await other.endSession(stoppingReceiverApp: false)

        let cast = rig.cast(manual: true)
        let steps = Steps()
        let (interruptions, interrupt) = AsyncStream<Void>.makeStream()
        let status = try await rig.receiverStatus()
        let running = Task {
            try await Announcer(cast: cast, device: rig.device, clock: rig.clock, joinTimeout: .seconds(60))
                .announce(Announcement(asset: AnnounceRig.chime), receiverStatus: status, interruptions: interruptions) { steps.record($0) }
        }
        try await steps.wait(for: "playing")
        interrupt.yield()
        let report = try await running.value
        #expect(report.end == .interrupted)
        let after = try #require(await rig.mediaStatus)
        #expect(after["media"]?["contentId"] == "http://127.0.0.1:9/item1.mp4")
        #expect(after["playerState"] == "PAUSED")
        #expect(after["currentTime"] == 12)
        #expect(close(await rig.volume, 0.5))
        await rig.receiver.stop()
    }

    /// With nothing running, the announcement just plays, and the app is stopped again afterwards.
    @Test func withNothingPlayingItJustPlaysAndLeavesTheDeviceIdle() async throws {
        let rig = try await AnnounceRig.start()
        let cast = rig.cast(manual: true)
        let steps = Steps()
        let status = try await rig.receiverStatus()
        #expect(CastctlSessions.mediaApp(in: status) == nil)
        let running = Task {
            try await Announcer(cast: cast, device: rig.device, clock: rig.clock, joinTimeout: .seconds(60))
                .announce(Announcement(asset: AnnounceRig.chime, volume: 0.9), receiverStatus: status) { steps.record($0) }
        }
        try await steps.wait(for: "playing")
        #expect(close(await rig.volume, 0.9))
        await rig.clock.advance(by: .seconds(5))
        let report = try await running.value
        #expect(report.before.playback == nil)
        #expect(report.end == .finished)
        #expect(report.stoppedApp)
        let apps = await rig.receiver.receiverStatus["applications"]?.arrayValue ?? []
        #expect(apps.allSatisfy { $0["isIdleScreen"] == true }, "\(apps)")
        #expect(close(await rig.volume, 0.5))
        await rig.receiver.stop()
    }

    /// On a group: the announcement plays on the group, the group's volume and what played come back,
    /// and each member's volume is saved; a member whose volume moved is set back where the group
    /// allows it (the emulator's groups take no SET_DEVICE_VOLUME: that is a note, not a failure).
    @Test func onAGroupTheGroupAnnouncesAndComesBack() async throws {
        let kitchen = EmulatedReceiverGroupMember(name: "Kitchen speaker", volumeLevel: 0.25)
        let den = EmulatedReceiverGroupMember(name: "Den speaker", volumeLevel: 0.6, isMuted: true)
        let rig = try await AnnounceRig.start(members: [kitchen, den])
        let other = rig.cast(manual: false)
        try await other.startSession(with: rig.device)
        try await #require(other.player).loadItems(from: [AnnounceRig.item(1)], with: CastLoadOptions(time: .seconds(100)))
        await other.endSession(stoppingReceiverApp: false)

        let cast = rig.cast(manual: true)
        let steps = Steps()
        let status = try await rig.receiverStatus()
        let running = Task {
            try await Announcer(cast: cast, device: rig.device, clock: rig.clock, joinTimeout: .seconds(60))
                .announce(Announcement(asset: AnnounceRig.chime, volume: 0.7), receiverStatus: status) { steps.record($0) }
        }
        try await steps.wait(for: "playing")
        #expect(close(await rig.volume, 0.7))
        #expect(await rig.receiver.setMemberVolume(id: kitchen.id, level: 0.9))
        await rig.clock.advance(by: .seconds(5))
        let report = try await running.value
        #expect(report.end == .finished)
        let saved = Dictionary(uniqueKeysWithValues: report.before.members.map { ($0.name, $0.volume) })
        #expect(saved["Kitchen speaker"] == DeviceSnapshot.Volume(level: 0.25, muted: false))
        #expect(saved["Den speaker"] == DeviceSnapshot.Volume(level: 0.6, muted: true))
        #expect(report.notes == ["the volume of Kitchen speaker was not set back: The receiver does not implement SET_DEVICE_VOLUME"])
        #expect(close(await rig.volume, 0.5))
        let members = try await multizoneMembers(rig)
        #expect(close(members[den.id.uuidString.lowercased()]?.level, 0.6))  // untouched: nothing was sent for it
        let after = try #require(await rig.mediaStatus)
        #expect(after["media"]?["contentId"] == "http://127.0.0.1:9/item1.mp4" && after["currentTime"] == 100)
        await rig.receiver.stop()
    }

    /// The members' volumes as the receiver reports them (MULTIZONE GET_STATUS on a connection of its own).
    func multizoneMembers(_ rig: AnnounceRig) async throws -> [String: (level: Double?, muted: Bool?)] {
        let cast = rig.cast(manual: false)
        try await cast.joinSession(with: rig.device)
        let reached = await ChangeSignal.shared.wait(for: { cast.multizoneDevices.count == rig.members.count }, until: .now + .seconds(30))
        try #require(reached)
        var result: [String: (level: Double?, muted: Bool?)] = [:]
        for member in cast.multizoneDevices {
            let manager = try #require(cast.deviceManager(forMultizoneDevice: member))
            result[member.id.lowercased()] = (Double(manager.volume), manager.isMuted)
        }
        await cast.endSession(stoppingReceiverApp: false)
        return result
    }
}
