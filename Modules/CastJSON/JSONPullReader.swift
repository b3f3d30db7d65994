import Foundation

/// A pull reader over JSON bytes: the caller asks for the next token and reads each value straight into
/// its own types, without a ``JSONValue`` tree in between.
///
/// The hot Cast replies (MEDIA_STATUS first) are decoded with it from the frame's bytes. It accepts
/// exactly what ``JSONValue/init(parsing:)-(Data)`` accepts — the same scanner reads strings, numbers
/// and literals, the same rules apply (valid UTF-8, finite numbers, a trailing comma after the last
/// member or element, at most 512 levels of nesting) — so a decoder built on it and one built on the tree
/// accept the same documents. Values the caller does not model are skipped (validated, not kept) or read
/// as a ``JSONValue`` subtree.
///
/// Objects and arrays are read with a `begin…`/`next…` pair:
///
/// ```swift
/// var more = try reader.beginObject()
/// while more {
///     let key = try reader.readKey()
///     if key == "type" { type = try reader.lenientString() } else { try reader.skipValue() }
///     more = try reader.endMember()
/// }
/// ```
///
/// Every method throws ``JSONError`` with code ``JSONError/Code/malformed`` for input that is not JSON;
/// the reader never throws for a value of an unexpected type (the `lenient` readers consume it and
/// return `nil`), so the caller decides what a type mismatch means.
@_spi(JSONReading) public struct JSONPullReader {
    /// What the next value is, from its first byte.
    public enum Token: Sendable, Hashable {
        /// `{`.
        case object
        /// `[`.
        case array
        /// `"`.
        case string
        /// `-` or a digit.
        case number
        /// `true` or `false`.
        case bool
        /// `null`.
        case null
    }

    /// A member name as read: a view of its UTF-8 bytes — the input's own when the name has no escapes,
    /// else the reader's copy of the decoded name. Valid only until the reader reads on (use it first).
    public struct Key {
        /// The name's bytes.
        @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
        /// Its first eight bytes, little-endian and zero-padded (``JSONKeySet``'s hash and first test):
        /// one load from the input when the reader found the name's end a word at a time, else
        /// gathered from the bytes.
        @usableFromInline let head: UInt64

        @inlinable
        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            head = JSONKeySet.head(bytes)
        }

        @inlinable
        init(_ bytes: UnsafeBufferPointer<UInt8>, head: UInt64) {
            self.bytes = bytes
            self.head = head
        }

        /// The name as a `String`.
        @inlinable
        public var string: String { String(decoding: bytes, as: UTF8.self) }

        /// Runs `body` on the name's UTF-8 bytes.
        @inlinable
        public func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
            body(bytes)
        }

        /// Whether the name is `name`.
        @inlinable
        public static func == (key: Key, name: StaticString) -> Bool {
            let count = name.utf8CodeUnitCount
            guard key.bytes.count == count else { return false }
            return count == 0 || memcmp(key.bytes.baseAddress!, name.utf8Start, count) == 0
        }
    }

    @usableFromInline var parser: JSONParser
    /// The decoded bytes of the last member name that had escapes or non-ASCII bytes.
    @usableFromInline var decodedKey: [UInt8] = []

    @usableFromInline
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        parser = JSONParser(bytes)
        parser.skipByteOrderMark()
    }

    /// Runs `body` with a reader over `bytes`, then checks that only whitespace follows the value `body`
    /// read. A malformed document throws `malformed` even when `body` failed first for another reason.
    ///
    /// Inlinable so that callers get it specialized for their result type. A caller that is itself
    /// generic over `bytes` should call ``read(buffer:_:)`` inside ``withContiguousBytes(of:_:)`` instead:
    /// unspecialized, this function looks up `Result<Result, JSONError>`'s metadata at run time on
    /// every call (hundreds of instructions, on every message a sender routes).
    @inlinable
    public static func read<Result>(
        _ bytes: some Collection<UInt8>, _ body: (inout JSONPullReader) throws(JSONError) -> Result
    ) throws(JSONError) -> Result {
        try withContiguousBytes(of: bytes) { buffer in read(buffer: buffer, body) }.get()
    }

    /// Runs `body` on a reader over `bytes` and stops where `body` stops: the rest of the document
    /// is neither read nor checked. For reading a few leading members cheaply (routing); use
    /// ``read(_:_:)`` when the document must be valid. Inlinable for the same reason as ``read(_:_:)``.
    @inlinable
    public static func readPrefix<Result>(
        _ bytes: some Collection<UInt8>, _ body: (inout JSONPullReader) throws(JSONError) -> Result
    ) throws(JSONError) -> Result {
        try withContiguousBytes(of: bytes) { buffer in readPrefix(buffer: buffer, body) }.get()
    }

    /// Runs `body` on the bytes of `bytes` in contiguous memory: their own storage, or a copy when
    /// they have none.
    @inlinable
    public static func withContiguousBytes<Result>(
        of bytes: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        if let result = bytes.withContiguousStorageIfAvailable(body) { return result }
        return Array(bytes).withUnsafeBufferPointer(body)
    }

    /// ``readPrefix(_:_:)`` over a buffer.
    @inlinable
    public static func readPrefix<Result>(
        buffer: UnsafeBufferPointer<UInt8>, _ body: (inout JSONPullReader) throws(JSONError) -> Result
    ) -> Swift.Result<Result, JSONError> {
        var reader = JSONPullReader(buffer)
        return Swift.Result<Result, JSONError> { () throws(JSONError) -> Result in try body(&reader) }
    }

    /// ``read(_:_:)`` over a buffer.
    @inlinable
    public static func read<Result>(
        buffer: UnsafeBufferPointer<UInt8>, _ body: (inout JSONPullReader) throws(JSONError) -> Result
    ) -> Swift.Result<Result, JSONError> {
        var reader = JSONPullReader(buffer)
        let outcome = Swift.Result<Result, JSONError> { () throws(JSONError) -> Result in try body(&reader) }
        if case .failure(let error) = outcome, error.code == .malformed { return outcome }
        // Whatever `body` made of the value, the document must be one JSON value: finish reading it (body
        // may have stopped early) and check the end.
        do {
            try reader.finish()
        } catch {
            return .failure(error)
        }
        return outcome
    }

    /// Skips what is left of the document after the top-level value and checks the end of the input.
    @usableFromInline
    mutating func finish() throws(JSONError) {
        var start = JSONParser(parser.bytes)
        start.skipByteOrderMark()
        if parser.depth > 0 || parser.index == start.index {
            // `body` stopped inside (or before) the top-level value: the rest must still be JSON. Reread
            // the whole document; this only happens on paths that throw a type mismatch anyway.
            var whole = start
            whole.skipWhitespace()
            _ = try whole.parseValue()
            parser = whole
        }
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("Unexpected text after the JSON value") }
    }

    // MARK: Tokens

    /// The kind of the next value (after whitespace), without consuming it.
    /// - Throws: `malformed` at the end of the input or on a byte no value starts with.
    @inlinable @inline(__always)
    public mutating func peek() throws(JSONError) -> Token {
        parser.skipWhitespace()
        guard let byte = parser.peek() else { throw parser.error("Unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw parser.error("Unexpected character '\(JSONParser.printable(byte))'")
        }
    }

    // MARK: Objects

    /// Consumes `{`; `false` when the object is empty (its `}` consumed too).
    /// - Throws: `malformed` when the next value is not an object or nests too deep.
    @inlinable @inline(__always)
    public mutating func beginObject() throws(JSONError) -> Bool {
        parser.skipWhitespace()
        guard parser.peek() == UInt8(ascii: "{") else { throw parser.error("Expected an object") }
        try parser.enter()
        parser.index += 1
        parser.skipWhitespace()
        if parser.peek() == UInt8(ascii: "}") {
            parser.index += 1
            parser.depth -= 1
            return false
        }
        return true
    }

    /// Reads a member name and its `:`; the member's value is next.
    @inlinable @inline(__always)
    public mutating func readKey() throws(JSONError) -> Key {
        parser.skipWhitespace()
        guard parser.peek() == UInt8(ascii: "\"") else { throw parser.error("Expected a string key") }
        let key = try readKeyText()
        parser.skipWhitespace()
        guard parser.peek() == UInt8(ascii: ":") else { throw parser.error("Expected ':' after a key") }
        parser.index += 1
        return key
    }

    /// After a member's value: `true` when another member follows (its `,` consumed), `false` at the end of
    /// the object (its `}` consumed; a trailing comma before it is accepted, as by the tree parser).
    @inlinable @inline(__always)
    public mutating func endMember() throws(JSONError) -> Bool {
        parser.skipWhitespace()
        switch parser.peek() {
        case UInt8(ascii: ","):
            parser.index += 1
            parser.skipWhitespace()
            guard parser.peek() == UInt8(ascii: "}") else { return true }
            fallthrough
        case UInt8(ascii: "}"):
            parser.index += 1
            parser.depth -= 1
            return false
        default:
            throw parser.error("Expected ',' or '}' in an object")
        }
    }

    /// A plain name is returned as the input's bytes; one with escapes or non-ASCII bytes goes through
    /// the tree parser's string reader (same validation) and is returned as a copy of its decoded bytes.
    @inlinable @inline(__always)
    mutating func readKeyText() throws(JSONError) -> Key {
        let bytes = parser.bytes
        let start = parser.index + 1
        var index = start
        let count = bytes.count
        if let base = bytes.baseAddress.map(UnsafeRawPointer.init) {
            while index + 8 <= count {
                let special = JSONParser.specialBytes(base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                if special == 0 {
                    index += 8
                    continue
                }
                index += special.trailingZeroBitCount >> 3
                if bytes[index] == UInt8(ascii: "\"") {
                    parser.index = index + 1
                    // The name's first word is in the input (the scan's first word started there): its head
                    // in one load, without a byte loop.
                    let length = index - start
                    let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: start, as: UInt64.self))
                    let head = length >= 8 ? word : word & ((1 &<< (UInt64(truncatingIfNeeded: length) &* 8)) &- 1)
                    return Key(UnsafeBufferPointer(rebasing: bytes[start..<index]), head: head)
                }
                return try readDecodedKey()
            }
        }
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                parser.index = index + 1
                return Key(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            index += 1
        }
        return try readDecodedKey()
    }

    /// A name with escapes or non-ASCII bytes (or an unterminated one), read by the string reader.
    @usableFromInline
    mutating func readDecodedKey() throws(JSONError) -> Key {
        let string = try parser.parseString()
        decodedKey.removeAll(keepingCapacity: true)
        decodedKey.append(contentsOf: string.utf8)
        return Key(decodedKey.withUnsafeBufferPointer { $0 })
    }

    // MARK: Arrays

    /// Consumes `[`; `false` when the array is empty (its `]` consumed too).
    /// - Throws: `malformed` when the next value is not an array or nests too deep.
    @inlinable @inline(__always)
    public mutating func beginArray() throws(JSONError) -> Bool {
        parser.skipWhitespace()
        guard parser.peek() == UInt8(ascii: "[") else { throw parser.error("Expected an array") }
        try parser.enter()
        parser.index += 1
        parser.skipWhitespace()
        if parser.peek() == UInt8(ascii: "]") {
            parser.index += 1
            parser.depth -= 1
            return false
        }
        return true
    }

    /// After an element: `true` when another element follows (its `,` consumed), `false` at the end of the
    /// array (its `]` consumed; a trailing comma before it is accepted, as by the tree parser).
    @inlinable @inline(__always)
    public mutating func endElement() throws(JSONError) -> Bool {
        parser.skipWhitespace()
        switch parser.peek() {
        case UInt8(ascii: ","):
            parser.index += 1
            parser.skipWhitespace()
            guard parser.peek() == UInt8(ascii: "]") else { return true }
            fallthrough
        case UInt8(ascii: "]"):
            parser.index += 1
            parser.depth -= 1
            return false
        default:
            throw parser.error("Expected ',' or ']' in an array")
        }
    }

    // MARK: Repeated values

    /// Where a value starts in the input and how deep it is nested.
    public struct Mark: Sendable, Hashable {
        /// The offset of the value's first byte.
        public let offset: Int
        /// The nesting depth the value is read at.
        public let depth: Int
        /// The reader's deepest level before the mark.
        @usableFromInline let deepestBefore: Int

        @inlinable
        init(offset: Int, depth: Int, deepestBefore: Int) {
            self.offset = offset
            self.depth = depth
            self.deepestBefore = deepestBefore
        }
    }

    /// A value already read: its bytes, the depth it was read at and how many levels it nests (see
    /// `skipRepeat(of:)`).
    public struct Span: Sendable, Hashable {
        /// Where it started.
        public let mark: Mark
        /// Its length in bytes.
        public let count: Int
        /// How many levels deeper than its start it went (1 for an object of scalars).
        public let nesting: Int

        @inlinable
        init(mark: Mark, count: Int, nesting: Int) {
            self.mark = mark
            self.count = count
            self.nesting = nesting
        }
    }

    /// Where the next value starts (whitespace skipped); read it, then call ``span(from:)``.
    @inlinable
    public mutating func mark() -> Mark {
        parser.skipWhitespace()
        let mark = Mark(offset: parser.index, depth: parser.depth, deepestBefore: parser.deepest)
        parser.deepest = parser.depth
        return mark
    }

    /// The value read since `mark` (call it right after reading the value).
    @inlinable
    public mutating func span(from mark: Mark) -> Span {
        let span = Span(mark: mark, count: parser.index - mark.offset, nesting: parser.deepest - mark.depth)
        parser.deepest = Swift.max(parser.deepest, mark.deepestBefore)
        return span
    }

    /// The input bytes of a value read since ``mark()`` (`span` from ``span(from:)``), valid only while the
    /// reader's input is: copy them to keep them.
    @inlinable
    public func bytes(of span: Span) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: parser.bytes[span.mark.offset..<span.mark.offset + span.count])
    }

    /// Whether the next value is, byte for byte, the object or array `span` read earlier from this input,
    /// and nests within the depth limit here too; if so the reader moves past it and the caller may reuse
    /// what it made of `span`. (An object or array ends at its own closing bracket, so reading these bytes
    /// again would give the same value.) Cast receivers repeat the current item's `media` in MEDIA_STATUS
    /// `items`.
    @inlinable
    public mutating func skipRepeat(of span: Span) -> Bool {
        parser.skipWhitespace()
        // A span of this input read before here, an object or array.
        guard span.count > 1, span.mark.offset + span.count <= parser.index, let base = parser.bytes.baseAddress,
              base[span.mark.offset] == UInt8(ascii: "{") || base[span.mark.offset] == UInt8(ascii: "[")
        else { return false }
        return skipIfNext(base + span.mark.offset, count: span.count, nesting: span.nesting)
    }

    /// An object or array read whole from some input, kept beyond it (its bytes copied), so that a
    /// reader of another input can recognise it (`skipRepeat(of:)` for a remembered value). Made only by
    /// ``remember(_:)``, from a value this reader read.
    public struct RememberedValue: Sendable, Hashable {
        /// The value's bytes.
        public let bytes: [UInt8]
        /// How many levels deeper than its start it went.
        public let nesting: Int

        @inlinable
        init(bytes: [UInt8], nesting: Int) {
            self.bytes = bytes
            self.nesting = nesting
        }
    }

    /// The object or array read since a ``mark()`` (`span`, from ``span(from:)``), copied out of the input;
    /// `nil` when the span is not an object or array.
    @inlinable
    public func remember(_ span: Span) -> RememberedValue? {
        let bytes = self.bytes(of: span)
        guard bytes.count > 1, bytes[0] == UInt8(ascii: "{") || bytes[0] == UInt8(ascii: "[") else { return nil }
        return RememberedValue(bytes: Array(bytes), nesting: span.nesting)
    }

    /// `skipRepeat(of:)` for a value remembered from an earlier input: whether the next value is,
    /// byte for byte, `value`, and nests within the depth limit here too. If so the reader moves past it
    /// and the caller may reuse what it made of those bytes. Cast receivers repeat the current `media`
    /// in every MEDIA_STATUS of a session.
    @inlinable
    public mutating func skipRepeat(of value: RememberedValue) -> Bool {
        value.bytes.withUnsafeBufferPointer { skipIfNext($0.baseAddress!, count: $0.count, nesting: value.nesting) }
    }

    /// Whether the next value is, byte for byte, the `count` bytes at `candidate` (a whole object or
    /// array going `nesting` levels deep), and nests within the depth limit here; if so the reader
    /// moves past it. The one comparison behind both `skipRepeat(of:)`s.
    @inlinable
    mutating func skipIfNext(_ candidate: UnsafePointer<UInt8>, count: Int, nesting: Int) -> Bool {
        parser.skipWhitespace()
        let index = parser.index
        guard parser.depth + nesting <= JSONParser.maxDepth, parser.bytes.count - index >= count,
              let base = parser.bytes.baseAddress, memcmp(base + index, candidate, count) == 0
        else { return false }
        parser.index = index + count
        return true
    }

    // MARK: Scalars and subtrees

    /// Reads a string. - Throws: `malformed` when the next value is not a valid string.
    public mutating func readString() throws(JSONError) -> String {
        parser.skipWhitespace()
        guard parser.peek() == UInt8(ascii: "\"") else { throw parser.error("Expected a string") }
        return try parser.parseString()
    }

    /// Reads a number. - Throws: `malformed` when the next value is not a valid, finite number.
    public mutating func readNumber() throws(JSONError) -> Double {
        parser.skipWhitespace()
        return try parser.parseNumber()
    }

    /// Reads the next value, whatever it is, as a tree.
    @inlinable
    public mutating func readValue() throws(JSONError) -> JSONValue {
        parser.skipWhitespace()
        return try parser.parseValue()
    }

    /// Reads past the next value, checking it as strictly as ``readValue()`` would, without keeping it.
    public mutating func skipValue() throws(JSONError) {
        switch try peek() {
        case .object:
            var more = try beginObject()
            while more {
                _ = try readKey()
                try skipValue()
                more = try endMember()
            }
        case .array:
            var more = try beginArray()
            while more {
                try skipValue()
                more = try endElement()
            }
        case .string: try parser.skipString()
        case .number: _ = try parser.parseNumber()
        case .bool, .null: _ = try parser.parseValue()
        }
    }

    // MARK: Lenient typed reads

    /// The next value when it is a string; any other value is consumed and reads as `nil`.
    @inlinable @inline(__always)
    public mutating func lenientString() throws(JSONError) -> String? {
        guard try peek() == .string else {
            try skipValue()
            return nil
        }
        return try parser.parseString()
    }

    /// The next value when it is a number; any other value is consumed and reads as `nil`.
    @inlinable @inline(__always)
    public mutating func lenientDouble() throws(JSONError) -> Double? {
        guard try peek() == .number else {
            try skipValue()
            return nil
        }
        return try parser.parseNumber()
    }

    /// The next value when it is a number that is exactly an `Int` (the tree's `Int(exactly:)` rule); any
    /// other value is consumed and reads as `nil`.
    @inlinable @inline(__always)
    public mutating func lenientInt() throws(JSONError) -> Int? {
        try lenientDouble().flatMap { Int(exactly: $0) }
    }

    /// The next value when it is `true` or `false`; any other value is consumed and reads as `nil`.
    @inlinable
    public mutating func lenientBool() throws(JSONError) -> Bool? {
        guard try peek() == .bool else {
            try skipValue()
            return nil
        }
        if parser.bytes[parser.index] == UInt8(ascii: "t") {
            try parser.expectLiteral("true")
            return true
        }
        try parser.expectLiteral("false")
        return false
    }

    /// The next value as a tree, `nil` for `null`.
    @inlinable
    public mutating func optionalValue() throws(JSONError) -> JSONValue? {
        let value = try readValue()
        if case .null = value { return nil }
        return value
    }

    /// The next value when it is an array of exact integers; any other value (or an array with another
    /// element) is consumed and reads as `nil`.
    public mutating func lenientInts() throws(JSONError) -> [Int]? {
        try lenientArray { reader throws(JSONError) in try reader.lenientInt() }
    }

    /// The next value when it is an array of strings; any other value (or an array with another element)
    /// is consumed and reads as `nil`.
    public mutating func lenientStrings() throws(JSONError) -> [String]? {
        try lenientArray { reader throws(JSONError) in try reader.lenientString() }
    }

    /// The next value when it is an array whose every element `element` reads (non-`nil`); all or nothing.
    /// Anything else is consumed and reads as `nil`; `element` must consume one value per call.
    @inlinable
    public mutating func lenientArray<Element>(
        _ element: (inout JSONPullReader) throws(JSONError) -> Element?
    ) throws(JSONError) -> [Element]? {
        guard try peek() == .array else {
            try skipValue()
            return nil
        }
        var result: [Element]? = []
        var more = try beginArray()
        while more {
            if let value = try element(&self) { result?.append(value) } else { result = nil }
            more = try endElement()
        }
        return result
    }
}


/// The member names a decoder knows, matched against a ``JSONPullReader/Key`` by length and bytes (no
/// `String` is made for a known name).
///
/// ```swift
/// private enum Member: Int, CaseIterable { case type, requestId }
/// private static let members = JSONKeySet(Member.allCases.map { "\($0)" })
/// let member = members.index(of: key).flatMap(Member.init(rawValue:))
/// ```
///
/// A name is found through a small open-addressing table hashed by its length and first eight bytes:
/// usually one probe, where a scan of the names compared a third of them on average (a status has
/// twenty members, and MEDIA_STATUS some 170 names to look up).
@_spi(JSONReading) public struct JSONKeySet: Sendable {
    /// One name: its length and its first eight bytes (little-endian, zero-padded), which decide most
    /// comparisons; `offset` locates the rest in `tails`.
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline let count: Int
        @usableFromInline let head: UInt64
        @usableFromInline let offset: Int
    }

    @usableFromInline let entries: [Entry]
    /// The bytes of every name past its eighth, one name after the other.
    @usableFromInline let tails: [UInt8]
    /// The table: an entry's index plus one, or 0 for an empty slot; its size is a power of two, at
    /// least four times the names, so probes are short and one is always empty.
    @usableFromInline let slots: [UInt16]
    /// How far a hash is shifted right to give a slot (64 minus the table's bits).
    @usableFromInline let shift: UInt64

    /// The set of `names`; a name's index is its position. A repeated name keeps its first position.
    public init(_ names: [String]) {
        precondition(names.count < Int(UInt16.max) / 4, "JSONKeySet holds fewer than 16 383 names")
        var entries: [Entry] = []
        var tails: [UInt8] = []
        for name in names {
            let bytes = Array(name.utf8)
            let head = bytes.withUnsafeBufferPointer { Self.head($0) }
            entries.append(Entry(count: bytes.count, head: head, offset: tails.count))
            if bytes.count > 8 { tails.append(contentsOf: bytes[8...]) }
        }
        var bits: UInt64 = 3
        while (1 << bits) < 4 * names.count { bits += 1 }
        let mask = (1 << Int(bits)) - 1
        var slots = [UInt16](repeating: 0, count: mask + 1)
        for (index, entry) in entries.enumerated() {
            var slot = Self.slot(head: entry.head, count: entry.count, shift: 64 - bits)
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt16(index + 1)
        }
        self.entries = entries
        self.tails = tails
        self.slots = slots
        shift = 64 - bits
    }

    /// The position of `key`'s name; `nil` when it is not in the set.
    @inlinable @inline(__always)
    public func index(of key: JSONPullReader.Key) -> Int? {
        let bytes = key.bytes
        let count = bytes.count
        let head = key.head
        return slots.withUnsafeBufferPointer { slots in
            entries.withUnsafeBufferPointer { entries in
                let mask = slots.count - 1
                var slot = Self.slot(head: head, count: count, shift: shift)
                while true {
                    let stored = Int(slots[slot])
                    if stored == 0 { return nil }
                    let entry = entries[stored - 1]
                    if entry.count == count, entry.head == head {
                        if count <= 8 { return stored - 1 }
                        let equal = tails.withUnsafeBufferPointer { tails in
                            memcmp(tails.baseAddress! + entry.offset, bytes.baseAddress! + 8, count - 8) == 0
                        }
                        if equal { return stored - 1 }
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
    }

    /// The slot a name's length and head hash to (Fibonacci hashing: the product's top bits).
    @inlinable @inline(__always)
    static func slot(head: UInt64, count: Int, shift: UInt64) -> Int {
        Int(truncatingIfNeeded: ((head ^ UInt64(truncatingIfNeeded: count)) &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    /// The first eight bytes of `bytes` as a little-endian word, zero-padded.
    @inlinable @inline(__always)
    static func head(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard let base = bytes.baseAddress else { return 0 }
        if bytes.count >= 8 { return UInt64(littleEndian: UnsafeRawPointer(base).loadUnaligned(as: UInt64.self)) }
        var word: UInt64 = 0
        for index in 0..<bytes.count { word |= UInt64(base[index]) << (8 * UInt64(index)) }
        return word
    }
}
