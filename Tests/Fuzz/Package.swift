// swift-tools-version: 6.1
//
// libFuzzer targets for Castor's parsers. Not part of the main package: each target has no
// `main` (libFuzzer provides it), so it only links when built with `-sanitize=fuzzer`.
// Build and run through `scripts/fuzz.sh` (`make fuzz-short`, `make fuzz-long`); see Modules/Castor/Castor.docc/Fuzzing.md.
//
// Targets are found, not listed: every directory `Sources/Fuzz<Name>/` is an executable target, and
// it depends on the Castor products its Swift files import (`import CastJSON`,
// `@_spi(Fuzzing) import CastTLS`, ...). Adding a target is adding a directory.
import Foundation
import PackageDescription

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let sources = root.appendingPathComponent("Sources")

/// Castor's library products, read from the main package's manifest (`.library(name: "X", ...)`): the
/// only modules a target is linked against explicitly (others, such as NIOCore, come with them).
let castorProducts: Set<String> = {
    let manifest = (try? String(contentsOf: root.appendingPathComponent("../../Package.swift"), encoding: .utf8)) ?? ""
    var names: Set<String> = []
    for part in manifest.components(separatedBy: ".library(name: \"").dropFirst() {
        if let end = part.firstIndex(of: "\"") { names.insert(String(part[..<end])) }
    }
    return names
}()

/// Products of Castor's own dependencies that a target may import directly, by module name.
let externalProducts: [String: String] = [
    "NIOCore": "swift-nio", "NIOEmbedded": "swift-nio", "NIOHTTP1": "swift-nio", "NIOPosix": "swift-nio",
]

/// The products imported by the Swift files of a target directory: Castor's, and those of `externalProducts`.
func importedProducts(of directory: URL) -> [Target.Dependency] {
    let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
    var products: Set<String> = []
    for file in files where file.pathExtension == "swift" {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(of: "import"), index + 1 < words.count else { continue }
            // Only attributes and access modifiers may precede `import` (`@_spi(Fuzzing) import X`, `internal import X`).
            guard words[..<index].allSatisfy({ $0.hasPrefix("@") || ["internal", "public", "package"].contains($0) }) else { continue }
            let module = String(words[index + 1])
            if castorProducts.contains(module) || externalProducts[module] != nil { products.insert(module) }
        }
    }
    return products.sorted().map { .product(name: $0, package: externalProducts[$0] ?? "Castor") }
}

let targetNames = ((try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? [])
    .filter { $0.hasPrefix("Fuzz") }
    .sorted()

let package = Package(
    name: "CastorFuzz",
    dependencies: [
        .package(name: "Castor", path: "../.."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: targetNames.map { name in
        .executableTarget(
            name: name,
            dependencies: importedProducts(of: sources.appendingPathComponent(name)))
    }
)
