import Foundation
import Logging

/// Appends log lines (`timestamp level label: message metadata`) to a file.
struct FileLogHandler: LogHandler {
    private final class Sink: @unchecked Sendable {
        let handle: FileHandle
        let lock = NSLock()
        init(handle: FileHandle) { self.handle = handle }
        func write(_ line: String) { lock.withLock { handle.write(Data(line.utf8)) } }
    }

    private let sink: Sink
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    init(path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        sink = Sink(handle: handle)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let details = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let stamp = ISO8601DateFormatter().string(from: Date())
        sink.write("\(stamp) \(event.level) cast-receiver: \(event.message)\(details.isEmpty ? "" : " " + details)\n")
    }
}
