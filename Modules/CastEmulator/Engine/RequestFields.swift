@_spi(JSONReading) import CastJSON

/// Why a request was refused: the error message a real receiver would send back.
struct RequestFailure: Error, Sendable, Hashable {
    /// The error `type` (`INVALID_REQUEST`, `INVALID_PLAYER_STATE`, `LAUNCH_ERROR`, …).
    var type: String
    /// The `reason`, when the error type has one.
    var reason: String?
    /// Extra members of the error message.
    var extra: [String: JSONValue] = [:]

    static func invalidRequest(_ reason: String) -> RequestFailure {
        RequestFailure(type: "INVALID_REQUEST", reason: reason)
    }
    static let invalidParams = invalidRequest("INVALID_PARAMS")
    static let invalidCommand = invalidRequest("INVALID_COMMAND")
    static let invalidPlayerState = RequestFailure(type: "INVALID_PLAYER_STATE", reason: nil)

    /// The error message carrying `requestId`.
    func message(requestId: Int) -> JSONValue {
        var members = extra
        members["type"] = .string(type)
        members["requestId"] = JSONValue(requestId)
        if let reason { members["reason"] = .string(reason) }
        return .object(members)
    }
}

/// Typed access to the members of a request object, read the way a Cast receiver reads them
/// (see ``Lenient``): `null` is absent, `"true"` and 1 are booleans, `"5"` is a number. A member
/// that is present and still cannot be read as its type is an `INVALID_PARAMS` error, never
/// silently ignored.
///
/// The members are kept as they were read, in a list searched from its end (a repeated name keeps
/// its last value, as in a dictionary): a request has a handful of members, each looked up once or
/// twice, and hashing every name into a dictionary cost more than the scan (a SEEK: four members,
/// six lookups).
struct RequestFields: Sendable {
    private var names: [String]
    private var values: [JSONValue]
    /// The `requestId` as written, when it is an integer literal within `Int`'s range: exact over 64
    /// bits, where ``subscript(_:)`` holds a `Double` (exact only up to 2^53).
    private(set) var exactRequestId: Int?

    init(_ members: [String: JSONValue]) {
        names = Array(members.keys)
        values = Array(members.values)
    }

    private init(names: [String], values: [JSONValue]) {
        self.names = names
        self.values = values
    }

    /// The members of a JSON object in `text`, read straight from its bytes: `nil` when `text` is not
    /// one JSON object, exactly when `JSONValue(parsing: text).objectValue` is `nil`.
    static func object(inJSON text: String) -> RequestFields? {
        var text = text
        return text.withUTF8 { bytes in
            try? JSONPullReader.read(bytes) { reader throws(JSONError) -> RequestFields? in
                guard try reader.peek() == .object else {
                    try reader.skipValue()
                    return nil
                }
                var fields = RequestFields(names: [], values: [])
                // Room for a usual request's members at once: growing both lists one by one cost a
                // SEEK three reallocations each.
                fields.names.reserveCapacity(8)
                fields.values.reserveCapacity(8)
                var more = try reader.beginObject()
                while more {
                    let name = try reader.readKey().string
                    fields.names.append(name)
                    if name == "requestId" {
                        // Its digits as written: a 64-bit id is echoed exactly (a repeated one: the last).
                        let mark = reader.mark()
                        fields.values.append(try reader.readValue())
                        fields.exactRequestId = Self.integer(reader.bytes(of: reader.span(from: mark)))
                    } else {
                        fields.values.append(try reader.readValue())
                    }
                    more = try reader.endMember()
                }
                return fields
            }
        } ?? nil
    }

    /// The integer an integer literal (`-`, then digits) stands for, when `Int` holds it exactly; `nil`
    /// for anything else (a fraction, an exponent, a string, a number past `Int`'s range).
    static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 20 else { return nil }
        var digits = bytes[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        var magnitude: UInt64 = 0
        for digit in digits {
            let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            magnitude = sum
        }
        if negative { return magnitude <= UInt64(Int.max) + 1 ? Int(truncatingIfNeeded: 0 &- magnitude) : nil }
        return magnitude <= UInt64(Int.max) ? Int(magnitude) : nil
    }

    /// The value of the member `name` (its last occurrence), `null` included.
    subscript(name: String) -> JSONValue? {
        guard let index = names.lastIndex(of: name) else { return nil }
        return values[index]
    }

    /// The members as a dictionary (a repeated name keeps its last value).
    var members: [String: JSONValue] {
        Dictionary(zip(names, values), uniquingKeysWith: { _, last in last })
    }

    /// The value of `key` when present and not `null` (looked up once).
    func present(_ key: String) -> JSONValue? {
        guard let value = self[key], value != .null else { return nil }
        return value
    }

    func has(_ key: String) -> Bool { present(key) != nil }

    /// The value of `key` converted by `convert`; `nil` when absent or `null`, `invalidParams` when
    /// `convert` refuses it.
    private func typed<Value>(_ key: String, _ convert: (JSONValue) -> Value?) throws(RequestFailure) -> Value? {
        guard let value = present(key) else { return nil }
        guard let converted = convert(value) else { throw .invalidParams }
        return converted
    }

    func int(_ key: String) throws(RequestFailure) -> Int? { try typed(key, Lenient.int) }

    func number(_ key: String) throws(RequestFailure) -> Double? { try typed(key, Lenient.number) }

    func bool(_ key: String) throws(RequestFailure) -> Bool? { try typed(key, Lenient.bool) }

    func string(_ key: String) throws(RequestFailure) -> String? { try typed(key, \.stringValue) }

    func object(_ key: String) throws(RequestFailure) -> [String: JSONValue]? { try typed(key, \.objectValue) }

    func array(_ key: String) throws(RequestFailure) -> [JSONValue]? { try typed(key, \.arrayValue) }

    func intArray(_ key: String) throws(RequestFailure) -> [Int]? {
        guard let array = try array(key) else { return nil }
        var ints: [Int] = []
        for element in array {
            guard let int = Lenient.int(element) else { throw .invalidParams }
            ints.append(int)
        }
        return ints
    }

    func stringArray(_ key: String) throws(RequestFailure) -> [String]? {
        guard let array = try array(key) else { return nil }
        var strings: [String] = []
        for element in array {
            guard let string = element.stringValue else { throw .invalidParams }
            strings.append(string)
        }
        return strings
    }
}

/// A small seedable generator (SplitMix64) so shuffles are reproducible in tests.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
