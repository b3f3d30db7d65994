import Foundation

/// A temporary directory removed at deinit.
final class TemporaryDirectory {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path + "/castmediaserver-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes a file and returns its path.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = path + "/" + name
        guard FileManager.default.createFile(atPath: file, contents: Data(bytes)) else {
            throw CocoaError(.fileWriteUnknown)
        }
        return file
    }

    @discardableResult
    func write(_ name: String, text: String) throws -> String { try write(name, Array(text.utf8)) }

    /// A sparse file of `size` bytes with `patches` written at their offsets.
    func sparse(_ name: String, size: Int64, patches: [(Int64, [UInt8])]) throws -> String {
        let file = path + "/" + name
        _ = FileManager.default.createFile(atPath: file, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        defer { try? handle.close() }
        try handle.truncate(atOffset: UInt64(size))
        for (offset, bytes) in patches {
            try handle.seek(toOffset: UInt64(offset))
            try handle.write(contentsOf: Data(bytes))
        }
        return file
    }
}

/// Deterministic pseudo-random bytes (xorshift), so every offset has a distinguishable value.
func patternBytes(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        bytes[index] = UInt8(truncatingIfNeeded: state)
    }
    return bytes
}

/// Runs blocking work on a GCD thread instead of the cooperative pool.
func onBlockingThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}
