/// Why a child process could not be started.
package struct ProcessError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as an extensible code.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        package let name: String
        package init(_ name: String) { self.name = name }
        package var description: String { name }

        /// The program is not installed (its path does not exist).
        package static let toolMissing = Code("toolMissing")
        /// `fork`, `exec`, a pipe or `/dev/null` failed.
        package static let spawnFailed = Code("spawnFailed")
    }

    /// What went wrong.
    package var code: Code
    /// A sentence for people.
    package var message: String

    package init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code): \(message)" }
}
