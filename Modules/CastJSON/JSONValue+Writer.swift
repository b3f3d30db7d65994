/// The compact JSON writer behind ``JSONValue/serialized()``: sorted keys, no insignificant
/// whitespace, `/` unescaped, integral numbers without a fraction, non-finite numbers as `null`.
///
/// Every message Castor sends (and every status the emulated receiver sends) is written here, so it
/// appends straight to a `JSONOutput` instead of going through `JSONEncoder`'s generic machinery.
extension JSONValue {
    func write(into output: inout JSONOutput) {
        switch self {
        case .null: output.append("null")
        case .bool(let value): output.append(value ? "true" : "false")
        case .number(let value): Self.write(number: value, into: &output)
        case .string(let value): Self.write(string: value, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                element.write(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            var first = true
            Self.forEachSorted(members) { key, value in
                Self.write(member: key, value, first: &first, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Writes `members` as an object with the member `key` set to `value` (replacing one of the same
    /// name), in the sorted order `write(into:)` uses.
    static func write(members: [String: JSONValue], setting key: String, to value: JSONValue, into output: inout JSONOutput) {
        output.append(UInt8(ascii: "{"))
        var first = true
        var pending = true
        forEachSorted(members) { name, member in
            if name == key {
                // Replaced under the dictionary's own spelling of the key, as setting it would keep it
                // (`==` is canonical equivalence: "é" precomposed finds "e" + U+0301).
                write(member: name, value, first: &first, into: &output)
                pending = false
                return
            }
            if pending, key < name {
                write(member: key, value, first: &first, into: &output)
                pending = false
            }
            write(member: name, member, first: &first, into: &output)
        }
        if pending { write(member: key, value, first: &first, into: &output) }
        output.append(UInt8(ascii: "}"))
    }

    /// The text of this object (``serialized()``) with its member `key` written as the integer
    /// `value` with all its digits, whatever number the tree holds there (a `Double`, exact only up to
    /// 2^53); ``serialized()`` itself for anything that is not an object.
    ///
    /// For replies that must carry a 64-bit integer exactly, such as a request's `requestId` echoed back.
    package func serialized(settingInteger key: String, to value: Int) -> String {
        guard case .object(let members) = self else { return serialized() }
        var output = JSONOutput(capacity: 256)
        output.append(UInt8(ascii: "{"))
        var first = true
        var pending = true
        func writeInteger(_ name: String) {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            Self.write(string: name, into: &output)
            output.append(UInt8(ascii: ":"))
            output.appendInteger(value)
        }
        Self.forEachSorted(members) { name, member in
            if name == key {
                writeInteger(name)
                pending = false
                return
            }
            if pending, key < name {
                writeInteger(key)
                pending = false
            }
            Self.write(member: name, member, first: &first, into: &output)
        }
        if pending { writeInteger(key) }
        output.append(UInt8(ascii: "}"))
        return output.string
    }

    /// The most members ``forEachSorted(_:_:)`` orders in place; larger objects are sorted as an array.
    static var smallObjectLimit: Int { 16 }

    /// Calls `body` with each member of `members` in ascending key order (`String`'s `<`: the order
    /// `sorted(by: { $0.key < $1.key })` gives, keys being unique).
    ///
    /// A small object's member indices are insertion-sorted in a stack buffer: sorting the (key, value)
    /// pairs into an array allocated it and retained every key and value, for each object written (every
    /// command a sender writes is one).
    static func forEachSorted(_ members: [String: JSONValue], _ body: (String, JSONValue) -> Void) {
        let count = members.count
        if count <= 1 {
            for (key, value) in members { body(key, value) }
            return
        }
        if count > smallObjectLimit {
            for (key, value) in members.sorted(by: { $0.key < $1.key }) { body(key, value) }
            return
        }
        withUnsafeTemporaryAllocation(of: Dictionary<String, JSONValue>.Index.self, capacity: count) { order in
            var filled = 0
            var index = members.startIndex
            while index != members.endIndex {
                order.initializeElement(at: filled, to: index)
                var slot = filled
                // Whole members, not `members.keys[…]` into a local: that measured 150 instructions more
                // per command (callgrind, `seek-work --side sender`).
                while slot > 0, members[order[slot]].key < members[order[slot - 1]].key {
                    order.swapAt(slot, slot - 1)
                    slot -= 1
                }
                filled += 1
                members.formIndex(after: &index)
            }
            for position in 0..<filled {
                let (key, value) = members[order[position]]
                body(key, value)
            }
            _ = order[0..<filled].deinitialize()
        }
    }

    private static func write(member key: String, _ value: JSONValue, first: inout Bool, into output: inout JSONOutput) {
        if !first { output.append(UInt8(ascii: ",")) }
        first = false
        write(string: key, into: &output)
        output.append(UInt8(ascii: ":"))
        value.write(into: &output)
    }

    static func write(number: Double, into output: inout JSONOutput) {
        guard number.isFinite else {
            output.append("null")
            return
        }
        if number.rounded() == number, abs(number) < 9_007_199_254_740_992 {
            output.appendInteger(Int(number))
            return
        }
        var text = number.description  // the shortest text that reads back the same
        text.withUTF8 { output.append($0) }
    }

    private static let hexDigits: StaticString = "0123456789abcdef"

    static func write(string: String, into output: inout JSONOutput) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var start = 0
            var index = 0
            let count = utf8.count
            while index < count {
                // Eight bytes at a time while none needs escaping (a quote, a backslash, a control
                // character): most strings are copied whole.
                while index + 8 <= count, !needsEscape(UnsafeRawPointer(utf8.baseAddress! + index).loadUnaligned(as: UInt64.self)) {
                    index += 8
                }
                guard index < count else { break }
                let byte = utf8[index]
                let escape: UInt8
                switch byte {
                case UInt8(ascii: "\""): escape = UInt8(ascii: "\"")
                case UInt8(ascii: "\\"): escape = UInt8(ascii: "\\")
                case 0x08: escape = UInt8(ascii: "b")
                case 0x0C: escape = UInt8(ascii: "f")
                case 0x0A: escape = UInt8(ascii: "n")
                case 0x0D: escape = UInt8(ascii: "r")
                case 0x09: escape = UInt8(ascii: "t")
                case 0x00..<0x20: escape = UInt8(ascii: "u")
                default:
                    index += 1
                    continue
                }
                output.append(UnsafeBufferPointer(rebasing: utf8[start..<index]))
                output.append(UInt8(ascii: "\\"), escape)
                if escape == UInt8(ascii: "u") {
                    let hex = hexDigits.utf8Start
                    output.append(UInt8(ascii: "0"), UInt8(ascii: "0"))
                    output.append(hex[Int(byte >> 4)], hex[Int(byte & 0xF)])
                }
                index += 1
                start = index
            }
            output.append(UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes in `word` is a quote, a backslash or below 0x20 (a byte-wise
    /// test without branches: each comparison sets the byte's high bit where it holds).
    @inline(__always)
    private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func zeroByte(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let control = (word &- ones &* 0x20) & ~word & highs  // a byte < 0x20
        let quote = zeroByte(word ^ (ones &* UInt64(UInt8(ascii: "\""))))
        let backslash = zeroByte(word ^ (ones &* UInt64(UInt8(ascii: "\\"))))
        return (control | quote | backslash) != 0
    }
}

extension JSONValue {
    /// An upper bound on the byte count of ``serialized()``, found without writing anything, or `nil`
    /// once it passes `limit` (the walk stops there).
    ///
    /// Every string counts six bytes per UTF-8 byte (the longest escape, `\u001f`) and every number
    /// 32, so the bound is loose; it answers "certainly smaller than" cheaply for the small requests a
    /// sender makes for most commands, which then need no exact size.
    package func serializedSizeBound(upTo limit: Int) -> Int? {
        var total = 0
        return addSerializedSizeBound(to: &total, limit: limit) ? total : nil
    }

    private func addSerializedSizeBound(to total: inout Int, limit: Int) -> Bool {
        switch self {
        case .null, .bool: total += 5
        case .number: total += 32
        case .string(let value): total += 2 + 6 * value.utf8.count
        case .array(let elements):
            total += 2 + elements.count
            for element in elements where !element.addSerializedSizeBound(to: &total, limit: limit) { return false }
        case .object(let members):
            total += 2 + members.count * 4
            for (key, value) in members {
                total += 6 * key.utf8.count
                guard total <= limit, value.addSerializedSizeBound(to: &total, limit: limit) else { return false }
            }
        }
        return total <= limit
    }
}
