/// A failure of the MPRIS bridge: the bus cannot be reached, the bus name is taken, the bus went away.
public struct CastMPRISError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; extensible.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable { case busUnavailable, nameTaken, disconnected, invalidName }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The bus could not be reached (no session bus, refused authentication).
        public static let busUnavailable = Code(.busUnavailable)
        /// Another connection owns the bus name.
        public static let nameTaken = Code(.nameTaken)
        /// The bus dropped the connection.
        public static let disconnected = Code(.disconnected)
        /// The configured instance name makes no valid bus name.
        public static let invalidName = Code(.invalidName)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation (with the D-Bus error name when the bus gave one).
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
