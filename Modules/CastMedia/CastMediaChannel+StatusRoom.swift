import CastChannels
import CastJSON
import CastMediaMetadata

extension CastMediaChannel {
    /// What a MEDIA_STATUS reporting one item holds beyond twice the item's media and its custom
    /// data: the status members, the queue item's own members, the message type (the emulated
    /// receiver's figure; a device's is about the same).
    static let statusItemOverhead = 384

    /// The rule that the receiver's answer to a LOAD, QUEUE_LOAD or QUEUE_INSERT can be sent, checked
    /// before the request is: each item must fit a MEDIA_STATUS broadcast from the app at `transportId`
    /// with its media twice (a status carries it as `media` and again in the queue item), its own custom
    /// data, the request's custom data and ``statusItemOverhead``.
    ///
    /// A status too large for one Cast message cannot be sent: a device that tries drops the connection
    /// of every sender in the session (and the emulated receiver refuses such a LOAD). So the request
    /// itself, though under 64 KiB, is refused here with ``CastMediaError/Code/statusTooLarge`` and
    /// nothing is sent.
    static func checkStatusRoom(_ payload: JSONValue, transportId: String) throws(CastMediaError) {
        let type = commandType(payload)
        guard type == "LOAD" || type == "QUEUE_LOAD" || type == "QUEUE_INSERT" else { return }
        var items: [JSONValue] = []
        if type == "LOAD", let media = payload["media"] { items.append(["media": media]) }
        let list = type == "LOAD" ? payload["queueData"]?["items"] : payload["items"]
        items += list?.arrayValue ?? []
        // A broadcast: from the app's transport id to `*`; the payload's length prefix takes three bytes.
        let envelope = CastMessageSize.encodedSize(
            sourceId: transportId, destinationId: "*", namespace: "urn:x-cast:com.google.cast.media", payloadUTF8Count: 0) + 2
        let limit = CastMessageSize.limit - envelope
        let shared = payload["customData"].map { $0.serialized().utf8.count } ?? 0
        let third = (limit - statusItemOverhead - shared) / 3
        for item in items {
            guard let media = item["media"] else { continue }
            if media.serializedSizeBound(upTo: third) != nil,
                item["customData"].map({ $0.serializedSizeBound(upTo: third) != nil }) ?? true
            {
                continue
            }
            let mediaSize = media.serialized().utf8.count
            let own = item["customData"].map { $0.serialized().utf8.count } ?? 0
            let needed = 2 * mediaSize + own + shared + statusItemOverhead
            guard needed <= limit else {
                throw CastMediaError(
                    code: .statusTooLarge,
                    message: "The receiver could not report this \(type): its MEDIA_STATUS would be about \(needed) bytes "
                        + "(the media, \(mediaSize) bytes, twice: as media and as the queue item; custom data \(own + shared) "
                        + "bytes), over the \(limit) bytes a status may have in a \(CastMessageSize.limit)-byte Cast message. "
                        + "Shorten the metadata (title, description) or the custom data; nothing was sent",
                    messageSize: needed)
            }
        }
    }
}
