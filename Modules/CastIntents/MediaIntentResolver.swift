/// An entry of the app's media library, as the resolver's lookup returns it.
public struct MediaLibraryEntry: Sendable, Hashable {
    /// The item as the library knows it now (fresh title, artwork...).
    public var item: MediaItem
    /// For a container (show, album, playlist): its playable items in order. Empty for a playable item.
    public var contents: [MediaItem]

    /// Creates an entry.
    public init(item: MediaItem, contents: [MediaItem] = []) {
        self.item = item
        self.contents = contents
    }
}

/// The default ``PlayMediaIntentHandler``: resolves intents against the app's library (a lookup
/// closure) and the donation history (a ``CastIntentStore``).
///
/// ## Play (``handlePlay(_:)``)
/// 1. An empty intent ("play something") resumes the most recent donation: that donation's intent
///    is resolved, with any option the empty intent sets (shuffle, repeat, speed) taking precedence.
///    No donation: ``PlayMediaFailure/Code/nothingToPlay``.
/// 2. With media items: each is looked up; an item whose entry has contents (an album, a show) is
///    replaced by its contents. Items the library lacks are left out and listed in
///    ``PlayRequest/unavailableItemIdentifiers``; if none is left: ``PlayMediaFailure/Code/itemNotFound``.
///    The request's container is the intent's container, else the first item's container, as the
///    library knows them (a container the library lacks is left `nil`).
/// 3. With only a container: its contents are played (none: ``PlayMediaFailure/Code/emptyContainer``;
///    unknown container: ``PlayMediaFailure/Code/containerNotFound``). With `resumePlayback`, playback
///    starts at the item of the container's most recent donation, if it is still in the container.
/// 4. Every item's type must be known (else ``PlayMediaFailure/Code/unsupportedMediaType``). If any
///    item is video the answer is ``PlayMediaIntentResponse/continueInApp(_:)`` (foreground), else
///    ``PlayMediaIntentResponse/handleInApp(_:)`` (background audio).
///
/// ## Show (``handleShow(_:)``)
/// The container is the intent's container, else the first item's container (from the intent or,
/// failing that, from the library's entry for the item), else the first item itself when the library
/// lists contents for it. An empty intent shows the container of the most recent donation. No
/// container: ``PlayMediaFailure/Code/noContainer``; not in the library:
/// ``PlayMediaFailure/Code/containerNotFound``.
public struct MediaIntentResolver: PlayMediaIntentHandler {
    /// Looks an identifier up in the app's library; `nil` when the library has no such item.
    public typealias Lookup = @Sendable (_ identifier: String) async throws -> MediaLibraryEntry?

    private let store: any CastIntentStore
    private let lookup: Lookup

    /// Creates a resolver.
    /// - Parameters:
    ///   - store: the donation history, used to resume.
    ///   - lookup: finds library entries by identifier.
    public init(store: any CastIntentStore, lookup: @escaping Lookup) {
        self.store = store
        self.lookup = lookup
    }

    /// Resolves a play request.
    public func handlePlay(_ intent: PlayMediaIntent) async -> PlayMediaIntentResponse {
        do {
            let request = try await resolvePlay(intent)
            return request.mediaKind == .video ? .continueInApp(request) : .handleInApp(request)
        } catch {
            return .failure(error)
        }
    }

    /// Resolves a show request.
    public func handleShow(_ intent: PlayMediaIntent) async -> PlayMediaIntentResponse {
        do {
            return .showContainer(try await resolveShow(intent))
        } catch {
            return .failure(error)
        }
    }

    // MARK: Play

    private func resolvePlay(_ requested: PlayMediaIntent) async throws(PlayMediaFailure) -> PlayRequest {
        var intent = requested
        if requested.isEmpty {
            guard let last = try await mostRecentDonation() else {
                throw PlayMediaFailure(code: .nothingToPlay, message: "Nothing was played yet, so there is nothing to resume.")
            }
            intent = Self.merge(options: requested, into: last.intent)
        }

        var items: [MediaItem] = []
        var unavailable: [String] = []
        var container: MediaItem?
        var startIndex = 0
        if !intent.mediaItems.isEmpty {
            for item in intent.mediaItems {
                guard let entry = try await find(item.identifier) else {
                    unavailable.append(item.identifier)
                    continue
                }
                if entry.contents.isEmpty {
                    items.append(entry.item)
                } else {
                    items += entry.contents
                    if intent.mediaItems.count == 1, intent.mediaContainer == nil { container = entry.item }
                }
            }
            if items.isEmpty {
                throw PlayMediaFailure(
                    code: .itemNotFound,
                    message: "The library has none of the requested items (\(unavailable.joined(separator: ", "))).")
            }
            if let identifier = intent.containerIdentifier, container == nil {
                container = try await find(identifier)?.item
            }
        } else if let requestedContainer = intent.mediaContainer {
            guard let entry = try await find(requestedContainer.identifier) else {
                throw PlayMediaFailure(
                    code: .containerNotFound, message: "The library has no container '\(requestedContainer.identifier)'.")
            }
            guard !entry.contents.isEmpty else {
                throw PlayMediaFailure(code: .emptyContainer, message: "'\(entry.item.title ?? entry.item.identifier)' has nothing to play.")
            }
            container = entry.item
            items = entry.contents
            if intent.resumePlayback == true {
                let last: [Interaction]
                do {
                    last = try await store.interactions(containerIdentifier: entry.item.identifier, limit: 1)
                } catch {
                    throw PlayMediaFailure(code: .storeUnavailable, message: error.description)
                }
                if let resumed = last.first?.intent.mediaItems.first?.identifier,
                    let index = items.firstIndex(where: { $0.identifier == resumed })
                {
                    startIndex = index
                }
            }
        }

        var kind = MediaKind.audio
        for item in items {
            guard let itemKind = item.type.mediaKind else {
                throw PlayMediaFailure(
                    code: .unsupportedMediaType,
                    message: "'\(item.identifier)' has the media-item type '\(item.type)', which this version does not know.")
            }
            if itemKind == .video { kind = .video }
        }
        return PlayRequest(
            intent: intent, container: container, items: items, startIndex: startIndex,
            playShuffled: intent.playShuffled ?? false, repeatMode: intent.repeatMode ?? .none,
            resumePlayback: intent.resumePlayback ?? false, playbackSpeed: intent.playbackSpeed ?? 1.0,
            mediaKind: kind, unavailableItemIdentifiers: unavailable)
    }

    /// The resumed donation's content with the options the request sets itself.
    private static func merge(options: PlayMediaIntent, into base: PlayMediaIntent) -> PlayMediaIntent {
        // Both inputs are valid intents, so recombining their fields cannot fail; fall back to the
        // donated intent unchanged if it ever did.
        (try? PlayMediaIntent(
            mediaItems: base.mediaItems, mediaContainer: base.mediaContainer,
            playShuffled: options.playShuffled ?? base.playShuffled,
            repeatMode: options.repeatMode ?? base.repeatMode,
            resumePlayback: options.resumePlayback ?? base.resumePlayback,
            playbackSpeed: options.playbackSpeed ?? base.playbackSpeed)) ?? base
    }

    // MARK: Show

    private func resolveShow(_ requested: PlayMediaIntent) async throws(PlayMediaFailure) -> ContainerDisplay {
        var intent = requested
        if requested.isEmpty {
            guard let last = try await mostRecentDonation() else {
                throw PlayMediaFailure(code: .noContainer, message: "The intent is empty and nothing was played yet.")
            }
            intent = last.intent
        }
        var containerIdentifier = intent.containerIdentifier
        var highlighted = intent.mediaItems.first?.identifier
        if containerIdentifier == nil, let first = intent.mediaItems.first, let entry = try await find(first.identifier) {
            if let identifier = entry.item.containerIdentifier {
                containerIdentifier = identifier
            } else if !entry.contents.isEmpty {
                containerIdentifier = entry.item.identifier
                highlighted = nil
            }
        }
        guard let containerIdentifier else {
            throw PlayMediaFailure(code: .noContainer, message: "The intent names no show or playlist to display.")
        }
        guard let entry = try await find(containerIdentifier) else {
            throw PlayMediaFailure(code: .containerNotFound, message: "The library has no container '\(containerIdentifier)'.")
        }
        let contents = entry.contents
        return ContainerDisplay(
            container: entry.item, contents: contents,
            highlightedItemIdentifier: contents.contains { $0.identifier == highlighted } ? highlighted : nil)
    }

    // MARK: Helpers

    private func find(_ identifier: String) async throws(PlayMediaFailure) -> MediaLibraryEntry? {
        do {
            return try await lookup(identifier)
        } catch {
            throw PlayMediaFailure(code: .libraryUnavailable, message: "The library lookup of '\(identifier)' failed: \(error)")
        }
    }

    private func mostRecentDonation() async throws(PlayMediaFailure) -> Interaction? {
        do {
            return try await store.mostRecentInteractions(limit: 1).first
        } catch {
            throw PlayMediaFailure(code: .storeUnavailable, message: error.description)
        }
    }
}
