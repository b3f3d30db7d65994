import CastJSON
import CastCore

/// How much a MEDIA_STATUS leaves out so that it fits one Cast message (at most 65 536 bytes with
/// its envelope), least first.
///
/// A status carries the current item's media twice (as `media`, and in the queue item), the items
/// around it, and the session's custom data, all as the senders sent them: a long title or large
/// custom data can make it too large to send. A device's SDK does not send such a message; the
/// emulated receiver writes the status again with less in it instead, step by step, until it fits:
/// - ``full``: the previous, current and next queue items, the media, custom and queue data;
/// - ``currentItem``: the current queue item alone;
/// - ``noItems``: no `items` (what GET_STATUS option 2 asks for; senders fetch them with QUEUE_GET_ITEMS);
/// - ``noMetadata``: no items, the media without its `metadata`, no custom or queue data;
/// - ``bare``: the playback state alone (no media), for media too large even without metadata.
///
/// LOAD, QUEUE_LOAD and QUEUE_INSERT are refused up front (``refusal(of:request:)``) when an item
/// could not be reported whole: that is the clear error; the steps above are the net under it (a
/// window of several large items, a sender with a long id, edits that grew an item).
enum MediaStatusFit: Int, CaseIterable, Comparable, Sendable {
    case full, currentItem, noItems, noMetadata, bare

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The indices of the items this fit reports around the current one (`nil`: no `items` member).
    func items(around index: Int, in session: MediaSessionState) -> ClosedRange<Int>? {
        switch self {
        case .full: return session.statusWindow(around: index)
        case .currentItem: return index...index
        case .noItems, .noMetadata, .bare: return nil
        }
    }

    /// Whether the session's custom data and queue data stay in.
    var keepsCustomData: Bool { self < .noMetadata }

    // MARK: Sizes

    /// The length of a media app's transport id (a lower-case UUID), the source of every status.
    static let transportIdLength = 36

    /// The longest status text that fits one message from the media app to a destination id of
    /// `destinationLength` UTF-8 bytes (`*` for a broadcast: 1).
    static func textLimit(destinationLength: Int) -> Int {
        let envelope = CastMessage(
            sourceId: String(repeating: "0", count: transportIdLength),
            destinationId: String(repeating: "0", count: max(1, destinationLength)), namespace: Wire.media,
            payload: .string("")
        ).encodedSize
        // The payload's length prefix grows from one byte (empty) to three (up to 2^21 bytes).
        return CastFrame.maxBodySize - envelope - 2
    }

    /// The longest status text a broadcast (to `*`) may have.
    static let broadcastTextLimit = textLimit(destinationLength: 1)

    /// Whether `status` serializes to at most `limit` bytes (a quick bound first, the text only near it).
    static func fits(_ status: JSONValue, limit: Int) -> Bool {
        if status.serializedSizeBound(upTo: limit) != nil { return true }
        return status.serialized().utf8.count <= limit
    }

    /// What a status reporting one item holds beyond that item's media (twice) and custom data: the
    /// status members (ids, time, rate, state, commands, volume, repeat mode), the queue item's own
    /// members and the message type. Measured on the emulated receiver's statuses (about 330 bytes
    /// with a six-digit request id); rounded up.
    static let itemOverhead = 384

    /// Why a LOAD, QUEUE_LOAD or QUEUE_INSERT cannot be accepted: one of its items could not be
    /// reported in a MEDIA_STATUS broadcast — twice its media (as `media` and as the queue item), its
    /// own custom data and the request's, and ``itemOverhead`` — or `nil` when every item can.
    ///
    /// The same rule as a sender's check before sending (CastMedia's `CastMediaStatusRoom`), so a
    /// sender that checks is never refused.
    static func refusal(of type: String, request: RequestFields) -> String? {
        guard type == "LOAD" || type == "QUEUE_LOAD" || type == "QUEUE_INSERT" else { return nil }
        var items: [JSONValue] = []
        if type == "LOAD", let media = request["media"] { items.append(["media": media]) }
        let list = type == "LOAD" ? request["queueData"]?["items"] : request["items"]
        items += list?.arrayValue ?? []
        let shared = request["customData"].map(size) ?? 0
        let limit = broadcastTextLimit
        // Twice the media and once the item's custom data fit when each is within a third of the room.
        let third = (limit - itemOverhead - shared) / 3
        for item in items {
            guard let media = item["media"] else { continue }
            // Most items are far below that: a bound found without writing anything settles them.
            if media.serializedSizeBound(upTo: third) != nil,
                item["customData"].map({ $0.serializedSizeBound(upTo: third) != nil }) ?? true
            {
                continue
            }
            let mediaSize = size(media)
            let own = item["customData"].map(size) ?? 0
            let needed = 2 * mediaSize + own + shared + itemOverhead
            if needed > limit {
                return "its MEDIA_STATUS would be about \(needed) bytes (the media, \(mediaSize) bytes, twice: as media and "
                    + "as the queue item; custom data \(own + shared) bytes), over the \(limit) bytes a status may have "
                    + "in a \(CastFrame.maxBodySize)-byte Cast message"
            }
        }
        return nil
    }

    private static func size(_ value: JSONValue) -> Int { value.serialized().utf8.count }
}
