import CastJSON
import Foundation
import Testing

/// VLC 3's chromecast output, a transcoding sender we did not write, casts the issue's movie to the same emulated
/// device profile as castctl, and ffprobe reads what each served; castctl takes the profile from the model the
/// device names in eureka_info. In a private network namespace (VLC and eureka_info use the device's standard
/// ports), VLC as an unprivileged user (it refuses root).
@Suite("castctl cast and VLC 3 against the same device profile", .serialized)
struct CastConvertInteropTests {
    static let driver = TestPaths.packageRoot.appendingPathComponent("Tests/InteropTests/cast_convert_driver.py").path
    static let vlcUser = "castor-interop"
    static var runnable: Bool {
        Peers.inCI || (Peers.isRoot && Peers.cvlc != nil && Peers.ffmpeg != nil && ConversionPeers.ffprobe != nil)
    }

    @Test("chromecast-3: VLC's stream and castctl's, read by ffprobe: both send video and audio the profile decodes",
          .enabled(if: runnable, "needs root (a network namespace and an unprivileged user), cvlc, ffmpeg and ffprobe"))
    func chromecast3() async throws {
        let vlc = try await run("vlc", profile: "chromecast-3")
        #expect(vlc["vlc_playing"]?.ok == true, "\(vlc["vlc_playing"]?.detail ?? "not reported")")
        let vlcCodecs = try codecs(vlc["vlc_codecs"])
        print("VLC 3 served to chromecast-3: \(vlcCodecs)")
        #expect(vlcCodecs.video == ["h264"], "VLC retries a refused HEVC as H.264: \(vlcCodecs)")
        #expect(vlcCodecs.audio.allSatisfy { ["mp3", "aac", "vorbis", "opus"].contains($0) }, "\(vlcCodecs)")
        let ours = try await run("castctl", profile: "chromecast-3", deviceProfile: "chromecast-3")
        let ourCodecs = try codecs(ours["castctl_codecs"])
        print("castctl served to chromecast-3: \(ourCodecs)")
        #expect(ourCodecs.video == ["h264"] && ourCodecs.audio == ["aac"], "\(ourCodecs)")
    }

    @Test("ultra, the profile from eureka_info's model: castctl copies the HEVC as VLC does, and converts only the AC-3",
          .enabled(if: runnable, "needs root (a network namespace and an unprivileged user), cvlc, ffmpeg and ffprobe"))
    func ultraFromModel() async throws {
        let ours = try await run("castctl", profile: "ultra")
        #expect(ours["castctl_profile"]?.detail.contains("planning for ultra") == true
                && ours["castctl_profile"]?.detail.contains("\"Chromecast Ultra\" (eureka_info)") == true,
                "\(ours["castctl_profile"]?.detail ?? "not reported")")
        let ourCodecs = try codecs(ours["castctl_codecs"])
        #expect(ourCodecs.video == ["hevc"] && ourCodecs.audio == ["aac"], "\(ourCodecs)")
        let vlc = try await run("vlc", profile: "ultra")
        let vlcCodecs = try codecs(vlc["vlc_codecs"])
        print("VLC 3 served to ultra: \(vlcCodecs); castctl: \(ourCodecs)")
        #expect(vlcCodecs.video == ["hevc"], "VLC copies HEVC for a device that takes it: \(vlcCodecs)")
    }

    // MARK: Helpers

    private func codecs(_ check: (ok: Bool, detail: String)?) throws -> (video: [String], audio: [String]) {
        let check = try #require(check, "ffprobe's reading was not reported")
        #expect(check.ok, "\(check.detail)")
        let json = try JSONValue(parsing: check.detail)
        func list(_ kind: String) -> [String] { json["codecs"]?[kind]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        return (list("video"), list("audio"))
    }

    private func run(_ mode: String, profile: String, deviceProfile: String? = nil) async throws -> [String: (ok: Bool, detail: String)] {
        try #require(Peers.isRoot, "the test runs as root (CI does)")
        try #require(Peers.cvlc != nil, "VLC is not installed (apt-get install vlc-bin vlc-plugin-base)")
        let unshare = try #require(Peers.unshare, "unshare is needed")
        let python = try #require(Peers.debianPython, "needs /usr/bin/python3")
        try await ensureUser(Self.vlcUser)
        let workdir = NSTemporaryDirectory() + "castor-convert-interop-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: workdir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: workdir) }
        let movie = try await ConversionPeers.sharedMovie()
        var arguments = ["-n", "--", python, Self.driver, mode, "--receiver", TestPaths.program("cast-receiver"),
                         "--castctl", TestPaths.program("castctl"), "--workdir", workdir, "--movie", movie, "--profile", profile,
                         "--user", Self.vlcUser]
        if let deviceProfile { arguments += ["--device-profile", deviceProfile] }
        let result = try await runProgram(unshare, arguments)
        var checks: [String: (ok: Bool, detail: String)] = [:]
        var done = false
        for line in result.stdout {
            guard let json = try? JSONValue(parsing: line) else { continue }
            if json["done"] == true { done = true }
            if let name = json["check"]?.stringValue { checks[name] = (json["ok"]?.boolValue ?? false, json["detail"]?.stringValue ?? "") }
        }
        #expect(result.status == 0 && done, "driver failed: \(result.stderr.suffix(2000)) \(result.stdout.suffix(10))")
        #expect(checks["exception"] == nil, "\(checks["exception"]?.detail ?? "")")
        return checks
    }

    private func ensureUser(_ name: String) async throws {
        if getpwnam(name) != nil { return }
        let created = try await runProgram("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name])
        #expect(created.status == 0 || getpwnam(name) != nil, "useradd \(name): \(created.stderr)")
    }
}
