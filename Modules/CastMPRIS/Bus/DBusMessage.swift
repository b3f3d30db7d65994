import CDBus

/// A D-Bus message (libdbus's `DBusMessage`), owned: the reference is released when this object goes.
///
/// Not thread-safe on its own; a message is built, sent or read on one queue at a time.
final class DBusMessage: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of a reference the caller holds (a `_new_` or `_copy` result).
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Adds a reference to a message libdbus lends (a handler's argument).
    init(retaining pointer: OpaquePointer) {
        self.pointer = dbus_message_ref(pointer)
    }

    deinit {
        dbus_message_unref(pointer)
    }

    enum Kind: Sendable, Hashable {
        case methodCall, methodReturn, error, signal, other
    }

    var kind: Kind {
        switch dbus_message_get_type(pointer) {
        case DBUS_MESSAGE_TYPE_METHOD_CALL: .methodCall
        case DBUS_MESSAGE_TYPE_METHOD_RETURN: .methodReturn
        case DBUS_MESSAGE_TYPE_ERROR: .error
        case DBUS_MESSAGE_TYPE_SIGNAL: .signal
        default: .other
        }
    }

    var path: String? { dbus_message_get_path(pointer).map { String(cString: $0) } }
    var interface: String? { dbus_message_get_interface(pointer).map { String(cString: $0) } }
    var member: String? { dbus_message_get_member(pointer).map { String(cString: $0) } }
    var signature: String { dbus_message_get_signature(pointer).map { String(cString: $0) } ?? "" }
    var sender: String? { dbus_message_get_sender(pointer).map { String(cString: $0) } }
    var errorName: String? { dbus_message_get_error_name(pointer).map { String(cString: $0) } }
    var noReply: Bool { dbus_message_get_no_reply(pointer) != 0 }

    // MARK: Making messages

    /// A method call.
    static func methodCall(destination: String?, path: String, interface: String?, member: String) -> DBusMessage? {
        guard let message = dbus_message_new_method_call(destination, path, interface, member) else { return nil }
        return DBusMessage(owning: message)
    }

    /// A signal.
    static func signal(path: String, interface: String, member: String) -> DBusMessage? {
        guard DBusValue.isValidObjectPath(path), let message = dbus_message_new_signal(path, interface, member) else { return nil }
        return DBusMessage(owning: message)
    }

    /// The method return answering this call.
    func makeReturn() -> DBusMessage? {
        dbus_message_new_method_return(pointer).map(DBusMessage.init(owning:))
    }

    /// The error answering this call.
    func makeError(name: String, message: String) -> DBusMessage? {
        dbus_message_new_error(pointer, name, message).map(DBusMessage.init(owning:))
    }

    // MARK: Arguments

    /// Appends values as arguments.
    /// - Throws: ``DBusCodingError`` when a value cannot be written (an invalid object path or
    ///   signature, a string with a NUL, a mismatched array element).
    func append(_ values: [DBusValue]) throws(DBusCodingError) {
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(pointer, &iterator)
        for value in values {
            try Self.write(value, into: &iterator)
        }
    }

    /// Reads every argument.
    /// - Throws: ``DBusCodingError`` for a type MPRIS never uses (Unix file descriptors).
    func arguments() throws(DBusCodingError) -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(pointer, &iterator) != 0 else { return [] }
        var values: [DBusValue] = []
        repeat {
            guard let value = try Self.read(&iterator, depth: 0) else { break }
            values.append(value)
        } while dbus_message_iter_next(&iterator) != 0
        return values
    }

    // MARK: Wire form

    /// The message in wire format (`dbus_message_marshal`).
    func marshalled() -> [UInt8]? {
        var buffer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        // A message not sent yet has serial 0, which the wire format forbids.
        if dbus_message_get_serial(pointer) == 0 { dbus_message_set_serial(pointer, 1) }
        guard dbus_message_marshal(pointer, &buffer, &length) != 0, let buffer else { return nil }
        defer { dbus_free(buffer) }
        return buffer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) { Array(UnsafeBufferPointer(start: $0, count: Int(length))) }
    }

    /// Parses a message in wire format (`dbus_message_demarshal`), which validates everything the
    /// D-Bus specification requires (header fields, signature, alignment, UTF-8, nesting depth).
    static func demarshal(_ bytes: [UInt8]) throws(DBusCodingError) -> DBusMessage {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let message = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.flatMap { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { dbus_message_demarshal($0, Int32(buffer.count), &error) }
            }
        }
        guard let message else {
            throw DBusCodingError(message: error.message.map { String(cString: $0) } ?? "not a D-Bus message")
        }
        return DBusMessage(owning: message)
    }
}

/// A value that cannot be written to, or read from, a D-Bus message.
struct DBusCodingError: Error, Sendable, CustomStringConvertible {
    var message: String
    var description: String { message }
}

// MARK: Iterators

extension DBusMessage {
    private static func code(_ character: Unicode.Scalar) -> Int32 { Int32(character.value) }

    private static func write(_ value: DBusValue, into iterator: inout DBusMessageIter) throws(DBusCodingError) {
        func basic<T: BitwiseCopyable>(_ type: Unicode.Scalar, _ value: T) throws(DBusCodingError) {
            var copy = value
            guard dbus_message_iter_append_basic(&iterator, code(type), &copy) != 0 else {
                throw DBusCodingError(message: "out of memory appending a \(type) value")
            }
        }
        switch value {
        case .byte(let v): try basic("y", v)
        case .bool(let v): try basic("b", dbus_bool_t(v ? 1 : 0))
        case .int16(let v): try basic("n", v)
        case .uint16(let v): try basic("q", v)
        case .int32(let v): try basic("i", v)
        case .uint32(let v): try basic("u", v)
        case .int64(let v): try basic("x", v)
        case .uint64(let v): try basic("t", v)
        case .double(let v): try basic("d", v)
        case .string(let text), .objectPath(let text), .signature(let text):
            let type: Unicode.Scalar
            switch value {
            case .objectPath:
                guard DBusValue.isValidObjectPath(text) else { throw DBusCodingError(message: "invalid object path \(text)") }
                type = "o"
            case .signature:
                guard dbus_signature_validate(text, nil) != 0 else { throw DBusCodingError(message: "invalid signature \(text)") }
                type = "g"
            default:
                guard !text.utf8.contains(0) else { throw DBusCodingError(message: "a string holds a NUL character") }
                type = "s"
            }
            let ok = text.withCString { cString in
                var pointer: UnsafePointer<CChar>? = cString
                return dbus_message_iter_append_basic(&iterator, code(type), &pointer)
            }
            guard ok != 0 else { throw DBusCodingError(message: "libdbus refused a \(type) value") }
        case .array(let element, let elements):
            // `{sv}` alone is no complete type; `a{sv}` is (a dict entry is valid only as an array element).
            guard dbus_signature_validate_single("a" + element, nil) != 0 else {
                throw DBusCodingError(message: "invalid array element signature \(element)")
            }
            guard elements.allSatisfy({ $0.signature == element }) else {
                throw DBusCodingError(message: "an array element does not have the signature \(element)")
            }
            try container("a", signature: element, of: elements, iterator: &iterator)
        case .dictEntry(let key, let entryValue):
            try container("e", signature: nil, of: [key, entryValue], iterator: &iterator)
        case .variant(let inner):
            guard dbus_signature_validate_single(inner.signature, nil) != 0 else {
                throw DBusCodingError(message: "invalid variant content \(inner.signature)")
            }
            try container("v", signature: inner.signature, of: [inner], iterator: &iterator)
        case .structure(let fields):
            guard !fields.isEmpty else { throw DBusCodingError(message: "an empty struct") }
            try container("r", signature: nil, of: fields, iterator: &iterator)
        }
    }

    private static func container(_ type: Unicode.Scalar, signature: String?, of values: [DBusValue],
                                  iterator: inout DBusMessageIter) throws(DBusCodingError) {
        var sub = DBusMessageIter()
        guard dbus_message_iter_open_container(&iterator, code(type), signature, &sub) != 0 else {
            throw DBusCodingError(message: "libdbus refused a \(type) container")
        }
        do {
            for value in values { try write(value, into: &sub) }
        } catch {
            dbus_message_iter_abandon_container(&iterator, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iterator, &sub) != 0 else {
            throw DBusCodingError(message: "libdbus could not close a \(type) container")
        }
    }

    /// The D-Bus specification bounds nesting at 64 levels; libdbus validated it already.
    private static let maxDepth = 64

    private static func read(_ iterator: inout DBusMessageIter, depth: Int) throws(DBusCodingError) -> DBusValue? {
        guard depth <= maxDepth else { throw DBusCodingError(message: "nested too deep") }
        let type = dbus_message_iter_get_arg_type(&iterator)
        func basic<T: BitwiseCopyable>(_ initial: T) -> T {
            var value = initial
            dbus_message_iter_get_basic(&iterator, &value)
            return value
        }
        func text() -> String {
            var pointer: UnsafePointer<CChar>?
            dbus_message_iter_get_basic(&iterator, &pointer)
            return pointer.map { String(cString: $0) } ?? ""
        }
        switch Unicode.Scalar(UInt32(max(0, type))).map(Character.init) {
        case nil, "\0": return nil
        case "y": return .byte(basic(UInt8(0)))
        case "b": return .bool(basic(dbus_bool_t(0)) != 0)
        case "n": return .int16(basic(Int16(0)))
        case "q": return .uint16(basic(UInt16(0)))
        case "i": return .int32(basic(Int32(0)))
        case "u": return .uint32(basic(UInt32(0)))
        case "x": return .int64(basic(Int64(0)))
        case "t": return .uint64(basic(UInt64(0)))
        case "d": return .double(basic(Double(0)))
        case "s": return .string(text())
        case "o": return .objectPath(text())
        case "g": return .signature(text())
        case "a":
            let element = dbus_message_iter_get_signature(&iterator).map { pointer -> String in
                defer { dbus_free(pointer) }
                return String(String(cString: pointer).dropFirst())
            } ?? ""
            return .array(element: element, try children(&iterator, depth: depth))
        case "e":
            let fields = try children(&iterator, depth: depth)
            guard fields.count == 2 else { throw DBusCodingError(message: "a dictionary entry without two fields") }
            return .dictEntry(fields[0], fields[1])
        case "v":
            guard let inner = try children(&iterator, depth: depth).first else { throw DBusCodingError(message: "an empty variant") }
            return .variant(inner)
        case "r":
            return .structure(try children(&iterator, depth: depth))
        default:
            throw DBusCodingError(message: "unsupported D-Bus type \(Character(Unicode.Scalar(UInt8(truncatingIfNeeded: type))))")
        }
    }

    private static func children(_ iterator: inout DBusMessageIter, depth: Int) throws(DBusCodingError) -> [DBusValue] {
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iterator, &sub)
        var values: [DBusValue] = []
        while let value = try read(&sub, depth: depth + 1) {
            values.append(value)
            guard dbus_message_iter_next(&sub) != 0 else { break }
        }
        return values
    }
}
