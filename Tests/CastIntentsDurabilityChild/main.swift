// castintents-durability-child DATABASE COUNT
//
// Donates COUNT interactions ("durability-0", "durability-1", ...) to the SQLite intent store at
// DATABASE, one at a time. After each donation call returns, it writes the identifier and a newline
// to standard output with a single unbuffered write(2), so a parent that reads a full line knows the
// donation was acknowledged. The parent (CastIntentsTests' durability test) kills it with SIGKILL
// at a seeded random moment and then checks the database.
import CastIntents
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("castintents-durability-child: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]), count >= 0 else {
    fail("usage: castintents-durability-child DATABASE COUNT")
}

do {
    let store = try SQLiteIntentStore(path: arguments[1])
    let existing = try await store.interactionCount()
    for index in existing..<max(existing, count) {
        let show = "show-\(index % 7)"
        let episode = try MediaItem(
            identifier: "episode-\(index % 101)", title: "Episode \(index % 101)", type: .podcastEpisode,
            artworkURL: URL(string: "https://example.invalid/art/\(index % 101).jpg"), containerIdentifier: show)
        let container = try MediaItem(identifier: show, title: "Show \(index % 7)", type: .podcastShow)
        let intent = try PlayMediaIntent(mediaItems: [episode], mediaContainer: container, resumePlayback: index % 2 == 0)
        let identifier = "durability-\(index)"
        try await store.donate(
            Interaction(
                intent: intent, date: Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(index)),
                identifier: identifier, groupIdentifier: show))
        FileHandle.standardOutput.write(Data("\(identifier)\n".utf8))
    }
    FileHandle.standardOutput.write(Data("done\n".utf8))
} catch {
    fail("\(error)")
}
