import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A ``CastNetworkMonitor`` on Linux's routing socket (rtnetlink): a link that comes up with a carrier,
/// and addresses that are added, as the kernel announces them.
///
/// Each stream opens its own `NETLINK_ROUTE` socket, subscribed to link and address changes, and
/// learns which links run now (one dump) before ``changes()`` returns, so a change that comes after the
/// call is never taken for the starting state; then it reports a link only when it goes from not
/// running to running, reading on a thread of its own, and closes the socket when the stream ends.
/// Messages are taken only from the kernel. Where the socket cannot be opened (not Linux, a sandbox)
/// the stream just finishes.
public struct NetlinkNetworkMonitor: CastNetworkMonitor {
    /// Creates a monitor; nothing is opened until ``changes()`` is called.
    public init() {}

    /// Changes from now on (see ``CastNetworkMonitor/changes()``).
    public func changes() -> AsyncStream<CastNetworkChange> {
        let (stream, continuation) = AsyncStream<CastNetworkChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
        #if os(Linux)
        guard let reader = NetlinkReader.open() else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { _ in reader.stop() }
        Thread.detachNewThread {
            reader.run { change in continuation.yield(change) }
            continuation.finish()
        }
        #else
        continuation.finish()
        #endif
        return stream
    }
}

#if os(Linux)
/// One routing socket and the thread that reads it.
private final class NetlinkReader: Sendable {
    private let socket: Int32
    /// A pipe: its write end is written to end the reading thread's `poll`, which watches its read end.
    private let wake: Int32
    private let wakeWriter: Int32
    /// Whether the stream ended (stop asked), and whether the descriptors are closed (the reading
    /// thread ended): the pipe is written and closed under this lock, never one after the other's close.
    private let state = Mutex((stopping: false, closed: false))
    /// The links as the starting dump listed them (and what came with it).
    private let starting = Mutex(NetlinkRoute.LinkStates())

    private init(socket: Int32, wake: Int32, wakeWriter: Int32) {
        self.socket = socket
        self.wake = wake
        self.wakeWriter = wakeWriter
    }

    static func open() -> NetlinkReader? {
        let fd = Glibc.socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NetlinkRoute.protocolRoute)
        guard fd >= 0 else { return nil }
        var address = NetlinkRoute.Address(groups: NetlinkRoute.groupLink | NetlinkRoute.groupIPv4Address | NetlinkRoute.groupIPv6Address)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<NetlinkRoute.Address>.size)) }
        }
        var pipeEnds: [Int32] = [-1, -1]
        let piped = pipe(&pipeEnds) == 0
        if piped { for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) } }
        guard bound == 0, piped else {
            close(fd)
            for end in pipeEnds where end >= 0 { close(end) }
            return nil
        }
        let reader = NetlinkReader(socket: fd, wake: pipeEnds[0], wakeWriter: pipeEnds[1])
        guard reader.dumpLinks() else {
            reader.closeDescriptors()
            return nil
        }
        return reader
    }

    /// Asks for the links and reads until the dump ends (at most a second): the starting state.
    private func dumpLinks() -> Bool {
        let request = NetlinkRoute.linkDumpRequest(sequence: 1)
        guard request.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, 0) }) == request.count else { return false }
        var links = NetlinkRoute.LinkStates()
        var buffer = [UInt8](repeating: 0, count: 32 * 1024)
        let deadline = ContinuousClock.now + .seconds(1)
        while !links.dumped {
            let left = deadline - ContinuousClock.now
            guard left > .zero, let count = receive(into: &buffer, waitMilliseconds: Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            else { return false }
            _ = buffer.withUnsafeBytes { NetlinkRoute.changes(in: UnsafeRawBufferPointer(rebasing: $0[..<count]), states: &links) }
        }
        starting.withLock { $0 = links }
        return true
    }

    /// One datagram from the kernel, waiting at most `waitMilliseconds` (-1: until one comes or ``stop()``);
    /// 0 bytes for a datagram to skip (not the kernel's); `nil` when the wait ended or the socket failed.
    private func receive(into buffer: inout [UInt8], waitMilliseconds: Int32) -> Int? {
        while true {
            var polls = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&polls, 2, waitMilliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0, polls[1].revents == 0 else { return nil }
            var from = NetlinkRoute.Address(groups: 0)
            var length = socklen_t(MemoryLayout<NetlinkRoute.Address>.size)
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &from) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(socket, bytes.baseAddress, bytes.count, 0, $0, &length) }
                }
            }
            if count < 0, errno == EINTR || errno == EAGAIN || errno == ENOBUFS { continue }
            guard count > 0 else { return nil }
            // Only the kernel (port id 0) speaks for the network.
            return from.pid == 0 ? count : 0
        }
    }

    private func closeDescriptors() {
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            close(socket)
            close(wake)
            close(wakeWriter)
        }
    }

    func stop() {
        state.withLock { state in
            guard !state.stopping, !state.closed else { return }
            state.stopping = true
            var one: UInt8 = 1
            _ = write(wakeWriter, &one, 1)
        }
    }

    /// Reports changes from the starting dump on, until ``stop()``; closes the descriptors at the end.
    func run(_ report: (CastNetworkChange) -> Void) {
        defer { closeDescriptors() }
        var links = starting.withLock { $0 }
        var buffer = [UInt8](repeating: 0, count: 32 * 1024)
        while !state.withLock({ $0.stopping }), let count = receive(into: &buffer, waitMilliseconds: -1) {
            for change in buffer.withUnsafeBytes({ NetlinkRoute.changes(in: UnsafeRawBufferPointer(rebasing: $0[..<count]), states: &links) }) {
                report(change)
            }
        }
    }
}
#endif

/// The rtnetlink messages the monitor reads: pure parsing of the kernel's bytes, bounded by them.
enum NetlinkRoute {
    static let protocolRoute: Int32 = 0  // NETLINK_ROUTE
    static let groupLink: UInt32 = 0x1  // RTMGRP_LINK
    static let groupIPv4Address: UInt32 = 0x10  // RTMGRP_IPV4_IFADDR
    static let groupIPv6Address: UInt32 = 0x100  // RTMGRP_IPV6_IFADDR

    static let messageDone: UInt16 = 3  // NLMSG_DONE
    static let newLink: UInt16 = 16  // RTM_NEWLINK
    static let deleteLink: UInt16 = 17  // RTM_DELLINK
    static let getLink: UInt16 = 18  // RTM_GETLINK
    static let newAddress: UInt16 = 20  // RTM_NEWADDR

    static let flagUp: UInt32 = 0x1  // IFF_UP
    static let flagLoopback: UInt32 = 0x8  // IFF_LOOPBACK
    static let flagRunning: UInt32 = 0x40  // IFF_RUNNING
    static let linkName: UInt16 = 3  // IFLA_IFNAME
    static let addressAddress: UInt16 = 1  // IFA_ADDRESS
    static let addressLocal: UInt16 = 2  // IFA_LOCAL

    /// `struct sockaddr_nl`.
    struct Address {
        var family = sa_family_t(16)  // AF_NETLINK (Linux)
        var pad: UInt16 = 0
        var pid: UInt32 = 0
        var groups: UInt32

        init(groups: UInt32) { self.groups = groups }
    }

    /// What the monitor knows of each link: whether it runs, its name, whether it is loopback.
    struct LinkStates {
        var running: [Int32: Bool] = [:]
        var names: [Int32: String] = [:]
        var loopback: Set<Int32> = []
        /// Whether the first dump is over (links it lists are the starting state, not changes).
        var dumped = false
    }

    /// An RTM_GETLINK dump request (`nlmsghdr` + `ifinfomsg`, family unspecified).
    static func linkDumpRequest(sequence: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value) { bytes += $0 } }
        append(UInt32(16 + 16))  // nlmsg_len
        append(getLink)  // nlmsg_type
        append(UInt16(0x1 | 0x300))  // NLM_F_REQUEST | NLM_F_DUMP
        append(sequence)
        append(UInt32(0))  // nlmsg_pid
        bytes += [UInt8](repeating: 0, count: 16)  // ifinfomsg: all zero (AF_UNSPEC)
        return bytes
    }

    /// The changes in one datagram of netlink messages, with `states` updated. Messages that are cut
    /// short or malformed end the walk; nothing is read past `bytes`.
    static func changes(in bytes: UnsafeRawBufferPointer, states: inout LinkStates) -> [CastNetworkChange] {
        var changes: [CastNetworkChange] = []
        var offset = 0
        while bytes.count - offset >= 16 {
            let length = Int(load(UInt32.self, bytes, offset))
            let type = load(UInt16.self, bytes, offset + 4)
            guard length >= 16, length <= bytes.count - offset else { break }
            let body = UnsafeRawBufferPointer(rebasing: bytes[(offset + 16)..<(offset + length)])
            switch type {
            case messageDone: states.dumped = true
            case newLink: if let change = link(body, states: &states) { changes.append(change) }
            case deleteLink:
                if body.count >= 16 {
                    let index = load(Int32.self, body, 4)
                    states.running[index] = nil
                    states.names[index] = nil
                    states.loopback.remove(index)
                }
            case newAddress: if let change = address(body, states: states) { changes.append(change) }
            default: break
            }
            offset += (length + 3) & ~3
        }
        return changes
    }

    private static func link(_ body: UnsafeRawBufferPointer, states: inout LinkStates) -> CastNetworkChange? {
        guard body.count >= 16 else { return nil }
        let index = load(Int32.self, body, 4)
        let flags = load(UInt32.self, body, 8)
        var name: String?
        forEachAttribute(in: UnsafeRawBufferPointer(rebasing: body[16...])) { type, value in
            if type == linkName { name = String(decoding: value.prefix { $0 != 0 }, as: UTF8.self) }
        }
        if let name { states.names[index] = name }
        if flags & flagLoopback != 0 { states.loopback.insert(index) }
        let running = flags & flagUp != 0 && flags & flagRunning != 0
        let before = states.running[index]
        states.running[index] = running
        // A link the starting dump lists is the starting state; a link seen for the first time after it
        // (a new interface) counts as having come up.
        guard states.dumped, running, before != true, flags & flagLoopback == 0 else { return nil }
        return .linkUp(interface: states.names[index] ?? "#\(index)")
    }

    private static func address(_ body: UnsafeRawBufferPointer, states: LinkStates) -> CastNetworkChange? {
        guard states.dumped, body.count >= 8 else { return nil }
        let family = Int32(body[0])
        let index = Int32(bitPattern: load(UInt32.self, body, 4))
        guard !states.loopback.contains(index) else { return nil }
        var text: String?
        forEachAttribute(in: UnsafeRawBufferPointer(rebasing: body[8...])) { type, value in
            guard type == addressLocal || (type == addressAddress && text == nil) else { return }
            text = addressText(family: family, value) ?? text
        }
        guard let text else { return nil }
        return .addressAdded(interface: states.names[index] ?? "#\(index)", address: text)
    }

    private static func addressText(family: Int32, _ value: UnsafeRawBufferPointer) -> String? {
        switch (family, value.count) {
        case (AF_INET, 4): return value.map(String.init).joined(separator: ".")
        case (AF_INET6, 16):
            return stride(from: 0, to: 16, by: 2).map { String(UInt16(value[$0]) << 8 | UInt16(value[$0 + 1]), radix: 16) }
                .joined(separator: ":")
        default: return nil
        }
    }

    /// Calls `body` with each `rtattr` (type, value) in `bytes`; a cut-short attribute ends the walk.
    private static func forEachAttribute(in bytes: UnsafeRawBufferPointer, _ body: (UInt16, UnsafeRawBufferPointer) -> Void) {
        var offset = 0
        while bytes.count - offset >= 4 {
            let length = Int(load(UInt16.self, bytes, offset))
            let type = load(UInt16.self, bytes, offset + 2)
            guard length >= 4, length <= bytes.count - offset else { return }
            body(type, UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + length)]))
            offset += (length + 3) & ~3
        }
    }

    /// A value in the host's byte order (netlink's).
    private static func load<T: FixedWidthInteger>(_ type: T.Type, _ bytes: UnsafeRawBufferPointer, _ offset: Int) -> T {
        bytes.loadUnaligned(fromByteOffset: offset, as: T.self)
    }
}
