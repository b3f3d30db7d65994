import Foundation

/// Where ffmpeg and ffprobe are, the field's tools this module drives (it links no codec).
///
/// ``locate(searchPath:)`` looks them up on `PATH`; a missing one is a ``ConversionError/Code/toolMissing``
/// error whose message is one line naming the Debian package that has both:
/// `ffmpeg is not installed: apt-get install ffmpeg (Debian package ffmpeg)`.
public struct FFmpegTools: Sendable, Hashable {
    /// The ffmpeg program.
    public var ffmpeg: String
    /// The ffprobe program.
    public var ffprobe: String

    /// The Debian package with both programs.
    public static let debianPackage = "ffmpeg"

    /// Tools at given paths (no check is made until they are run).
    public init(ffmpeg: String, ffprobe: String) {
        self.ffmpeg = ffmpeg
        self.ffprobe = ffprobe
    }

    /// Finds both programs on `searchPath` (by default this process's `PATH`).
    /// - Throws: ``ConversionError/Code/toolMissing`` naming the missing program and the Debian package.
    public static func locate(searchPath: String? = nil) throws(ConversionError) -> FFmpegTools {
        let path = searchPath ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        func find(_ name: String) throws(ConversionError) -> String {
            for directory in path.split(separator: ":") where !directory.isEmpty {
                let candidate = "\(directory)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
            throw missing(name)
        }
        return FFmpegTools(ffmpeg: try find("ffmpeg"), ffprobe: try find("ffprobe"))
    }

    /// The error for a program that is not installed.
    static func missing(_ name: String) -> ConversionError {
        ConversionError(
            code: .toolMissing,
            message: "\(name) is not installed: apt-get install \(debianPackage) (Debian package \(debianPackage))")
    }
}
