import CastTestSupport
import Foundation
import Testing

/// castctl, cast-receiver and audiocast installed like Linux tools: `make install`'s layout (programs, man
/// pages generated from the argument parser, completions), `make uninstall`, and the Debian package of
/// `make deb` installed with apt-get and run by an unprivileged user from outside the checkout.
///
/// The programs come from `make release CONFIGURATION=debug` (part of `make test`, before the build of the
/// tests), in .build/castor-programs-debug: a test cannot build them while `swift test` holds the build folder. The layout, man pages, packaging
/// and static linking are what is checked here, not the optimiser.
@Suite("castctl installed like a Linux tool", .serialized)
struct CastctlPackagingTests {
    static let programs = ["castctl", "cast-receiver", "audiocast"]
    static let script = TestPaths.packageRoot.appendingPathComponent("scripts/package.sh").path
    static let manualTool = TestPaths.packageRoot.appendingPathComponent(".build/argument-parser-tools/debug/generate-manual").path

    /// Whether `make release CONFIGURATION=debug` ran (generate-manual is its last step).
    static let prepared = FileManager.default.isExecutableFile(atPath: manualTool)
    static let reason: Comment = "needs `make release CONFIGURATION=debug` first (make test runs it)"

    static func run(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:]) async throws
        -> (status: Int32, stdout: [String], stderr: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["CONFIGURATION"] = "debug"
        environment.merge(extra) { $1 }
        let child = try ChildProcess(executable, arguments, environment: environment, lifetime: .seconds(900))
        let status = await child.waitForExit()
        return (status, child.output, child.errorOutput)
    }

    /// `VERSION COMMIT DATE` as scripts/version.sh gives them.
    static func version() async throws -> [String] {
        let result = try await run(TestPaths.packageRoot.appendingPathComponent("scripts/version.sh").path, [])
        return result.stdout.first?.split(separator: " ").map(String.init) ?? []
    }

    @Test("make install DESTDIR=…: bin/, share/man/man1/*.1 (valid for man -l), completions, static Swift runtime; make uninstall",
          .enabled(if: Peers.inCI || prepared, reason))
    func installLayout() async throws {
        try #require(Self.prepared, "the programs are not prepared: run `make release CONFIGURATION=debug`")
        let destdir = FileManager.default.temporaryDirectory.appendingPathComponent("castor-install-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        let installed = try await Self.run("/bin/bash", [Self.script, "install", destdir, "/usr/local"])
        try #require(installed.status == 0, "\(installed.stderr)")
        let root = destdir + "/usr/local"
        let files = Set(try FileManager.default.subpathsOfDirectory(atPath: root).filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory) && !isDirectory.boolValue
        })
        var expected: Set<String> = []
        for program in Self.programs {
            expected.formUnion(["bin/\(program)", "share/man/man1/\(program).1", "share/bash-completion/completions/\(program)",
                                "share/zsh/site-functions/_\(program)", "share/fish/vendor_completions.d/\(program).fish"])
        }
        #expect(files == expected)
        let (version, commit, date) = try await { () async throws -> (String, String, String) in
            let parts = try await Self.version()
            return (parts.first ?? "?", parts.dropFirst().first ?? "?", parts.last ?? "?")
        }()
        for program in Self.programs {
            // The version and commit, from a build of this tree.
            let shown = try await Self.run(root + "/bin/\(program)", ["--version"])
            #expect(shown.status == 0)
            #expect(shown.stdout == ["\(version) (commit \(commit), \(date))"], "\(program): \(shown.stdout)")
            // No Swift runtime library is loaded from the toolchain: the standard library is linked in.
            let libraries = try await Self.run("/usr/bin/ldd", [root + "/bin/\(program)"])
            #expect(libraries.status == 0)
            #expect(!libraries.stdout.contains { $0.contains("libswift") || $0.contains("libFoundation") || $0.contains("/swift/") },
                    "\(program) links \(libraries.stdout.filter { $0.contains("swift") })")
            // The man page renders without a warning and documents the program.
            let man = try await Self.run("/usr/bin/man", ["--warnings", "-l", "-Tutf8", root + "/share/man/man1/\(program).1"],
                                         environment: ["MANWIDTH": "100", "LANG": "C.UTF-8", "MAN_KEEP_FORMATTING": ""])
            #expect(man.status == 0 && man.stderr.isEmpty, "man -l \(program).1: \(man.stderr)")
            #expect(man.stdout.contains { $0.contains("\(program.uppercased())(1)") })
            // Completions know the program; the bash one is a valid script.
            let bash = try await Self.run("/bin/bash", ["-n", root + "/share/bash-completion/completions/\(program)"])
            #expect(bash.status == 0, "\(bash.stderr)")
            let fish = try String(contentsOfFile: root + "/share/fish/vendor_completions.d/\(program).fish", encoding: .utf8)
            #expect(fish.contains("complete -c '\(program)'") || fish.contains("complete -c \(program)"))
            #expect(try String(contentsOfFile: root + "/share/zsh/site-functions/_\(program)", encoding: .utf8).hasPrefix("#compdef \(program)"))
        }
        let page = try await Self.run("/usr/bin/man", ["-l", "-Tutf8", root + "/share/man/man1/castctl.1"],
                                      environment: ["MANWIDTH": "200", "LANG": "C.UTF-8"])
        let text = page.stdout.joined(separator: "\n")
        for section in ["announce", "save", "restore", "config", "CASTCTL_DEVICE"] {
            #expect(text.contains(section), "castctl.1 does not mention \(section)")
        }
        let completion = try String(contentsOfFile: root + "/share/bash-completion/completions/castctl", encoding: .utf8)
        #expect(completion.contains("announce") && completion.contains("--tts-command"))

        let removed = try await Self.run("/bin/bash", [Self.script, "uninstall", destdir, "/usr/local"])
        #expect(removed.status == 0, "\(removed.stderr)")
        let left = try FileManager.default.subpathsOfDirectory(atPath: root).filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
        #expect(left.isEmpty, "left after uninstall: \(left)")
    }

    @Test("make deb: lintian finds no error, apt-get installs it, an unprivileged user runs castctl --version outside the checkout",
          .enabled(if: Peers.inCI || (Peers.isRoot && prepared), "needs root (apt-get install) and `make release CONFIGURATION=debug`"))
    func debianPackage() async throws {
        try #require(Peers.isRoot, "installing a package needs root (CI runs as root)")
        try #require(Self.prepared, "the programs are not prepared: run `make release CONFIGURATION=debug`")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("castor-deb-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        // gzip -1: xz over the debug build's hundreds of MiB takes minutes; `make deb` uses xz.
        let built = try await Self.run("/bin/bash", [Self.script, "deb", out], environment: ["DEB_COMPRESSION": "gzip", "DEB_COMPRESSION_LEVEL": "1"])
        try #require(built.status == 0, "\(built.stderr)")
        let deb = try #require(built.stdout.last)
        let fields = try await Self.run("/usr/bin/dpkg-deb", ["-f", deb, "Package", "Version", "Depends", "Recommends"])
        let control = fields.stdout.joined(separator: "\n")
        let version = try await Self.version()
        #expect(control.contains("Package: castor-tools"))
        #expect(control.contains("Version: \(version.first ?? "?")"))
        // What the programs link, as dpkg-shlibdeps names it: the C libraries of the issue, nothing of Swift's.
        for package in ["libgnutls30", "libavahi-client3", "libxml2", "libdbus-1-3", "libcurl4", "libsqlite3-0"] {
            #expect(control.contains(package + " "), "Depends lacks \(package): \(control)")
        }
        #expect(!control.lowercased().contains("swift"))
        #expect(control.contains("Recommends: ffmpeg, espeak-ng, avahi-daemon"))

        if let lintian = Peers.onPath("lintian") {
            let checked = try await Self.run(lintian, ["--tag-display-limit", "0", deb])
            let errors = checked.stdout.filter { $0.hasPrefix("E: ") }
            #expect(errors.isEmpty, "lintian: \(errors)")
        } else if Peers.inCI {
            Issue.record("lintian is missing (scripts/bootstrap.sh test installs it)")
        }

        let user = "castor-interop"
        if getpwnam(user) == nil {
            let created = try await Self.run("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user])
            #expect(created.status == 0 || getpwnam(user) != nil, "useradd: \(created.stderr)")
        }
        let apt = ["DEBIAN_FRONTEND": "noninteractive"]
        let installed = try await Self.run("/usr/bin/apt-get", ["install", "-y", "-q", "--no-install-recommends", deb], environment: apt)
        defer {
            // The machine is left as it was, whatever failed.
            let semaphore = DispatchSemaphore(value: 0)
            Task {
                _ = try? await Self.run("/usr/bin/apt-get", ["remove", "-y", "-q", "castor-tools"], environment: apt)
                semaphore.signal()
            }
            semaphore.wait()
        }
        try #require(installed.status == 0, "apt-get install: \(installed.stdout.suffix(5)) \(installed.stderr)")
        // From / with a bare environment: no checkout, no toolchain on PATH, the user's own HOME.
        for program in Self.programs {
            let shown = try await Self.run("/usr/sbin/runuser", ["-u", user, "--", "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=/tmp",
                                                                  "/bin/sh", "-c", "cd / && \(program) --version"])
            #expect(shown.status == 0, "\(program) --version as \(user): \(shown.stderr)")
            #expect(shown.stdout.first?.hasPrefix("\(version.first ?? "?") (commit ") == true, "\(shown.stdout)")
        }
        let manual = try await Self.run("/usr/bin/man", ["-w", "castctl"])
        #expect(manual.stdout.first == "/usr/share/man/man1/castctl.1.gz")
        #expect(FileManager.default.fileExists(atPath: "/usr/share/bash-completion/completions/castctl"))
        let removed = try await Self.run("/usr/bin/apt-get", ["remove", "-y", "-q", "castor-tools"], environment: apt)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/usr/bin/castctl"))
    }
}
