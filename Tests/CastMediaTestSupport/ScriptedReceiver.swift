import CastChannels
import CastJSON
import CastTestSupport
import CastCore
import Foundation
import Synchronization

/// A small scripted Cast receiver on the far end of an in-memory transport: it answers the
/// platform channel (GET_STATUS, LAUNCH, heartbeat) and runs a Default-Media-Receiver-like media
/// app with a queue, so the sender's media and queue commands can be tested end to end.
public final class ScriptedReceiver: Sendable {
    public static let transportId = "web-7"
    public static let media = "urn:x-cast:com.google.cast.media"
    public static let receiver = "urn:x-cast:com.google.cast.receiver"

    public struct Item: Sendable {
        public var id: Int
        public var json: JSONValue
    }

    public struct MediaState: Sendable {
        public var sessionId = 0
        public var hasSession = false
        public var playerState = "IDLE"
        public var idleReason: String?
        public var currentTime = 0.0
        public var playbackRate = 1.0
        public var activeTrackIds: [Int] = []
        public var media: JSONValue?
        public var items: [Item] = []
        public var currentItemId: Int?
        public var nextItemId = 1
        public var repeatMode = "REPEAT_OFF"
        public var volume: JSONValue = ["level": 1, "muted": false]
        public var textTrackStyle: JSONValue?
    }

    /// Requests the media app received, in order.
    public let requests = Mutex<[JSONValue]>([])
    public let state = Mutex(MediaState())
    /// Request types the app does not answer at all (to test deadlines).
    public let silentTypes = Mutex<Set<String>>([])
    public let transport: InMemoryCastTransport
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let launched = Mutex(false)

    public init(transport: InMemoryCastTransport, launched: Bool = true) {
        self.transport = transport
        self.launched.withLock { $0 = launched }
        let task = Task { [weak self] in
            do {
                for try await message in transport.inbound {
                    guard let self else { return }
                    await self.handle(message)
                    // What it recorded and answered is visible now: conditions on it are re-checked.
                    ChangeSignal.shared.bump()
                }
            } catch {}
        }
        self.task.withLock { $0 = task }
    }

    public func stop() { task.withLock { $0?.cancel() } }

    /// Media requests of one type.
    public func requests(ofType type: String) -> [JSONValue] {
        requests.withLock { $0.filter { $0["type"]?.stringValue == type } }
    }

    public var itemIds: [Int] { state.withLock { $0.items.map(\.id) } }

    // MARK: - Dispatch

    private func handle(_ message: CastMessage) async {
        guard let json = message.json else { return }
        let type = json["type"]?.stringValue ?? ""
        switch message.namespace {
        case "urn:x-cast:com.google.cast.tp.heartbeat" where type == "PING":
            await send(["type": "PONG"], namespace: message.namespace, to: message.sourceId, from: message.destinationId)
        case Self.receiver:
            await handleReceiver(json, from: message.sourceId)
        case Self.media where message.destinationId == Self.transportId:
            requests.withLock { $0.append(json) }
            ChangeSignal.shared.bump()
            if silentTypes.withLock({ $0.contains(type) }) { return }
            let replies = state.withLock { state in Self.handleMedia(json, state: &state) }
            for reply in replies {
                await send(reply.json, namespace: Self.media, to: reply.broadcast ? "*" : message.sourceId, from: Self.transportId)
            }
        default:
            break
        }
    }

    private func handleReceiver(_ json: JSONValue, from sender: String) async {
        let requestId = json["requestId"] ?? 0
        switch json["type"]?.stringValue {
        case "GET_STATUS":
            await send(receiverStatus(requestId: requestId), namespace: Self.receiver, to: sender, from: "receiver-0")
        case "LAUNCH":
            launched.withLock { $0 = true }
            await send(receiverStatus(requestId: requestId), namespace: Self.receiver, to: sender, from: "receiver-0")
        default:
            break
        }
    }

    private func receiverStatus(requestId: JSONValue) -> JSONValue {
        var applications: [JSONValue] = []
        if launched.withLock({ $0 }) {
            applications.append([
                "appId": "CC1AD845", "displayName": "Default Media Receiver", "sessionId": "session-1",
                "transportId": .string(Self.transportId), "statusText": "Ready",
                "namespaces": [["name": .string(Self.media)]],
            ])
        }
        return ["type": "RECEIVER_STATUS", "requestId": requestId,
                "status": ["applications": .array(applications), "volume": ["level": 1, "muted": false]]]
    }

    public func send(_ json: JSONValue, namespace: String, to destination: String, from source: String) async {
        try? transport.send(CastMessage(sourceId: source, destinationId: destination, namespace: namespace, json: json))
    }

    /// Stops the media app and tells every sender (RECEIVER_STATUS without it).
    public func stopApp() async {
        launched.withLock { $0 = false }
        state.withLock { $0 = MediaState() }
        await send(receiverStatus(requestId: 0), namespace: Self.receiver, to: "*", from: "receiver-0")
    }

    /// Pushes a status to every sender, as when another sender changed something.
    public func broadcastStatus(_ change: @Sendable (inout MediaState) -> Void) async {
        let status = state.withLock { state in
            change(&state)
            return Self.statusMessage(state, requestId: 0)
        }
        await send(status, namespace: Self.media, to: "*", from: Self.transportId)
    }

    // MARK: - The media app

    struct Reply {
        var json: JSONValue
        var broadcast = false
    }

    static func statusMessage(_ state: MediaState, requestId: JSONValue) -> JSONValue {
        guard state.hasSession else { return ["type": "MEDIA_STATUS", "requestId": requestId, "status": []] }
        var status: JSONValue = [
            "mediaSessionId": .number(Double(state.sessionId)), "playerState": .string(state.playerState),
            "currentTime": .number(state.currentTime), "playbackRate": .number(state.playbackRate),
            "supportedMediaCommands": 12303, "volume": state.volume, "repeatMode": .string(state.repeatMode),
            "activeTrackIds": .array(state.activeTrackIds.map { .number(Double($0)) }),
        ]
        status["idleReason"] = state.idleReason.map(JSONValue.string)
        if var media = state.media {
            media["textTrackStyle"] = state.textTrackStyle ?? media["textTrackStyle"]
            status["media"] = media
        }
        if let current = state.currentItemId, let index = state.items.firstIndex(where: { $0.id == current }) {
            status["currentItemId"] = .number(Double(current))
            let window = state.items[max(0, index - 1)...min(state.items.count - 1, index + 1)]
            status["items"] = .array(window.map(\.json))
        }
        return ["type": "MEDIA_STATUS", "requestId": requestId, "status": [status]]
    }

    static func error(_ type: String, _ requestId: JSONValue, reason: String? = nil, detailed: Int? = nil) -> [Reply] {
        var json: JSONValue = ["type": .string(type), "requestId": requestId]
        json["reason"] = reason.map(JSONValue.string)
        json["detailedErrorCode"] = detailed.map { .number(Double($0)) }
        return [Reply(json: json)]
    }

    static func makeCurrent(_ id: Int?, state: inout MediaState, autoplay: Bool = true) {
        state.currentItemId = id
        guard let id, let item = state.items.first(where: { $0.id == id }) else {
            state.playerState = "IDLE"
            state.idleReason = "FINISHED"
            state.media = nil
            return
        }
        state.media = item.json["media"]
        state.currentTime = item.json["startTime"]?.doubleValue ?? 0
        state.playerState = autoplay ? "PLAYING" : "PAUSED"
        state.idleReason = nil
    }

    static func newItems(_ json: JSONValue?, state: inout MediaState) -> [Item]? {
        guard let array = json?.arrayValue else { return nil }
        var items: [Item] = []
        for var item in array {
            guard item["itemId"] == nil, item["media"]?["contentId"] != nil else { return nil }
            item["itemId"] = .number(Double(state.nextItemId))
            items.append(Item(id: state.nextItemId, json: item))
            state.nextItemId += 1
        }
        return items
    }

    static func queueChange(_ type: String, ids: [Int], insertBefore: Int? = nil) -> Reply {
        var json: JSONValue = ["type": "QUEUE_CHANGE", "changeType": .string(type), "itemIds": .array(ids.map { .number(Double($0)) })]
        json["insertBefore"] = insertBefore.map { .number(Double($0)) }
        return Reply(json: json, broadcast: true)
    }

    static func handleMedia(_ json: JSONValue, state: inout MediaState) -> [Reply] {
        let requestId = json["requestId"] ?? 0
        let type = json["type"]?.stringValue ?? ""
        let status = { (state: MediaState) in Reply(json: statusMessage(state, requestId: requestId)) }
        let sessionFree: Set<String> = ["LOAD", "QUEUE_LOAD", "GET_STATUS"]
        if !sessionFree.contains(type) {
            guard state.hasSession, json["mediaSessionId"]?.intValue == state.sessionId else {
                return error("INVALID_REQUEST", requestId, reason: "INVALID_MEDIA_SESSION_ID")
            }
        }
        switch type {
        case "GET_STATUS":
            return [status(state)]
        case "LOAD", "QUEUE_LOAD":
            let itemsJSON: JSONValue? = type == "LOAD"
                ? [["media": json["media"] ?? .null, "autoplay": json["autoplay"] ?? true]] : json["items"]
            if let contentId = json["media"]?["contentId"]?.stringValue, contentId.contains("fail") {
                state.hasSession = false
                return error("LOAD_FAILED", requestId, detailed: 104) + [Reply(json: statusMessage(state, requestId: 0))]
            }
            var scratch = state
            guard let items = newItems(itemsJSON, state: &scratch), !items.isEmpty else {
                return error("INVALID_REQUEST", requestId, reason: "INVALID_PARAMS")
            }
            state = scratch
            state.sessionId += 1
            state.hasSession = true
            state.items = items
            state.repeatMode = json["repeatMode"]?.stringValue ?? "REPEAT_OFF"
            state.activeTrackIds = (json["activeTrackIds"]?.arrayValue ?? []).compactMap(\.intValue)
            state.playbackRate = json["playbackRate"]?.doubleValue ?? 1
            let start = json["startIndex"]?.intValue ?? 0
            makeCurrent(items[min(max(0, start), items.count - 1)].id, state: &state,
                        autoplay: json["autoplay"]?.boolValue ?? true)
            if let time = json["currentTime"]?.doubleValue { state.currentTime = time }
            return [status(state)]
        case "PLAY":
            guard state.playerState != "IDLE" else { return error("INVALID_PLAYER_STATE", requestId) }
            state.playerState = "PLAYING"
            return [status(state)]
        case "PAUSE":
            guard state.playerState != "IDLE" else { return error("INVALID_PLAYER_STATE", requestId) }
            state.playerState = "PAUSED"
            return [status(state)]
        case "STOP":
            state.hasSession = false
            state.items = []
            state.currentItemId = nil
            return [status(state)]
        case "SEEK":
            if let relative = json["relativeTime"]?.doubleValue {
                state.currentTime += relative
            } else if let time = json["currentTime"]?.doubleValue {
                state.currentTime = time
            }
            switch json["resumeState"]?.stringValue {
            case "PLAYBACK_START": state.playerState = "PLAYING"
            case "PLAYBACK_PAUSE": state.playerState = "PAUSED"
            default: break
            }
            return [status(state)]
        case "SET_PLAYBACK_RATE":
            guard let rate = json["playbackRate"]?.doubleValue, rate > 0 else {
                return error("INVALID_REQUEST", requestId, reason: "INVALID_PARAMS")
            }
            state.playbackRate = rate
            return [status(state)]
        case "EDIT_TRACKS_INFO":
            if let ids = json["activeTrackIds"]?.arrayValue { state.activeTrackIds = ids.compactMap(\.intValue) }
            if let style = json["textTrackStyle"] { state.textTrackStyle = style }
            return [status(state)]
        case "SET_VOLUME":
            if let level = json["volume"]?["level"] { state.volume["level"] = level }
            if let muted = json["volume"]?["muted"] { state.volume["muted"] = muted }
            return [status(state)]
        case "QUEUE_INSERT":
            guard let items = newItems(json["items"], state: &state) else {
                return error("INVALID_REQUEST", requestId, reason: "INVALID_PARAMS")
            }
            let before = json["insertBefore"]?.intValue
            let index = before.flatMap { id in state.items.firstIndex { $0.id == id } } ?? state.items.count
            state.items.insert(contentsOf: items, at: index)
            if let offset = json["currentItemIndex"]?.intValue, items.indices.contains(offset) {
                makeCurrent(items[offset].id, state: &state)
            } else if let id = json["currentItemId"]?.intValue {
                makeCurrent(id, state: &state)
            }
            return [queueChange("INSERT", ids: items.map(\.id), insertBefore: index < state.items.count - items.count ? before : nil), status(state)]
        case "QUEUE_REMOVE":
            let ids = Set((json["itemIds"]?.arrayValue ?? []).compactMap(\.intValue))
            let removed = state.items.filter { ids.contains($0.id) }.map(\.id)
            var nextCurrent = state.currentItemId
            if let current = state.currentItemId, ids.contains(current), let index = state.items.firstIndex(where: { $0.id == current }) {
                nextCurrent = state.items[index...].first { !ids.contains($0.id) }?.id
            }
            state.items.removeAll { ids.contains($0.id) }
            if nextCurrent != state.currentItemId { makeCurrent(nextCurrent, state: &state) }
            return (removed.isEmpty ? [] : [queueChange("REMOVE", ids: removed)]) + [status(state)]
        case "QUEUE_REORDER":
            let ids = (json["itemIds"]?.arrayValue ?? []).compactMap(\.intValue)
            let moving = ids.compactMap { id in state.items.first { $0.id == id } }
            guard moving.count == ids.count else { return error("INVALID_REQUEST", requestId, reason: "INVALID_PARAMS") }
            state.items.removeAll { ids.contains($0.id) }
            let before = json["insertBefore"]?.intValue
            let index = before.flatMap { id in state.items.firstIndex { $0.id == id } } ?? state.items.count
            state.items.insert(contentsOf: moving, at: index)
            var change = queueChange("UPDATE", ids: state.items.map(\.id))
            change.json["reorderItemIds"] = .array(ids.map { .number(Double($0)) })
            return [change, status(state)]
        case "QUEUE_UPDATE":
            var replies: [Reply] = []
            if let mode = json["repeatMode"]?.stringValue { state.repeatMode = mode }
            if let updates = json["items"]?.arrayValue {
                var changed: [Int] = []
                for update in updates {
                    guard let id = update["itemId"]?.intValue, let index = state.items.firstIndex(where: { $0.id == id }) else { continue }
                    for (key, value) in update.objectValue ?? [:] { state.items[index].json[key] = value }
                    changed.append(id)
                }
                if !changed.isEmpty { replies.append(queueChange("ITEMS_CHANGE", ids: changed)) }
            }
            if json["shuffle"]?.boolValue == true {
                state.items.reverse()  // a deterministic "shuffle"
                replies.append(queueChange("UPDATE", ids: state.items.map(\.id)))
            }
            if let id = json["currentItemId"]?.intValue {
                guard state.items.contains(where: { $0.id == id }) else {
                    return error("INVALID_REQUEST", requestId, reason: "INVALID_PARAMS")
                }
                makeCurrent(id, state: &state)
            }
            if let jump = json["jump"]?.intValue, let current = state.currentItemId,
                let index = state.items.firstIndex(where: { $0.id == current })
            {
                var target = index + jump
                if !state.items.indices.contains(target) {
                    guard state.repeatMode == "REPEAT_ALL" else {
                        return error("INVALID_REQUEST", requestId, reason: "END_OF_QUEUE")
                    }
                    target = (target % state.items.count + state.items.count) % state.items.count
                }
                makeCurrent(state.items[target].id, state: &state)
            }
            return replies + [status(state)]
        case "QUEUE_GET_ITEM_IDS":
            return [Reply(json: ["type": "QUEUE_ITEM_IDS", "requestId": requestId,
                                 "itemIds": .array(state.items.map { .number(Double($0.id)) })])]
        case "QUEUE_GET_ITEMS":
            let ids = (json["itemIds"]?.arrayValue ?? []).compactMap(\.intValue)
            let items = ids.compactMap { id in state.items.first { $0.id == id }?.json }
            return [Reply(json: ["type": "QUEUE_ITEMS", "requestId": requestId, "items": .array(items)])]
        default:
            return error("INVALID_REQUEST", requestId, reason: "INVALID_COMMAND")
        }
    }
}
