// castdiscovery-lab: runs CastDiscovery inside a lab network namespace for the lab tests
// (Tests/CastDiscoveryTests/Lab*.swift). Output is one JSON object per line on stdout.
//
//   CastDiscoveryLabTool publish --name N --port P [--subtype APPID] [--interface IF] key=value...
//       publishes, prints {"published": NAME}; each stdin line "txt<TAB>key=value<TAB>..." replaces the
//       TXT record and prints {"updated": true}; every registration avahi-daemon confirms (the
//       first, and a rename after a late conflict) prints {"registered": NAME}; a stdin line "name"
//       prints {"name": REGISTERED-NAME}; at stdin EOF
//       withdraws and exits.
//   CastDiscoveryLabTool browse [--interface IF] [--app APPID]
//       prints {"event": "added|updated|removed|diagnostic", ...} lines until stdin EOF.
//   CastDiscoveryLabTool discover --timeout SECONDS [--interface IF]
//       one-shot discovery; prints {"devices": [...], "diagnostics": [...]}.
//   CastDiscoveryLabTool ssdp --interface IF --timeout SECONDS
//       one-shot SSDP/DIAL discovery on IF; prints the same report.
import CastDIAL
import CastDiscovery
import Foundation

@MainActor func emit(_ object: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

func json(_ value: some Encodable) -> Any {
    let data = try! JSONEncoder().encode(value)
    return try! JSONSerialization.jsonObject(with: data)
}

func diagnosticJSON(_ d: DiscoveryDiagnostic) -> [String: Any] {
    ["code": d.code.rawValue, "message": d.message, "fix": d.fix ?? "", "subject": d.subject ?? "", "source": d.source.rawValue]
}

func option(_ name: String, in args: [String]) -> String? {
    guard let index = args.firstIndex(of: name), index + 1 < args.count else { return nil }
    return args[index + 1]
}

func positional(_ args: [String]) -> [String] {
    var result: [String] = []
    var skip = false
    for arg in args {
        if skip { skip = false; continue }
        if arg.hasPrefix("--") { skip = true; continue }
        result.append(arg)
    }
    return result
}

func txtRecord(_ pairs: [String]) throws -> CastTXTRecord {
    try CastTXTRecord(pairs.map { pair in
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
    })
}

/// Lines of stdin, read on a background thread.
func stdinLines() -> AsyncStream<String> {
    AsyncStream { continuation in
        Thread.detachNewThread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
    }
}

@MainActor func report(_ report: DiscoveryReport) {
    emit(["devices": report.devices.map(json), "diagnostics": report.diagnostics.map(diagnosticJSON)])
}

let args = Array(CommandLine.arguments.dropFirst())
guard let command = args.first else {
    FileHandle.standardError.write(Data("usage: CastDiscoveryLabTool publish|browse|discover|ssdp ...\n".utf8))
    exit(2)
}
let rest = Array(args.dropFirst())
do {
    switch command {
    case "publish":
        let publisher = CastServicePublisher(configuration: .init(interface: option("--interface", in: rest)))
        let registrations = publisher.registrations()
        Task { @MainActor in
            for await name in registrations { emit(["registered": name]) }
        }
        let name = try await publisher.publish(
            name: option("--name", in: rest) ?? "Castor-Lab", port: Int(option("--port", in: rest) ?? "8009") ?? 8009,
            txt: try txtRecord(positional(rest)), subtypes: option("--subtype", in: rest).map { [$0] } ?? [])
        emit(["published": name])
        for await line in stdinLines() {
            let words = line.split(separator: "\t").map(String.init)
            if words.first == "txt" {
                try await publisher.update(txt: try txtRecord(Array(words.dropFirst())))
                emit(["updated": true])
            } else if words.first == "name" {
                emit(["name": publisher.registeredName ?? ""])
            }
        }
        await publisher.withdraw()
        emit(["withdrawn": true])
    case "browse":
        let browser = AvahiDeviceBrowser(configuration: .init(
            interface: option("--interface", in: rest), applicationID: option("--app", in: rest)))
        let events = browser.events()
        await browser.start()
        let printer = Task { @MainActor in
            for await event in events {
                switch event {
                case .added(let device): emit(["event": "added", "device": json(device)])
                case .updated(let device): emit(["event": "updated", "device": json(device)])
                case .removed(let device): emit(["event": "removed", "device": json(device)])
                case .diagnostic(let diagnostic): emit(["event": "diagnostic", "diagnostic": diagnosticJSON(diagnostic)])
                }
            }
        }
        for await _ in stdinLines() {}
        await browser.stop()
        await printer.value
    case "discover":
        let seconds = Double(option("--timeout", in: rest) ?? "3") ?? 3
        let browser = AvahiDeviceBrowser(configuration: .init(interface: option("--interface", in: rest)))
        report(await browser.discover(timeout: .milliseconds(Int(seconds * 1000))))
    case "ssdp":
        let seconds = Double(option("--timeout", in: rest) ?? "3") ?? 3
        let browser = SSDPDeviceBrowser(configuration: .init(interface: option("--interface", in: rest)))
        report(await browser.discover(timeout: .milliseconds(Int(seconds * 1000))))
    default:
        FileHandle.standardError.write(Data("unknown command \(command)\n".utf8))
        exit(2)
    }
} catch {
    emit(["error": "\(error)"])
    exit(1)
}
