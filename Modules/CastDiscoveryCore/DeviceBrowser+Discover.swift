extension DeviceBrowser {
    /// One-shot discovery: starts this browser, collects devices until `timeout` elapses on `clock`,
    /// stops it and returns the devices with every diagnostic that explains what is missing.
    ///
    /// When nothing was found and no browser reported a cause, the report carries a
    /// ``DiscoveryDiagnostic/Code/noAnswer`` diagnostic, so an empty list is never silent.
    public func discover(timeout: Duration, clock: any Clock<Duration> = ContinuousClock()) async -> DiscoveryReport {
        let stream = events()
        await start()
        let collector = Task {
            var diagnostics: [DiscoveryDiagnostic] = []
            for await event in stream {
                if case .diagnostic(let diagnostic) = event, !diagnostics.contains(diagnostic) {
                    diagnostics.append(diagnostic)
                }
            }
            return diagnostics
        }
        try? await clock.sleep(for: timeout, tolerance: nil)
        let found = devices
        let current = diagnostics
        await stop()
        let seen = await collector.value
        let source = discoverySource
        return DiscoveryReport(devices: found, diagnostics: current, seenDiagnostics: seen, timeout: timeout, source: source)
    }
}

/// What a one-shot discovery found, and why it found nothing when it found nothing.
public struct DiscoveryReport: Sendable, Hashable, CustomStringConvertible {
    /// The devices found, sorted by name.
    public var devices: [CastDevice]
    /// Problems still in effect at the end, plus ``DiscoveryDiagnostic/Code/noAnswer`` when
    /// nothing was found and nothing else explains it.
    public var diagnostics: [DiscoveryDiagnostic]

    /// Creates a report from what a browser found.
    ///
    /// - Parameters:
    ///   - devices: devices at the end of the run.
    ///   - diagnostics: diagnostics in effect at the end.
    ///   - seenDiagnostics: every diagnostic reported during the run (transient ones such as a
    ///     refused known host are kept when nothing was found).
    ///   - timeout: how long the run lasted, for the no-answer message.
    ///   - source: the source named in the no-answer diagnostic.
    public init(devices: [CastDevice], diagnostics: [DiscoveryDiagnostic], seenDiagnostics: [DiscoveryDiagnostic] = [],
                timeout: Duration, source: DiscoverySource = .mdns) {
        self.devices = devices
        var all = diagnostics
        if devices.isEmpty {
            for diagnostic in seenDiagnostics where !all.contains(diagnostic) { all.append(diagnostic) }
            let blocking: Set<DiscoveryDiagnostic.Code> = [.avahiDaemonNotRunning, .dbusUnreachable, .noMulticastInterface,
                                                           .interfaceUnavailable]
            if !all.contains(where: { blocking.contains($0.code) }) {
                let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
                let (what, port) = source == .dial ? ("SSDP (UDP 1900)", 1900) : ("mDNS (UDP 5353)", 5353)
                all.append(DiscoveryDiagnostic(
                    code: .noAnswer,
                    message: source == .knownHost
                        ? "No known host answered within \(seconds.formatted2) s."
                        : "No Cast device answered within \(seconds.formatted2) s. Devices on another subnet or VLAN, behind "
                            + "Wi-Fi client isolation, or a firewall dropping \(what) are invisible to multicast discovery.",
                    fix: source == .knownHost
                        ? "check each host's address and that port 8009 is reachable (nc -vz <ip> 8009)"
                        : "sudo iptables -I INPUT -p udp --sport \(port) -j ACCEPT; or name the device directly: --host <ip>[:port]",
                    source: source))
            }
        }
        self.diagnostics = all
    }

    /// A human-readable summary: one line per device, then one per diagnostic.
    public var description: String {
        var lines = devices.map { "\($0)" }
        if devices.isEmpty { lines.append("No Cast devices found.") }
        lines += diagnostics.map { "- \($0.explanation)" }
        return lines.joined(separator: "\n")
    }
}

extension Double {
    var formatted2: String {
        let rounded = (self * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
