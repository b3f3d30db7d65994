import ArgumentParser
import CastDIAL
import CastDiscovery
import CastKnownHosts
import CastJSON
import Foundation

struct Discover: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find Cast devices (mDNS through avahi-daemon, plus known hosts and SSDP/DIAL when asked).",
        discussion: "When nothing is found, castctl says why: avahi-daemon not running, no multicast interface, no answer, a known host refusing its port.")

    @Option(help: "Seconds to listen.") var timeout: Double = 3
    @Flag(name: .long, help: "Print the result as JSON.") var json = false
    @Flag(name: .long, help: "Always print the diagnostics, even when devices were found.") var explain = false
    @Option(name: .customLong("known-host"), help: "A host[:port] to probe over TLS (repeatable), for networks where multicast does not cross.")
    var knownHosts: [String] = []
    @Flag(name: .long, help: "Also search with SSDP/DIAL.") var ssdp = false
    @Option(help: "Only browse on this network interface.") var interface: String?
    @Option(help: "Only devices that can run this receiver app id (the _<APPID>._sub._googlecast._tcp subtype).") var appId: String?
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        // A mistyped --known-host is an error, not a host silently left out of the search.
        for text in knownHosts {
            do { _ = try KnownHost(parsing: text) } catch { throw ValidationError("--known-host \(error.message)") }
        }
    }

    func run() async throws {
        try await Output.run {
            let report = await DeviceResolver.discover(
                timeout: .milliseconds(Int64(timeout * 1000)), knownHosts: knownHosts, ssdp: ssdp, interface: interface, appId: appId)
            if json {
                var value = try JSONValue(encoding: report.devices)
                value = ["devices": value, "diagnostics": try JSONValue(encoding: report.diagnostics)]
                print(value.serialized())
            } else {
                for device in report.devices {
                    let endpoint = device.preferredEndpoint.map { "\($0.hostForConnecting):\($0.port)" } ?? "?"
                    let kind = device.isGroup ? "group" : (device.model ?? "device")
                    print("\(device.friendlyName)\t\(kind)\t\(endpoint)\t\(device.id)")
                }
                if report.devices.isEmpty || explain {
                    if report.devices.isEmpty { print("No Cast device found in \(timeout) s.") }
                    for diagnostic in report.diagnostics {
                        print("- \(diagnostic.explanation)")
                    }
                }
            }
            if report.devices.isEmpty { throw ExitCode(2) }
        }
    }
}

/// Runs discovery for `castctl discover` and `--device`.
enum DeviceResolver {
    static func discover(
        timeout: Duration, knownHosts: [String] = [], ssdp: Bool = false, interface: String? = nil, appId: String? = nil
    ) async -> DiscoveryReport {
        var browsers: [any DeviceBrowser] = [
            AvahiDeviceBrowser(configuration: .init(interface: interface, applicationID: appId))
        ]
        let hosts = knownHosts.compactMap { try? KnownHost(parsing: $0) }
        if !hosts.isEmpty { browsers.append(KnownHostsBrowser(configuration: .init(hosts: hosts))) }
        if ssdp { browsers.append(SSDPDeviceBrowser(configuration: .init(interface: interface))) }
        let browser: any DeviceBrowser = browsers.count == 1 ? browsers[0] : MergedDeviceBrowser(browsers)
        return await browser.discover(timeout: timeout)
    }

    /// Waits until `browser` (already started or about to be) lists a device named `nameOrId`
    /// (case-insensitive) or with that UUID at a routable address; at most `timeout`, after which
    /// a match known only at link-local addresses will do.
    static func find(_ nameOrId: String, in browser: any DeviceBrowser, timeout: Duration) async throws -> CastDevice {
        let wanted = try? CastDeviceID(parsing: nameOrId)
        func match(_ devices: [CastDevice]) -> CastDevice? {
            devices.first { device in
                !device.endpoints.isEmpty
                    && ((wanted != nil && device.id == wanted) || device.friendlyName.caseInsensitiveCompare(nameOrId) == .orderedSame)
            }
        }
        let events = browser.events()
        let found = await withTaskGroup(of: CastDevice?.self) { group in
            group.addTask {
                for await _ in events {
                    // mDNS resolves each address family on its own: wait for a routable one.
                    if let device = match(browser.devices), device.endpoints.contains(where: { !$0.isLinkLocal }) { return device }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
        if let found = found ?? match(browser.devices) { return found }
        let why = browser.diagnostics.map(\.explanation).joined(separator: "; ")
        throw ValidationError("No device named or with id “\(nameOrId)” found within \(timeout)\(why.isEmpty ? "" : ": \(why)")")
    }

    /// Finds a device by friendly name (case-insensitive) or UUID and returns where to connect.
    static func resolve(_ nameOrId: String, timeout: Duration) async throws -> (host: String, port: Int) {
        let report = await discover(timeout: timeout)
        let wanted = try? CastDeviceID(parsing: nameOrId)
        let match = report.devices.first { device in
            (wanted != nil && device.id == wanted) || device.friendlyName.caseInsensitiveCompare(nameOrId) == .orderedSame
        }
        guard let match, let endpoint = match.preferredEndpoint else {
            let why = report.diagnostics.map(\.explanation).joined(separator: "; ")
            throw ValidationError("No device named or with id “\(nameOrId)” found\(why.isEmpty ? "" : ": \(why)")")
        }
        return (endpoint.hostForConnecting, endpoint.port)
    }
}
