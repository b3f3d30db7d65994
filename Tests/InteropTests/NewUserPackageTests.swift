import CastEmulator
import CastTestSupport
import Foundation
import Testing

/// `Tests/NewUserPackage`: a package that depends on this one by path, the way a new user's does.
/// `make new-user-package` builds it with `-warnings-as-errors` (top-level code included); these
/// tests check that its sources are exactly what the README and the article "Your first Cast
/// program" show, and run its programs against the emulated receiver.
@Suite(.serialized) struct NewUserPackageTests {
    static let packageRoot = TestPaths.packageRoot.appendingPathComponent("Tests/NewUserPackage")
    static let readme = TestPaths.packageRoot.appendingPathComponent("README.md")
    static let article = TestPaths.packageRoot.appendingPathComponent("Modules/Castor/Castor.docc/YourFirstCastProgram.md")

    static func program(_ name: String) -> String {
        packageRoot.appendingPathComponent(".build/debug/\(name)").path
    }

    /// The programs exist once `make new-user-package` ran; CI (`make test`) always runs it first.
    static var isBuilt: Bool {
        FileManager.default.isExecutableFile(atPath: program("quickstart"))
            && FileManager.default.isExecutableFile(atPath: program("first-cast-program"))
    }

    static var runsInCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The fenced code blocks of a Markdown file whose info string is `language`.
    static func codeBlocks(in url: URL, language: String) throws -> [String] {
        let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
        var blocks: [String] = []
        var current: [String]?
        for line in lines {
            if current == nil, line == "```" + language {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    static func source(_ path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// Every block appears verbatim in one of `files`, and every non-blank line of the files is shown
    /// by some block: what the reader sees is what compiles, nothing more and nothing less.
    static func expectSnippets(_ blocks: [String], are files: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let sources = try files.map { (path: $0, text: try source($0)) }
        var covered = sources.map { Array(repeating: false, count: $0.text.components(separatedBy: "\n").count) }
        for block in blocks {
            guard let index = sources.firstIndex(where: { $0.text.contains(block) }) else {
                Issue.record("This snippet is not in \(files.joined(separator: ", ")):\n\(block)", sourceLocation: sourceLocation)
                continue
            }
            let text = sources[index].text
            let prefix = text[..<text.range(of: block)!.lowerBound]
            let first = prefix.components(separatedBy: "\n").count - 1
            for line in first..<(first + block.components(separatedBy: "\n").count) { covered[index][line] = true }
        }
        for (index, file) in sources.enumerated() {
            for (number, line) in file.text.components(separatedBy: "\n").enumerated()
            where !covered[index][number] && !line.trimmingCharacters(in: .whitespaces).isEmpty {
                Issue.record("\(file.path):\(number + 1) is compiled but not shown: \(line)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func theQuickStartIsTheCompiledProgram() throws {
        let blocks = try Self.codeBlocks(in: Self.readme, language: "swift")
        let quickStart = try #require(blocks.first, "README.md has no swift block")
        #expect(quickStart + "\n" == (try Self.source("Sources/quickstart/main.swift")))
    }

    @Test func theArticleSnippetsAreTheCompiledProgram() throws {
        let blocks = try Self.codeBlocks(in: Self.article, language: "swift")
        // The manifest is shown with a plain path; the test package reads the folder name instead.
        let manifests = blocks.filter { $0.hasPrefix("// swift-tools-version") }
        #expect(manifests.count == 1)
        let products = { (text: String) in text.components(separatedBy: "\n").first { $0.contains("dependencies: [\"Castor\"") }?
            .trimmingCharacters(in: .whitespaces) }
        #expect(products(manifests.first ?? "") != nil)
        #expect(products(manifests.first ?? "") == products(try Self.source("Package.swift")))
        try Self.expectSnippets(
            blocks.filter { !$0.hasPrefix("// swift-tools-version") },
            are: ["Sources/first-cast-program/GreetingChannel.swift", "Sources/first-cast-program/GreetingApp.swift",
                  "Sources/first-cast-program/main.swift"])
    }

    /// Runs a built program with a deadline; kills it when the deadline passes.
    static func run(_ name: String, _ arguments: [String] = []) async throws -> (status: Int32, stdout: [String], stderr: String) {
        let child = try ChildProcess(program(name), arguments)
        let status = await withTaskGroup(of: Int32?.self) { group in
            group.addTask { await child.waitForExit() }
            group.addTask {
                try? await Task.sleep(for: .seconds(120))   // a deadline for a hang, not a timing check
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let status else {
            _ = await child.terminate(signal: SIGKILL)
            throw HarnessError(message: "\(name) did not finish within 120 s; it printed \(child.output) \(child.errorOutput)")
        }
        return (status, child.output, child.errorOutput)
    }

    /// The program's own lines (swift-log's default handler writes `info` lines to standard output too).
    static func ownLines(_ lines: [String]) -> [String] {
        lines.filter { $0.range(of: #"^\d{4}-\d\d-\d\dT"#, options: .regularExpression) == nil }
    }

    @Test(.enabled(if: isBuilt || runsInCI, "run `make new-user-package` first (make test does)"))
    func theQuickStartRunsAsWritten() async throws {
        let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(name: "Quick Start TV", port: 0))
        try await receiver.start()
        let port = try #require(await receiver.port)
        let result = try await Self.run("quickstart", ["127.0.0.1", String(port)])
        await receiver.stop()
        #expect(result.status == 0, "stderr: \(result.stderr)")
        // The loop's first status is the LOAD's outcome: PLAYING at once, no wait for a later status.
        #expect(Self.ownLines(result.stdout) == ["PLAYING"])
        #expect(await receiver.violations.isEmpty)
    }

    @Test(.enabled(if: isBuilt || runsInCI, "run `make new-user-package` first (make test does)"))
    func theFirstCastProgramPrintsWhatTheArticleSays() async throws {
        let expected = try #require(try Self.codeBlocks(in: Self.article, language: "text").first)
        let result = try await Self.run("first-cast-program")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(Self.ownLines(result.stdout) == expected.components(separatedBy: "\n"))
    }
}
