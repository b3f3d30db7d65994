import CastJSON
import CastMediaMetadata

/// A coding key for any member name.
struct AnyCodingKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Writes `members` next to the modelled fields.
func encodeUnknown(_ members: [String: JSONValue], to encoder: any Encoder) throws {
    guard !members.isEmpty else { return }
    var container = encoder.container(keyedBy: AnyCodingKey.self)
    for (key, value) in members { try container.encode(value, forKey: AnyCodingKey(key)) }
}

// Tolerant reading of nested models: a receiver's odd field never fails a whole status. These are the
// rules the Codable decoders had (`decodeIfPresent` under `try?`), kept exactly.
extension JSONObjectReader {
    /// The member `key` read by `make`; `nil` when missing, `null` or unreadable.
    func model<Model>(_ key: Key, _ make: (JSONValue) throws(JSONError) -> Model) -> Model? {
        guard let value = self[key] else { return nil }
        do {
            return try make(value)
        } catch {
            return nil
        }
    }

    /// The array member `key` with every element read by `make`; `nil` when missing, not an array, or when
    /// any element is unreadable (all or nothing, like a lenient `[Model]`).
    func models<Model>(_ key: Key, _ make: (JSONValue) throws(JSONError) -> Model) -> [Model]? {
        elements(key, make, skippingUnreadable: false)
    }

    /// The array member `key` with the readable elements; unreadable ones are skipped, a missing member or
    /// another type reads as empty.
    func readableModels<Model>(_ key: Key, _ make: (JSONValue) throws(JSONError) -> Model) -> [Model] {
        elements(key, make, skippingUnreadable: true) ?? []
    }

    /// The elements of array member `key` read by `make`; `nil` when missing, not an array, or (unless
    /// `skippingUnreadable`) when an element is unreadable.
    private func elements<Model>(
        _ key: Key, _ make: (JSONValue) throws(JSONError) -> Model, skippingUnreadable: Bool
    ) -> [Model]? {
        guard case .array(let elements)? = self[key] else { return nil }
        var result: [Model] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            do {
                result.append(try make(element))
            } catch {
                if skippingUnreadable { continue }
                return nil
            }
        }
        return result
    }

    /// The string-enumeration member `key`; `nil` when missing or not a string.
    func enumeration<Value: CastStringEnumeration>(_ key: Key, _ type: Value.Type = Value.self) -> Value? {
        string(key).map(Value.init(rawValue:))
    }
}
