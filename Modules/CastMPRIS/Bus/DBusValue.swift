/// One D-Bus value, as the wire format types it: basic types, arrays (of one element signature),
/// dictionary entries (inside arrays only), variants and structs.
///
/// The MPRIS logic speaks only in these values; `DBusMessage` turns them into libdbus calls.
/// Unix file descriptors are not supported: nothing in MPRIS carries one, and a message holding
/// one is refused.
indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// An array whose elements all have the signature `element`.
    case array(element: String, [DBusValue])
    /// A dictionary entry `{key value}`; only valid as an array element.
    case dictEntry(DBusValue, DBusValue)
    case variant(DBusValue)
    case structure([DBusValue])

    /// The value's type signature.
    var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .array(let element, _): "a" + element
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .variant: "v"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }

    /// An `a{sv}` dictionary of string keys, sorted by key (a stable wire form).
    static func vardict(_ entries: [String: DBusValue]) -> DBusValue {
        .array(element: "{sv}", entries.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .variant($0.value)) })
    }

    /// An array of strings (`as`).
    static func strings(_ values: [String]) -> DBusValue {
        .array(element: "s", values.map(DBusValue.string))
    }

    /// An array of object paths (`ao`).
    static func objectPaths(_ values: [String]) -> DBusValue {
        .array(element: "o", values.map(DBusValue.objectPath))
    }

    // MARK: Reading

    /// The string of a `s` value.
    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The path of an `o` value.
    var objectPathValue: String? {
        if case .objectPath(let value) = self { return value }
        return nil
    }

    /// The number of an `x` value.
    var int64Value: Int64? {
        if case .int64(let value) = self { return value }
        return nil
    }

    /// The number of a `d` value.
    var doubleValue: Double? {
        if case .double(let value) = self { return value }
        return nil
    }

    /// The truth of a `b` value.
    var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The content of a `v` value.
    var variantValue: DBusValue? {
        if case .variant(let value) = self { return value }
        return nil
    }

    /// The entries of an `a{s…}` dictionary, keyed by string (later duplicates win).
    var dictionaryValue: [String: DBusValue]? {
        guard case .array(_, let elements) = self else { return nil }
        var result: [String: DBusValue] = [:]
        for element in elements {
            guard case .dictEntry(.string(let key), let value) = element else { return nil }
            result[key] = value
        }
        return result
    }
}

extension DBusValue {
    /// Whether `path` is a valid D-Bus object path: `/`, or `/`-separated non-empty elements of
    /// `[A-Za-z0-9_]` with no trailing `/`.
    static func isValidObjectPath(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/") else { return false }
        var previousSlash = false
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                if previousSlash { return false }
                previousSlash = true
                continue
            }
            previousSlash = false
            let ok = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_")
            if !ok { return false }
        }
        return true
    }
}
