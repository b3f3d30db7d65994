internal import CAvahiClient
import Foundation

// Every Avahi C handle is owned by one final class that frees it in deinit. Handles are only
// touched on the poll thread (inside callbacks) or with the poll lock held, or after the poll
// thread stopped; children keep their client alive so they are always freed first.

/// Owns an `AvahiThreadedPoll`.
final class AvahiPollHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    private var running = false

    init() throws(CastDiscoveryError) {
        guard let pointer = avahi_threaded_poll_new() else {
            throw CastDiscoveryError(code: .avahi, message: "avahi_threaded_poll_new failed (out of memory)")
        }
        self.pointer = pointer
    }

    var api: UnsafePointer<AvahiPoll> { avahi_threaded_poll_get(pointer) }

    func start() throws(CastDiscoveryError) {
        guard !running else { return }
        guard avahi_threaded_poll_start(pointer) >= 0 else {
            throw CastDiscoveryError(code: .avahi, message: "could not start the Avahi poll thread")
        }
        running = true
    }

    /// Stops the poll thread; never call from a callback.
    func stop() {
        guard running else { return }
        avahi_threaded_poll_stop(pointer)
        running = false
    }

    /// Runs `body` with the poll thread held off (no callback runs meanwhile).
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        guard running else { return try body() }
        avahi_threaded_poll_lock(pointer)
        defer { avahi_threaded_poll_unlock(pointer) }
        return try body()
    }

    deinit {
        stop()
        avahi_threaded_poll_free(pointer)
    }
}

/// Owns an `AvahiClient`.
final class AvahiClientHandle {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { avahi_client_free(pointer) }
}

/// Owns an `AvahiServiceBrowser` (and keeps its client alive).
final class AvahiServiceBrowserHandle {
    let pointer: OpaquePointer
    let client: AvahiClientHandle
    init(_ pointer: OpaquePointer, client: AvahiClientHandle) {
        self.pointer = pointer
        self.client = client
    }
    deinit { avahi_service_browser_free(pointer) }
}

/// Owns an `AvahiServiceResolver` (and keeps its client alive).
final class AvahiServiceResolverHandle {
    let pointer: OpaquePointer
    let client: AvahiClientHandle
    init(_ pointer: OpaquePointer, client: AvahiClientHandle) {
        self.pointer = pointer
        self.client = client
    }
    deinit { avahi_service_resolver_free(pointer) }
}

/// Owns an `AvahiEntryGroup` (and keeps its client alive).
final class AvahiEntryGroupHandle {
    let pointer: OpaquePointer
    let client: AvahiClientHandle
    init(_ pointer: OpaquePointer, client: AvahiClientHandle) {
        self.pointer = pointer
        self.client = client
    }
    deinit { avahi_entry_group_free(pointer) }
}

/// Owns an `AvahiStringList` built from a TXT record.
final class AvahiStringListHandle {
    private(set) var pointer: UnsafeMutablePointer<AvahiStringList>?
    init(_ record: CastTXTRecord) {
        var list = castor_avahi_string_list_empty()
        // avahi_string_list_add prepends: add in reverse to keep the advertised order.
        for entry in record.rawEntries.reversed() {
            list = entry.withUnsafeBufferPointer { avahi_string_list_add_arbitrary(list, $0.baseAddress, $0.count) }
        }
        pointer = list
    }
    deinit { avahi_string_list_free(pointer) }
}

enum Avahi {
    static func errorText(_ code: Int32) -> String { String(cString: avahi_strerror(code)) }

    /// Raw entries of a (borrowed) string list, in list order.
    static func entries(of list: UnsafeMutablePointer<AvahiStringList>?) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var node = list
        while let current = node, result.count < 512 {
            let size = avahi_string_list_get_size(current)
            if let text = avahi_string_list_get_text(current) {
                result.append(Array(UnsafeBufferPointer(start: text, count: size)))
            }
            node = avahi_string_list_get_next(current)
        }
        return result
    }

    static func addressText(_ address: UnsafePointer<AvahiAddress>) -> (String, CastDeviceEndpoint.Family) {
        var buffer = [CChar](repeating: 0, count: 64)
        avahi_address_snprint(&buffer, buffer.count, address)
        let family: CastDeviceEndpoint.Family = address.pointee.proto == castor_avahi_proto_inet6() ? .ipv6 : .ipv4
        return (buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }, family)
    }

    static func interfaceName(_ index: Int32) -> String? {
        guard index > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(UInt32(index), &buffer) != nil else { return nil }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// The D-Bus system bus socket path libdbus will use (honours `DBUS_SYSTEM_BUS_ADDRESS`).
    static var systemBusSocketPath: String {
        if let address = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"],
            let range = address.range(of: "unix:path=") {
            return String(address[range.upperBound...].prefix { $0 != "," && $0 != ";" })
        }
        return "/run/dbus/system_bus_socket"
    }

    /// Turns a failed client creation (or a client failure) into a diagnostic with the fix.
    static func diagnostic(forClientError code: Int32, source: DiscoverySource) -> DiscoveryDiagnostic {
        let socket = systemBusSocketPath
        if code == Int32(AVAHI_ERR_NO_DAEMON) || code == Int32(AVAHI_ERR_DISCONNECTED) {
            if !FileManager.default.fileExists(atPath: socket) {
                return busDiagnostic(socket: socket, source: source)
            }
            return daemonDiagnostic(source: source)
        }
        if code == Int32(AVAHI_ERR_DBUS_ERROR) {
            return busDiagnostic(socket: socket, source: source)
        }
        return DiscoveryDiagnostic(
            code: .avahiFailure, message: "Avahi client failed: \(errorText(code)).",
            fix: "journalctl -u avahi-daemon (check the daemon's log)", source: source)
    }

    static func daemonDiagnostic(source: DiscoverySource) -> DiscoveryDiagnostic {
        DiscoveryDiagnostic(
            code: .avahiDaemonNotRunning,
            message: "avahi-daemon is not running (no org.freedesktop.Avahi on the D-Bus system bus), so mDNS browsing is impossible.",
            fix: "sudo systemctl enable --now avahi-daemon   (without systemd: sudo avahi-daemon -D)",
            source: source)
    }

    static func busDiagnostic(socket: String, source: DiscoverySource) -> DiscoveryDiagnostic {
        DiscoveryDiagnostic(
            code: .dbusUnreachable,
            message: "The D-Bus system bus is unreachable (\(socket) missing or refusing), so avahi-daemon cannot be asked.",
            fix: "sudo systemctl start dbus   (without systemd: sudo mkdir -p /run/dbus && sudo dbus-daemon --system)",
            subject: socket, source: source)
    }
}
