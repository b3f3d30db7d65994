import ArgumentParser
import AudioCastKit
import CastIntents
import CastJSON
import CastorVersion
import Foundation

/// `audiocast`: the Audio Cast sample as a Linux command-line podcast player.
@main
struct AudioCastCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audiocast",
        abstract: "A podcast player that donates what you play and suggests new episodes (Apple's Audio Cast sample, on Linux).",
        discussion: """
            State lives in a library directory (--library, else $AUDIOCAST_LIBRARY, else ~/.local/share/audiocast): \
            intents.sqlite (donations and suggestions) and library.json (shows and positions). `play` plays on an \
            emulated receiver started in this process unless --host or --device names a Cast device. \
            Exit status is 0 on success; on failure one line goes to standard error.
            """,
        version: CastorVersion.description,
        subcommands: [
            Subscribe.self, Unsubscribe.self, Shows.self, Episodes.self, Play.self, Suggestions.self, History.self,
            ShowContainer.self, Refresh.self,
        ])
}

/// Options every command takes.
struct LibraryOptions: ParsableArguments {
    @Option(help: "The library directory (default: $AUDIOCAST_LIBRARY or ~/.local/share/audiocast).") var library: String?
    @Flag(help: "Print the result as JSON.") var json = false

    func open() throws -> AudioCastLibrary {
        try AudioCastLibrary(directory: library.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? AudioCastLibrary.defaultDirectory)
    }

    /// Prints `value` as one line of JSON, or `text`.
    func print(_ value: some Encodable, text: @autoclosure () -> String) throws {
        if json {
            Swift.print(try Output.json(value).serialized())
        } else {
            Swift.print(text())
        }
    }
}

enum Output {
    static func json(_ value: some Encodable) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return try JSONValue(parsing: encoder.encode(value))
    }

    /// Runs a command body; a failure prints one line and exits non-zero.
    static func run(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as ExitCode {
            throw error
        } catch let error as ValidationError {
            throw error
        } catch {
            FileHandle.standardError.write(Data("audiocast: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }

    static func title(_ item: MediaItem?) -> String { item.map { $0.title ?? $0.identifier } ?? "?" }
}

struct Subscribe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Subscribe to a podcast feed (a path, file://, http:// or https:// URL).")
    @OptionGroup var options: LibraryOptions
    @Argument(help: "The feed.") var feed: String

    func run() async throws {
        try await Output.run {
            let result = try await options.open().subscribe(feed)
            try options.print(result, text: "\(result.isNew ? "Subscribed to" : "Refreshed") \(result.show.id)  “\(result.show.title)” — \(result.show.episodes.count) episodes, \(result.newEpisodes.count) new")
        }
    }
}

struct Unsubscribe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Unsubscribe from a show and delete its donations.")
    @OptionGroup var options: LibraryOptions
    @Argument(help: "The show's id or title.") var show: String

    func run() async throws {
        try await Output.run {
            let result = try await options.open().unsubscribe(show)
            try options.print(result, text: "Unsubscribed from \(result.show.id); deleted \(result.deletedDonations.count) donations")
        }
    }
}

struct Shows: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the subscribed shows.")
    @OptionGroup var options: LibraryOptions

    func run() async throws {
        try await Output.run {
            let shows = try options.open().shows()
            try options.print(shows, text: shows.isEmpty ? "No shows; subscribe to a feed." :
                shows.map { "\($0.id)\t\($0.title)\t\($0.episodes.count) episodes" }.joined(separator: "\n"))
        }
    }
}

struct Episodes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List a show's episodes (✓ heard).")
    @OptionGroup var options: LibraryOptions
    @Argument(help: "The show's id or title.") var show: String

    func run() async throws {
        try await Output.run {
            let (_, episodes) = try await options.open().episodes(of: show)
            try options.print(episodes, text: episodes.map { state in
                let position = state.position.map { String(format: "  at %.0f s", $0) } ?? ""
                return "\(state.heard ? "✓" : " ") \(state.episode.id)\t\(state.episode.title)\(position)"
            }.joined(separator: "\n"))
        }
    }
}

struct Suggestions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The suggested episodes, most important first.")
    @OptionGroup var options: LibraryOptions

    func run() async throws {
        try await Output.run {
            let intents = try await options.open().suggestions()
            try options.print(intents, text: intents.isEmpty ? "No suggestions." : intents.map {
                "\($0.primaryItem?.identifier ?? "?")\t\(Output.title($0.primaryItem))\t(\(Output.title($0.mediaContainer)))"
            }.joined(separator: "\n"))
        }
    }
}

struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The donated plays, newest first.")
    @OptionGroup var options: LibraryOptions
    @Option(help: "Show at most this many.") var limit: Int?

    func run() async throws {
        try await Output.run {
            let interactions = try await options.open().history(limit: limit)
            let formatter = ISO8601DateFormatter()
            try options.print(interactions, text: interactions.isEmpty ? "Nothing played yet." : interactions.map {
                "\($0.identifier)\t\(formatter.string(from: $0.date))\t\(Output.title($0.intent.primaryItem))\t[\($0.groupIdentifier ?? "-")]"
            }.joined(separator: "\n"))
        }
    }
}

struct ShowContainer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show-container", abstract: "Show the show behind a donation, an episode or a show, without playing.")
    @OptionGroup var options: LibraryOptions
    @Argument(help: "A donation id (see history), an episode id or a show id.") var id: String

    struct Display: Encodable {
        var container: MediaItem
        var contents: [MediaItem]
        var highlighted: String?
    }

    func run() async throws {
        try await Output.run {
            let display = try await options.open().showContainer(id)
            var lines = ["\(display.container.identifier)  “\(Output.title(display.container))”"]
            for item in display.contents {
                lines.append("\(item.identifier == display.highlightedItemIdentifier ? "▶" : " ") \(item.identifier)\t\(Output.title(item))")
            }
            try options.print(Display(container: display.container, contents: display.contents, highlighted: display.highlightedItemIdentifier),
                              text: lines.joined(separator: "\n"))
        }
    }
}

struct Refresh: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Re-read every feed; new episodes become suggestions.")
    @OptionGroup var options: LibraryOptions

    func run() async throws {
        try await Output.run {
            let results = try await options.open().refresh()
            try options.print(results, text: results.isEmpty ? "No shows." : results.map { result in
                if let error = result.error { return "\(result.showId)\tunchanged: \(error)" }
                return "\(result.showId)\t\(result.newEpisodes.count) new" + result.newEpisodes.map { "\n  + \($0.id)\t\($0.title)" }.joined()
            }.joined(separator: "\n"))
        }
    }
}
