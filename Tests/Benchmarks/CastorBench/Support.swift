import Foundation

/// Samples and their summary, printed as one JSON line for `scripts/bench.sh`.
struct Samples {
    var values: [Double] = []

    mutating func add(_ duration: Duration) {
        values.append(Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12)
    }

    /// The value at quantile `q` (nearest rank) of the sorted samples.
    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[rank]
    }
}

/// Writes one JSON object on stdout (one line) and flushes.
func emit(_ object: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

/// Writes a diagnostic on stderr.
func note(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// A bench failure with a message.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Minimal `--name value` argument reading.
struct Arguments {
    var values: [String: String] = [:]
    var flags: Set<String> = []

    init(_ arguments: ArraySlice<String>) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard argument.hasPrefix("--") else { continue }
            let name = String(argument.dropFirst(2))
            if let equals = name.firstIndex(of: "=") {
                values[String(name[..<equals])] = String(name[name.index(after: equals)...])
            } else if ["json", "raw"].contains(name) {
                flags.insert(name)
            } else if let value = iterator.next() {
                values[name] = value
            }
        }
    }

    func int(_ name: String, _ fallback: Int) throws -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text) else { throw BenchError("--\(name) wants an integer, got \(text)") }
        return value
    }

    func string(_ name: String) throws -> String {
        guard let value = values[name] else { throw BenchError("--\(name) is required") }
        return value
    }

    /// `--caller pool|loop` (default `pool`): the executor the timed calls prefer, `nil` for the shared pool,
    /// `loop` (the connection's event loop) for `loop`.
    /// - Throws: for another value, or for `loop` when the connection has no executor.
    func callerExecutor(loop: @autoclosure () -> (any TaskExecutor)?) throws -> (any TaskExecutor)? {
        switch values["caller"] ?? "pool" {
        case "pool": return nil
        case "loop":
            guard let executor = loop() else { throw BenchError("--caller loop: the transport has no task executor") }
            return executor
        case let other: throw BenchError("--caller wants pool or loop, got \(other)")
        }
    }

    func ports(_ name: String) throws -> [Int] {
        try string(name).split(separator: ",").flatMap { part -> [Int] in
            if let dash = part.firstIndex(of: "-"), let low = Int(part[..<dash]), let high = Int(part[part.index(after: dash)...]) {
                return Array(low...high)
            }
            guard let port = Int(part) else { throw BenchError("bad port \(part)") }
            return [port]
        }
    }
}

/// Reads this process's resident memory (VmRSS, KiB) and thread count from /proc.
enum ProcSelf {
    static func residentKiB() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return -1
    }

    static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
    }
}
