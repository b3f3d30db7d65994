/// A `MediaInformation` behind one shared reference.
///
/// A `MediaInformation` is hundreds of bytes with dozens of references in it. The statuses and queue
/// items that carry one keep it in a box: a status is copied whole each time it is recorded, published
/// and returned (several times per command), and a copy then costs one retain instead of copying the
/// media and retaining everything in it. The statuses and items of one message that repeat a `media`
/// share its box, and so do the next messages' (``MediaStatusMemory``). A box never changes: setting a
/// `media` makes a new one.
final class MediaBox: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    let media: MediaInformation

    init(_ media: MediaInformation) { self.media = media }

    /// The media's, so that a printed status or item (a test's failure message) shows the media, not a box.
    var description: String { String(describing: media) }

    /// The media's.
    var debugDescription: String { String(reflecting: media) }

    static func == (lhs: MediaBox, rhs: MediaBox) -> Bool {
        lhs === rhs || lhs.media == rhs.media
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(media)
    }
}
