import CastDiscoveryCore
import CastIntents
import CastJSON
import CastMediaMetadata
import CastEmulator
import CastTestSupport
import Castor
import CastorIntents
import Foundation
import Testing

/// An emulated receiver on loopback (TLS) with a Castor session on it. The receiver's clock is
/// manual, so positions are exact: a queue started at 120 s reports 120 s.
struct Device {
    let receiver: EmulatedReceiver
    let cast: Cast
    let clock: ManualClock

    static func start(reconnect: CastReconnectPolicy = .never) async throws -> Device {
        let clock = ManualClock()
        let id = UUID()
        let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(
            name: "Intents TV", id: id, clock: clock, replyLatency: .zero))
        try await receiver.start()
        let port = try #require(await receiver.port)
        let device = CastDevice(id: CastDeviceID(id), friendlyName: "Intents TV",
                                endpoints: [KnownHost(host: "127.0.0.1", port: port).endpoint])
        // A generous handshake bound: the whole test suite runs in parallel on few cores.
        let cast = Cast(configuration: CastConfiguration(reconnectPolicy: reconnect),
                        connector: TLSDeviceConnector(connectTimeout: .seconds(60)))
        try await cast.startSession(with: device)
        return Device(receiver: receiver, cast: cast, clock: clock)
    }

    /// The receiver's own media status entry (not the sender's view).
    var status: JSONValue? {
        get async { await receiver.mediaStatus?.arrayValue?.first }
    }

    /// The receiver's whole queue, as content ids in queue order: the item ids the receiver reports
    /// (QUEUE_GET_ITEM_IDS), each fetched from it (QUEUE_GET_ITEMS).
    func queueContentIds() async throws -> [String] {
        let player = try #require(cast.player)
        var ids: [String] = []
        for item in player.items {
            try await item.fetch()
            ids.append(try #require(item.asset?.mediaInformation.contentId))
        }
        return ids
    }

    func stop() async {
        await cast.endSession()
        #expect(await receiver.violations.isEmpty)
        await receiver.stop()
    }
}

/// A show with episodes, the app's library as the resolver and the bridge see it.
struct Podcast: Sendable {
    let show: MediaItem
    let episodes: [MediaItem]
    /// Episodes the app has no playable file for.
    var missingAssets: Set<String> = []
    /// Stored playback positions.
    var positions: [String: Duration] = [:]

    init(episodes count: Int, id: String = "show") throws {
        show = try MediaItem(identifier: id, title: "The Show", type: .podcastShow)
        episodes = try (1...count).map {
            try MediaItem(identifier: "\(id)-ep\($0)", title: "Episode \($0)", type: .podcastEpisode, containerIdentifier: id)
        }
    }

    static func url(_ identifier: String) -> String { "https://podcasts.example.com/\(identifier).mp3" }

    func resolver(store: any CastIntentStore, extra: [MediaItem] = []) -> MediaIntentResolver {
        var entries: [String: MediaLibraryEntry] = [show.identifier: MediaLibraryEntry(item: show, contents: episodes)]
        for item in episodes + extra { entries[item.identifier] = MediaLibraryEntry(item: item) }
        let library = entries
        return MediaIntentResolver(store: store) { library[$0] }
    }

    var assets: MediaAssetMapping {
        let missing = missingAssets
        let positions = positions
        return MediaAssetMapping { item in
            guard !missing.contains(item.identifier) else { return nil }
            let mime = item.type.mediaKind == .video ? "video/mp4" : "audio/mpeg"
            return .url(URL(string: Self.url(item.identifier))!, configuration: CastAssetURLConfiguration(mimeType: mime, duration: 1800),
                        metadata: CastMetadata(title: item.title ?? item.identifier))
        } resumePosition: { item in
            positions[item.identifier]
        }
    }
}


