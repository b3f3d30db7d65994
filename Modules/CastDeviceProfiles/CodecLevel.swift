/// A codec level as its specification writes it: 4.1, 5.1, 6.2.
///
/// Each codec codes its level differently in the bitstream; the constructors read those forms so
/// that a level from an `avcC` box, an HEVC `general_level_idc`, a VP9 `CodecPrivate`, an AV1
/// `seq_level_idx`, an RFC 6381 codec string or ffprobe's `level` field compares the same.
public struct CodecLevel: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The major number (4 in 4.1).
    public var major: Int
    /// The minor number (1 in 4.1).
    public var minor: Int

    /// A level `major.minor`.
    public init(_ major: Int, _ minor: Int = 0) {
        self.major = major
        self.minor = minor
    }

    /// An H.264 `level_idc` (41 is 4.1; 9 is level 1b). `nil` for a value no level has.
    public init?(h264LevelIDC value: Int) {
        guard (9...62).contains(value) else { return nil }
        if value == 9 { self.init(1, 0); return }
        self.init(value / 10, value % 10)
    }

    /// An HEVC `general_level_idc` (30 × the level: 123 is 4.1, 153 is 5.1). `nil` for a value no level has.
    public init?(hevcLevelIDC value: Int) {
        guard value > 0, value <= 255, value % 3 == 0 else { return nil }
        let tenths = value / 3  // 41 for 4.1
        self.init(tenths / 10, tenths % 10)
    }

    /// A VP9 level as VP9's codec string and `CodecPrivate` code it (10 × the level: 41 is 4.1).
    public init?(vp9Level value: Int) {
        guard (10...62).contains(value) else { return nil }
        self.init(value / 10, value % 10)
    }

    /// An AV1 `seq_level_idx` (level = 2 + idx / 4 . idx % 4: 8 is 4.0, 13 is 5.1). `nil` for 31
    /// (no level constraint) and reserved values.
    public init?(av1SequenceLevelIndex value: Int) {
        guard (0...23).contains(value) else { return nil }
        self.init(2 + value / 4, value % 4)
    }

    /// `4.1`.
    public var description: String { "\(major).\(minor)" }

    /// Orders by major, then minor.
    public static func < (lhs: CodecLevel, rhs: CodecLevel) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }
}

/// A codec profile, named as ffprobe names it (`High`, `Main 10`, `Profile 2`, `LC`, `HE-AAC`).
///
/// Matching ignores case, spaces and dashes, so `main10`, `Main 10` and `MAIN-10` are one profile.
public struct CodecProfile: Sendable, Hashable, CustomStringConvertible {
    /// The name as given.
    public let name: String
    private let key: String

    /// A profile by name.
    public init(_ name: String) {
        self.name = name
        self.key = String(name.lowercased().filter { $0 != " " && $0 != "-" && $0 != "_" })
    }

    /// The name.
    public var description: String { name }

    /// Equal when the names are, ignoring case, spaces and dashes.
    public static func == (lhs: CodecProfile, rhs: CodecProfile) -> Bool { lhs.key == rhs.key }
    /// Hashes the normalised name.
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    // MARK: H.264

    /// H.264 Constrained Baseline (profile_idc 66 with constraint_set1).
    public static let constrainedBaseline = CodecProfile("Constrained Baseline")
    /// H.264 Baseline (profile_idc 66).
    public static let baseline = CodecProfile("Baseline")
    /// H.264 Main (77) and HEVC Main (1).
    public static let main = CodecProfile("Main")
    /// H.264 Extended (88).
    public static let extended = CodecProfile("Extended")
    /// H.264 High (100).
    public static let high = CodecProfile("High")
    /// H.264 High 10 (110).
    public static let high10 = CodecProfile("High 10")
    /// H.264 High 4:2:2 (122).
    public static let high422 = CodecProfile("High 4:2:2")
    /// H.264 High 4:4:4 Predictive (244).
    public static let high444 = CodecProfile("High 4:4:4 Predictive")

    /// The H.264 profile of a `profile_idc` (and `constraint_set1_flag` for Constrained Baseline).
    public static func h264(profileIDC: Int, constraintSet1: Bool = false) -> CodecProfile {
        switch profileIDC {
        case 66: constraintSet1 ? .constrainedBaseline : .baseline
        case 77: .main
        case 88: .extended
        case 100: .high
        case 110: .high10
        case 122: .high422
        case 244: .high444
        default: CodecProfile("profile_idc \(profileIDC)")
        }
    }

    // MARK: HEVC

    /// HEVC Main 10 (2).
    public static let main10 = CodecProfile("Main 10")
    /// HEVC Main Still Picture (3).
    public static let mainStillPicture = CodecProfile("Main Still Picture")
    /// HEVC format range extensions (4).
    public static let rext = CodecProfile("Rext")

    /// The HEVC profile of a `general_profile_idc`.
    public static func hevc(profileIDC: Int) -> CodecProfile {
        switch profileIDC {
        case 1: .main
        case 2: .main10
        case 3: .mainStillPicture
        case 4: .rext
        default: CodecProfile("general_profile_idc \(profileIDC)")
        }
    }

    // MARK: VP9 and AV1

    /// VP9 Profile 0 (8-bit 4:2:0), 1, 2 (10/12-bit 4:2:0) or 3.
    public static func vp9(_ profile: Int) -> CodecProfile { CodecProfile("Profile \(profile)") }

    /// AV1 Main (0), High (1) or Professional (2) by `seq_profile`.
    public static func av1(_ profile: Int) -> CodecProfile {
        switch profile {
        case 0: CodecProfile("Main")
        case 1: CodecProfile("High")
        case 2: CodecProfile("Professional")
        default: CodecProfile("seq_profile \(profile)")
        }
    }

    // MARK: AAC

    /// AAC Low Complexity (object type 2).
    public static let lc = CodecProfile("LC")
    /// HE-AAC v1 (SBR, object type 5).
    public static let heAAC = CodecProfile("HE-AAC")
    /// HE-AAC v2 (SBR + PS, object type 29).
    public static let heAACv2 = CodecProfile("HE-AACv2")

    /// The AAC profile of an MPEG-4 audio object type.
    public static func aac(objectType: Int) -> CodecProfile {
        switch objectType {
        case 1: CodecProfile("Main")
        case 2: .lc
        case 3: CodecProfile("SSR")
        case 4: CodecProfile("LTP")
        case 5: .heAAC
        case 29: .heAACv2
        case 23: CodecProfile("LD")
        case 39: CodecProfile("ELD")
        case 42: CodecProfile("xHE-AAC")
        default: CodecProfile("object type \(objectType)")
        }
    }
}
