@_spi(JSONReading) import CastJSON
import Synchronization

// RECEIVER_STATUS read straight from the payload's bytes with `JSONPullReader`, without a `JSONValue`
// tree. The rules are those of `init(status:)`, member by member, and `ReceiverStatusReadingTests` and the
// `FuzzReceiverStatusBytes` target hold the two to the same results:
// - a repeated member keeps its last occurrence (a later `applications` replaces an earlier one whole,
//   including one that had an application without ids);
// - a member of the wrong type reads as absent (`applications` that is not an array reads as none);
// - a namespace is an object's string `name`, or a string; other elements are dropped.
// Whatever the tree decoder refuses (text that is not a JSON object, no `status` object, an application
// without `appId` or `transportId`) is handed to it, so that the error is the tree decoder's own.

extension ReceiverStatus {
    /// Reads the RECEIVER_STATUS in `message`: from its bytes when the payload is text, else from its JSON.
    /// - Returns: `nil` when the payload is binary.
    /// - Throws: ``CastChannelError`` `.malformedReply`, as ``init(message:)`` throws it, or naming what
    ///   is wrong with a text payload that is not JSON (nested deeper than the parser allows, cut short…).
    package static func read(from message: CastChannelMessage) throws(CastChannelError) -> ReceiverStatus? {
        if let text = message.text, let status = ReceiverStatus(messageText: text) { return status }
        guard let json = message.json else {
            guard let text = message.text, let failure = JSONValue.parseFailure(of: text) else { return nil }
            throw CastChannelError(
                code: .malformedReply, message: "\(message.type.map { "The \($0) message" } ?? "The message") is not valid JSON: \(failure)")
        }
        return try ReceiverStatus(message: json)
    }

    /// Reads a RECEIVER_STATUS message from its JSON text with the result of
    /// `ReceiverStatus(message: JSONValue(parsing: text))`; `nil` when that would throw or the text is not JSON.
    package init?(messageText text: String) {
        var text = text
        let read = text.withUTF8 { bytes -> Reading? in
            try? JSONPullReader.read(bytes) { reader throws(JSONError) in try Reading.message(&reader) }
        }
        guard case .status(let fields)? = read, case .applications(let applications) = fields.applications else { return nil }
        self.init(
            applications: applications, volume: fields.volume, isActiveInput: fields.isActiveInput,
            isStandBy: fields.isStandBy, messageText: text)
    }

    /// What a read found: a status the tree decoder accepts, or something it refuses.
    private enum Reading {
        case status(StatusFields)
        case refused

        struct StatusFields {
            var applications: Applications = .applications([])
            var volume = Volume()
            var isActiveInput: Bool?
            var isStandBy: Bool?
        }

        enum Applications {
            case applications([Application])
            /// An application without its ids: the tree decoder throws.
            case refused
        }

        private enum MessageMember: Int, CaseIterable { case status }
        private static let messageMembers = JSONKeySet(MessageMember.allCases.map { "\($0)" })
        private enum StatusMember: Int, CaseIterable { case applications, volume, isActiveInput, isStandBy }
        private static let statusMembers = JSONKeySet(StatusMember.allCases.map { "\($0)" })
        private enum VolumeMember: Int, CaseIterable { case level, muted, controlType, stepInterval }
        private static let volumeMembers = JSONKeySet(VolumeMember.allCases.map { "\($0)" })
        private enum AppMember: Int, CaseIterable {
            case appId, displayName, sessionId, transportId, namespaces, statusText, isIdleScreen, iconUrl, appType,
                universalAppId
        }
        private static let appMembers = JSONKeySet(AppMember.allCases.map { "\($0)" })
        private enum NamespaceMember: Int, CaseIterable { case name }
        private static let namespaceMembers = JSONKeySet(NamespaceMember.allCases.map { "\($0)" })

        /// The message object: its last `status` decides.
        static func message(_ reader: inout JSONPullReader) throws(JSONError) -> Reading {
            guard try reader.peek() == .object else {
                try reader.skipValue()
                return .refused
            }
            var status = Reading.refused
            var more = try reader.beginObject()
            while more {
                let key = try reader.readKey()
                switch messageMembers.index(of: key).flatMap(MessageMember.init(rawValue:)) {
                case .status: status = try Self.status(&reader)
                case nil: try reader.skipValue()
                }
                more = try reader.endMember()
            }
            return status
        }

        static func status(_ reader: inout JSONPullReader) throws(JSONError) -> Reading {
            guard try reader.peek() == .object else {
                try reader.skipValue()
                return .refused
            }
            var fields = StatusFields()
            var more = try reader.beginObject()
            while more {
                let key = try reader.readKey()
                switch statusMembers.index(of: key).flatMap(StatusMember.init(rawValue:)) {
                case .applications: fields.applications = try applications(&reader)
                case .volume: fields.volume = try volume(&reader)
                case .isActiveInput: fields.isActiveInput = try reader.lenientBool()
                case .isStandBy: fields.isStandBy = try reader.lenientBool()
                case nil: try reader.skipValue()
                }
                more = try reader.endMember()
            }
            return .status(fields)
        }

        static func applications(_ reader: inout JSONPullReader) throws(JSONError) -> Applications {
            guard try reader.peek() == .array else {
                try reader.skipValue()
                return .applications([])
            }
            var applications: [Application] = []
            var complete = true
            var more = try reader.beginArray()
            while more {
                if let application = try Self.application(&reader) {
                    applications.append(application)
                } else {
                    complete = false
                }
                more = try reader.endElement()
            }
            return complete ? .applications(applications) : .refused
        }

        /// One application; `nil` when it is not an object or lacks its ids.
        static func application(_ reader: inout JSONPullReader) throws(JSONError) -> Application? {
            guard try reader.peek() == .object else {
                try reader.skipValue()
                return nil
            }
            var appId: String?, displayName: String?, sessionId: String?, transportId: String?
            var namespaces: [String] = []
            var statusText: String?, isIdleScreen: Bool?, iconUrl: String?, appType: String?, universalAppId: String?
            var more = try reader.beginObject()
            while more {
                let key = try reader.readKey()
                switch appMembers.index(of: key).flatMap(AppMember.init(rawValue:)) {
                case .appId: appId = try reader.lenientString()
                case .displayName: displayName = try reader.lenientString()
                case .sessionId: sessionId = try reader.lenientString()
                case .transportId: transportId = try reader.lenientString()
                case .namespaces: namespaces = try Self.namespaces(&reader)
                case .statusText: statusText = try reader.lenientString()
                case .isIdleScreen: isIdleScreen = try reader.lenientBool()
                case .iconUrl: iconUrl = try reader.lenientString()
                case .appType: appType = try reader.lenientString()
                case .universalAppId: universalAppId = try reader.lenientString()
                case nil: try reader.skipValue()
                }
                more = try reader.endMember()
            }
            guard let appId, let transportId else { return nil }
            return Application(
                appId: appId, displayName: displayName ?? appId, sessionId: sessionId ?? transportId,
                transportId: transportId, namespaces: namespaces, statusText: statusText,
                isIdleScreen: isIdleScreen ?? false, iconUrl: iconUrl, appType: appType, universalAppId: universalAppId)
        }

        /// `[{"name": …}]` or `[…]` of strings; elements of other shapes are dropped.
        static func namespaces(_ reader: inout JSONPullReader) throws(JSONError) -> [String] {
            guard try reader.peek() == .array else {
                try reader.skipValue()
                return []
            }
            var names: [String] = []
            var more = try reader.beginArray()
            while more {
                switch try reader.peek() {
                case .string:
                    names.append(try reader.readString())
                case .object:
                    var name: String?
                    var members = try reader.beginObject()
                    while members {
                        let key = try reader.readKey()
                        switch namespaceMembers.index(of: key).flatMap(NamespaceMember.init(rawValue:)) {
                        case .name: name = try reader.lenientString()
                        case nil: try reader.skipValue()
                        }
                        members = try reader.endMember()
                    }
                    if let name { names.append(name) }
                default:
                    try reader.skipValue()
                }
                more = try reader.endElement()
            }
            return names
        }

        static func volume(_ reader: inout JSONPullReader) throws(JSONError) -> Volume {
            var volume = Volume()
            guard try reader.peek() == .object else {
                try reader.skipValue()
                return volume
            }
            var more = try reader.beginObject()
            while more {
                let key = try reader.readKey()
                switch volumeMembers.index(of: key).flatMap(VolumeMember.init(rawValue:)) {
                case .level: volume.level = try reader.lenientDouble()
                case .muted: volume.muted = try reader.lenientBool()
                case .controlType: volume.controlType = try reader.lenientString().map(Volume.ControlType.init(rawValue:))
                case .stepInterval: volume.stepInterval = try reader.lenientDouble()
                case nil: try reader.skipValue()
                }
                more = try reader.endMember()
            }
            return volume
        }
    }
}

/// A status's `raw` object: the tree it was decoded from, or the message text it was read from,
/// parsed at most once and shared by copies of the status.
final class RawStatus: Sendable {
    private let messageText: String?
    private let parsed: Mutex<JSONValue?>

    init(tree: JSONValue) {
        messageText = nil
        parsed = Mutex(tree)
    }

    init(messageText: String) {
        self.messageText = messageText
        parsed = Mutex(nil)
    }

    /// Whether the tree is there (given, or parsed already).
    var isParsed: Bool { parsed.withLock { $0 != nil } }

    var value: JSONValue {
        if let tree = parsed.withLock({ $0 }) { return tree }
        // The text was read as a message with a status object, so it parses and has one.
        let tree = (try? JSONValue(parsing: messageText ?? "null"))?["status"] ?? .null
        parsed.withLock { $0 = tree }
        return tree
    }
}
