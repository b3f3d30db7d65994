import ArgumentParser
import CastJSON
import CastChannels
import CastMedia
import CastQueue

struct Load: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Load a URL on the Default Media Receiver (launched if needed) and print the status.")
    @OptionGroup var device: DeviceOptions
    @OptionGroup var load: LoadOptions
    @Argument(help: "The media URL.") var url: String
    @Flag(name: .long, help: "Load paused.") var paused = false

    func run() async throws {
        try await Output.run {
            let status = try await device.withMedia(launchIfNeeded: true) { _, media in
                try await media.load(load.media(url: url), autoplay: !paused, startTime: load.start,
                                     activeTrackIds: load.subtitles == nil ? nil : [1])
            }
            Output.print(status, json: device.json)
        }
    }
}

struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Resume playback.")
    @OptionGroup var device: DeviceOptions
    func run() async throws {
        try await Output.run { Output.print(try await device.withMedia { _, media in try await media.play() }, json: device.json) }
    }
}

struct Pause: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Pause playback.")
    @OptionGroup var device: DeviceOptions
    func run() async throws {
        try await Output.run { Output.print(try await device.withMedia { _, media in try await media.pause() }, json: device.json) }
    }
}

struct Seek: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Seek to SECONDS, or by SECONDS with --relative.")
    @OptionGroup var device: DeviceOptions
    @Argument(help: "The position or offset in seconds.") var seconds: Double
    @Flag(name: .long, help: "Seek relative to the current position.") var relative = false
    func run() async throws {
        try await Output.run {
            let status = try await device.withMedia { _, media in
                relative ? try await media.seek(by: seconds) : try await media.seek(to: seconds)
            }
            Output.print(status, json: device.json)
        }
    }
}

struct Rate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Set the playback rate (0.5 to 2).")
    @OptionGroup var device: DeviceOptions
    @Argument(help: "The rate, such as 1.5.") var rate: Double
    func validate() throws {
        guard rate > 0, rate <= 4 else { throw ValidationError("RATE must be above 0 and at most 4") }
    }
    func run() async throws {
        try await Output.run {
            Output.print(try await device.withMedia { _, media in try await media.setPlaybackRate(rate) }, json: device.json)
        }
    }
}

struct Tracks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Turn tracks on (--on 1,2) or all text tracks off (--off).")
    @OptionGroup var device: DeviceOptions
    @Option(name: .long, help: "Comma-separated track ids to activate.") var on: String?
    @Flag(name: .long, help: "Deactivate every track.") var off = false
    func validate() throws {
        guard (on != nil) != off else { throw ValidationError("Give exactly one of --on IDS and --off") }
        if let on, on.split(separator: ",").contains(where: { Int($0) == nil }) {
            throw ValidationError("--on takes comma-separated integers, such as 1,3")
        }
    }
    func run() async throws {
        try await Output.run {
            let ids = on?.split(separator: ",").compactMap { Int($0) } ?? []
            Output.print(try await device.withMedia { _, media in try await media.setActiveTracks(ids) }, json: device.json)
        }
    }
}

struct Queue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Queue commands.", subcommands: [QueueLoad.self, QueueNext.self, QueuePrev.self, QueueInsert.self,
                                                    QueueRemove.self, QueueReorder.self, QueueList.self])

    struct QueueLoad: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "load", abstract: "Load URLs as a queue.")
        @OptionGroup var device: DeviceOptions
        @Argument(help: "Media URLs, in order.") var urls: [String]
        @OptionGroup var type: MediaTypeOptions
        @Option(name: .customLong("title"), help: "The title of each URL, in order (repeatable; the rest are named after their URL).")
        var titles: [String] = []
        @Option(help: "REPEAT_OFF, REPEAT_ALL, REPEAT_SINGLE or REPEAT_ALL_AND_SHUFFLE.") var repeatMode = "REPEAT_OFF"
        @Option(help: "The index (from 0) of the item to start with.") var startIndex = 0
        @Option(help: "Where to start that item, in seconds.") var start: Double?
        @Flag(name: .long, help: "Load paused (the start item gets autoplay false; it never starts playing).") var paused = false

        func validate() throws {
            guard !urls.isEmpty else { throw ValidationError("Give at least one URL") }
            guard urls.indices.contains(startIndex) else { throw ValidationError("--start-index must be between 0 and \(urls.count - 1)") }
            guard titles.count <= urls.count else { throw ValidationError("\(titles.count) --title for \(urls.count) URLs") }
            guard RepeatMode.allCases.contains(RepeatMode(rawValue: repeatMode.uppercased())) else {
                throw ValidationError("--repeat-mode must be one of \(RepeatMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }

        func run() async throws {
            try await Output.run {
                let items = urls.indices.map { index in
                    var builder = QueueItemBuilder(media: type.media(url: urls[index], title: titles.indices.contains(index) ? titles[index] : nil))
                    if index == startIndex { builder.autoplay = !paused }
                    return builder.build()
                }
                let status = try await device.withMedia(launchIfNeeded: true) { _, media in
                    try await media.queueLoad(items, startIndex: startIndex, repeatMode: RepeatMode(rawValue: repeatMode.uppercased()),
                                              startTime: start)
                }
                Output.print(status, json: device.json)
            }
        }
    }

    struct QueueNext: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "next", abstract: "Skip to the next item.")
        @OptionGroup var device: DeviceOptions
        func run() async throws {
            try await Output.run { Output.print(try await device.withMedia { _, media in try await media.queueNext() }, json: device.json) }
        }
    }

    struct QueuePrev: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "prev", abstract: "Go back to the previous item.")
        @OptionGroup var device: DeviceOptions
        func run() async throws {
            try await Output.run { Output.print(try await device.withMedia { _, media in try await media.queuePrevious() }, json: device.json) }
        }
    }

    struct QueueInsert: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "insert", abstract: "Insert URLs before an item (or at the end).")
        @OptionGroup var device: DeviceOptions
        @Argument(help: "Media URLs.") var urls: [String]
        @Option(help: "The item id to insert before; the end when omitted.") var before: Int?
        @OptionGroup var type: MediaTypeOptions
        @Option(name: .customLong("title"), help: "The title of each URL, in order (repeatable; the rest are named after their URL).")
        var titles: [String] = []

        func validate() throws {
            guard !urls.isEmpty else { throw ValidationError("Give at least one URL") }
            guard titles.count <= urls.count else { throw ValidationError("\(titles.count) --title for \(urls.count) URLs") }
        }

        func run() async throws {
            try await Output.run {
                let items = urls.indices.map { index in
                    QueueItemBuilder(media: type.media(url: urls[index], title: titles.indices.contains(index) ? titles[index] : nil)).build()
                }
                let status = try await device.withMedia { _, media in try await media.queueInsert(items, before: before) }
                Output.print(status, json: device.json)
            }
        }
    }

    struct QueueRemove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove items by id.")
        @OptionGroup var device: DeviceOptions
        @Argument(help: "Item ids.") var itemIds: [Int]
        func run() async throws {
            try await Output.run {
                Output.print(try await device.withMedia { _, media in try await media.queueRemove(itemIds) }, json: device.json)
            }
        }
    }

    struct QueueReorder: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reorder", abstract: "Move items (by id) before an item, or to the end.")
        @OptionGroup var device: DeviceOptions
        @Argument(help: "Item ids, in their new order.") var itemIds: [Int]
        @Option(help: "The item id to move them before; the end when omitted.") var before: Int?
        func run() async throws {
            try await Output.run {
                Output.print(try await device.withMedia { _, media in try await media.queueReorder(itemIds, before: before) }, json: device.json)
            }
        }
    }

    struct QueueList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the queue's items.")
        @OptionGroup var device: DeviceOptions
        func run() async throws {
            try await Output.run {
                let (items, current) = try await device.withMedia { _, media in
                    let ids = try await media.queueFetchItemIds()
                    var items: [QueueItem] = []
                    for start in stride(from: 0, to: ids.count, by: 20) {
                        items += try await media.queueFetchItems(Array(ids[start..<min(start + 20, ids.count)]))
                    }
                    return (items, media.status?.currentItemId)
                }
                let json: JSONValue = .array(items.map { (try? JSONValue(encoding: $0)) ?? .null })
                let text = items.map { item in
                    let marker = item.itemId == current ? "▶" : " "
                    return "\(marker) \(item.itemId.map(String.init) ?? "?")  \(item.media?.metadata?.title ?? item.media?.contentId ?? "")"
                }.joined(separator: "\n")
                Output.print(json, text: text.isEmpty ? "(empty queue)" : text, json: device.json)
            }
        }
    }
}
