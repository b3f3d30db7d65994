import Foundation

/// Progress lines on standard error for steps that may take more than a second.
enum Progress {
    /// Prints `castctl: LINE` on standard error.
    static func say(_ line: String) {
        FileHandle.standardError.write(Data("castctl: \(line)\n".utf8))
    }

    /// Runs `body`; when it is still running after a second, says `castctl: WHAT…` on standard error
    /// (a quick step stays silent, so scripts see nothing).
    static func during<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
        let announcer = Task {
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
            say(what + "…")
        }
        defer { announcer.cancel() }
        return try await body()
    }
}
