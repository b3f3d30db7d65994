internal import CAvahiClient
import Foundation
import Synchronization

/// Advertises a Cast receiver over mDNS through avahi-daemon (an Avahi entry group).
///
/// ```swift
/// let publisher = CastServicePublisher()
/// let name = try await publisher.publish(name: "Castor-Emulator-…", port: 8009, txt: device.advertisedTXTRecord())
/// …
/// await publisher.withdraw()
/// ```
///
/// When another host already uses the name, the publisher picks Avahi's alternative name
/// (`Name #2`, …) and publishes again; ``registeredName`` and the value `publish` returns are the
/// name that was finally registered. A host-name collision or a daemon restart makes it publish
/// again by itself.
public final class CastServicePublisher: Sendable {
    /// Where to publish.
    public struct Configuration: Sendable, Hashable {
        /// Publish on this interface only (`nil`: every interface).
        public var interface: String?
        /// The service type, `_googlecast._tcp`.
        public var serviceType: String
        /// The most alternative names tried before giving up with `CastDiscoveryError.Code.collision`.
        public var maxCollisions: Int
        /// Creates a configuration.
        public init(interface: String? = nil, serviceType: String = "_googlecast._tcp", maxCollisions: Int = 16) {
            self.interface = interface
            self.serviceType = serviceType
            self.maxCollisions = maxCollisions
        }
    }

    /// The configuration.
    public let configuration: Configuration
    private let core = Mutex<AvahiPublisherCore?>(nil)
    private let registered = RegistrationFanOut()

    /// Creates a publisher; nothing is advertised until ``publish(name:port:txt:subtypes:)``.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Advertises `name` on `port` with `txt`, plus a DNS-SD subtype per App ID in `subtypes`,
    /// and returns once avahi-daemon confirmed the registration. Replaces an earlier publication.
    ///
    /// - Returns: the registered instance name (differs from `name` after a collision).
    /// - Throws: `CastDiscoveryError` — `CastDiscoveryError.Code.daemonUnavailable`,
    ///   `CastDiscoveryError.Code.busUnavailable`, `CastDiscoveryError.Code.collision`,
    ///   `CastDiscoveryError.Code.invalidArgument` (bad name or port) or `CastDiscoveryError.Code.avahi`.
    @discardableResult
    public func publish(name: String, port: Int, txt: CastTXTRecord, subtypes applicationIDs: [String] = [])
        async throws(CastDiscoveryError) -> String
    {
        guard (1...65_535).contains(port) else {
            throw CastDiscoveryError(code: .invalidArgument, message: "port \(port) is not 1…65535")
        }
        guard !name.isEmpty, name.utf8.count <= 63 else {
            throw CastDiscoveryError(code: .invalidArgument, message: "service name must be 1…63 bytes")
        }
        await withdraw()
        var interfaceIndex = castor_avahi_if_unspec()
        if let interface = configuration.interface {
            let index = if_nametoindex(interface)
            guard index != 0 else {
                throw CastDiscoveryError(code: .invalidArgument, message: "interface \(interface) does not exist")
            }
            interfaceIndex = Int32(index)
        }
        let service = AvahiPublisherCore.Service(
            name: name, type: configuration.serviceType, port: UInt16(port), txt: txt,
            subtypes: applicationIDs.map { CastDevice.serviceSubtype(applicationID: $0, serviceType: configuration.serviceType) },
            interface: interfaceIndex, maxCollisions: configuration.maxCollisions)
        let new = try AvahiPublisherCore(service: service) { [registered] name in registered.yield(name) }
        core.withLock { $0 = new }
        do {
            return try await new.waitEstablished()
        } catch let error as CastDiscoveryError {
            await withdraw()
            throw error
        } catch {
            await withdraw()
            throw CastDiscoveryError(code: .cancelled, message: "publishing was cancelled")
        }
    }

    /// Replaces the TXT record of the published service (e.g. a new `rs` when an app starts).
    ///
    /// - Throws: `CastDiscoveryError.Code.avahi` when nothing is published or Avahi refuses.
    public func update(txt: CastTXTRecord) async throws(CastDiscoveryError) {
        guard let current = core.withLock({ $0 }) else {
            throw CastDiscoveryError(code: .avahi, message: "nothing is published")
        }
        try current.update(txt: txt)
    }

    /// The instance name currently registered, or `nil`.
    public var registeredName: String? { core.withLock { $0 }?.registeredName }

    /// Every registration avahi-daemon confirms from now on, as the instance name registered:
    /// the one ``publish(name:port:txt:subtypes:)`` returns, then each later one — an
    /// alternative name after a conflict found once the service was already up (two hosts that
    /// probed at the same moment, or a network that joined two segments), or the same name again
    /// after the daemon restarted.
    ///
    /// mDNS settles a conflict between two hosts by renaming one of them, and either may lose:
    /// watch this to learn that the name you announced to your user is no longer yours. The
    /// sequence ends when the publisher is deinitialized.
    public func registrations() -> AsyncStream<String> { registered.subscribe() }

    /// Stops advertising (Avahi sends goodbye packets, so browsers see a removal at once).
    public func withdraw() async {
        let old = core.withLock { current -> AvahiPublisherCore? in
            defer { current = nil }
            return current
        }
        old?.shutdown()
    }

    deinit {
        core.withLock { $0?.shutdown() }
        registered.finish()
    }
}

/// The part of the publisher that lives with the C handles (state touched on the poll thread,
/// under the poll lock, before the thread starts or after it stopped).
final class AvahiPublisherCore: @unchecked Sendable {
    struct Service {
        var name: String
        var type: String
        var port: UInt16
        var txt: CastTXTRecord
        var subtypes: [String]
        var interface: Int32
        var maxCollisions: Int
    }

    private var service: Service
    private let poll: AvahiPollHandle
    private var client: AvahiClientHandle?
    private var group: AvahiEntryGroupHandle?
    private var collisions = 0
    private var stopped = false
    private var outcome: Result<String, CastDiscoveryError>?
    private var waiter: CheckedContinuation<String, any Error>?
    private let nameBox = Mutex<String?>(nil)
    private let established: @Sendable (String) -> Void

    /// `established` is called on the poll thread with each name avahi-daemon confirms.
    init(service: Service, established: @escaping @Sendable (String) -> Void) throws(CastDiscoveryError) {
        self.service = service
        self.established = established
        poll = try AvahiPollHandle()
        var error: Int32 = 0
        let pointer = avahi_client_new(poll.api, AvahiClientFlags(0), avahiPublisherClientCallback,
                                       Unmanaged.passUnretained(self).toOpaque(), &error)
        guard let pointer else {
            let diagnostic = Avahi.diagnostic(forClientError: error, source: .mdns)
            let code: CastDiscoveryError.Code = switch diagnostic.code {
            case .avahiDaemonNotRunning: .daemonUnavailable
            case .dbusUnreachable: .busUnavailable
            default: .avahi
            }
            throw CastDiscoveryError(code: code, message: diagnostic.explanation)
        }
        client = AvahiClientHandle(pointer)
        if avahi_client_get_state(pointer) == AVAHI_CLIENT_S_RUNNING { register() }
        try poll.start()
    }

    var registeredName: String? { nameBox.withLock { $0 } }

    func waitEstablished() async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            poll.withLock {
                if let outcome {
                    continuation.resume(with: outcome.mapError { $0 as any Error })
                } else {
                    waiter = continuation
                }
            }
        }
    }

    private func finish(_ result: Result<String, CastDiscoveryError>) {
        guard outcome == nil else { return }
        outcome = result
        if case .success(let name) = result { nameBox.withLock { $0 = name } }
        waiter?.resume(with: result.mapError { $0 as any Error })
        waiter = nil
    }

    /// Adds the service to a (new or reset) entry group and commits it.
    private func register() {
        guard let client, !stopped else { return }
        if group == nil {
            guard let pointer = avahi_entry_group_new(client.pointer, avahiPublisherGroupCallback,
                                                      Unmanaged.passUnretained(self).toOpaque())
            else {
                fail("avahi_entry_group_new failed: \(Avahi.errorText(avahi_client_errno(client.pointer)))")
                return
            }
            group = AvahiEntryGroupHandle(pointer, client: client)
        }
        guard let group else { return }
        while true {
            let list = AvahiStringListHandle(service.txt)
            var result = castor_avahi_entry_group_add_service_strlst(
                group.pointer, service.interface, castor_avahi_proto_unspec(), AvahiPublishFlags(0),
                service.name, service.type, nil, nil, service.port, list.pointer)
            if result == Int32(AVAHI_ERR_COLLISION) {
                guard nextName() else { return }
                avahi_entry_group_reset(group.pointer)
                continue
            }
            for subtype in service.subtypes where result >= 0 {
                result = avahi_entry_group_add_service_subtype(
                    group.pointer, service.interface, castor_avahi_proto_unspec(), AvahiPublishFlags(0),
                    service.name, service.type, nil, subtype)
            }
            if result >= 0 { result = avahi_entry_group_commit(group.pointer) }
            if result < 0 {
                fail("could not publish \"\(service.name)\": \(Avahi.errorText(result))",
                     code: result == Int32(AVAHI_ERR_INVALID_SERVICE_NAME) ? .invalidArgument : .avahi)
            }
            return
        }
    }

    /// Switches to Avahi's alternative name; false (and failure) after too many collisions.
    private func nextName() -> Bool {
        collisions += 1
        guard collisions <= service.maxCollisions else {
            fail("\"\(service.name)\" still collides after \(service.maxCollisions) alternative names", code: .collision)
            return false
        }
        guard let alternative = avahi_alternative_service_name(service.name) else {
            fail("avahi_alternative_service_name failed", code: .collision)
            return false
        }
        service.name = String(cString: alternative)
        avahi_free(alternative)
        return true
    }

    private func fail(_ message: String, code: CastDiscoveryError.Code = .avahi) {
        finish(.failure(CastDiscoveryError(code: code, message: message)))
    }

    func clientChanged(_ pointer: OpaquePointer?, _ state: AvahiClientState) {
        guard !stopped else { return }
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            if client != nil, group.map({ avahi_entry_group_is_empty($0.pointer) != 0 }) ?? true { register() }
        case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING:
            // The host name changed or collided: records go away and are re-added once running.
            if let group { avahi_entry_group_reset(group.pointer) }
        case AVAHI_CLIENT_FAILURE:
            let code = pointer.map { avahi_client_errno($0) } ?? Int32(AVAHI_ERR_DISCONNECTED)
            fail("the connection to avahi-daemon failed: \(Avahi.errorText(code))", code: .daemonUnavailable)
            nameBox.withLock { $0 = nil }
        default:
            break
        }
    }

    func groupChanged(_ state: AvahiEntryGroupState) {
        guard !stopped else { return }
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            nameBox.withLock { $0 = service.name }
            finish(.success(service.name))
            established(service.name)
        case AVAHI_ENTRY_GROUP_COLLISION:
            guard nextName(), let group else { return }
            avahi_entry_group_reset(group.pointer)
            register()
        case AVAHI_ENTRY_GROUP_FAILURE:
            let code = client.map { avahi_client_errno($0.pointer) } ?? Int32(AVAHI_ERR_FAILURE)
            fail("the entry group failed: \(Avahi.errorText(code))")
        default:
            break
        }
    }

    func update(txt: CastTXTRecord) throws(CastDiscoveryError) {
        let result: Int32 = poll.withLock {
            guard let group, !stopped else { return Int32(AVAHI_ERR_BAD_STATE) }
            service.txt = txt
            let list = AvahiStringListHandle(txt)
            return avahi_entry_group_update_service_txt_strlst(
                group.pointer, service.interface, castor_avahi_proto_unspec(), AvahiPublishFlags(0),
                service.name, service.type, nil, list.pointer)
        }
        guard result >= 0 else {
            throw CastDiscoveryError(code: .avahi, message: "could not update the TXT record: \(Avahi.errorText(result))")
        }
    }

    func shutdown() {
        poll.withLock {
            guard !stopped else { return }
            stopped = true
            if outcome == nil {
                outcome = .failure(CastDiscoveryError(code: .cancelled, message: "the publication was withdrawn"))
                waiter?.resume(throwing: outcome!.mapError { $0 as any Error }.failureValue!)
                waiter = nil
            }
            group = nil  // frees the entry group: the daemon withdraws the records
        }
        poll.stop()
        client = nil
        nameBox.withLock { $0 = nil }
    }

    deinit { shutdown() }
}

extension Result {
    fileprivate var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

private func avahiPublisherClientCallback(_ client: OpaquePointer?, _ state: AvahiClientState,
                                          _ userdata: UnsafeMutableRawPointer?) {
    guard let userdata else { return }
    Unmanaged<AvahiPublisherCore>.fromOpaque(userdata).takeUnretainedValue().clientChanged(client, state)
}

private func avahiPublisherGroupCallback(_ group: OpaquePointer?, _ state: AvahiEntryGroupState,
                                         _ userdata: UnsafeMutableRawPointer?) {
    guard let userdata else { return }
    Unmanaged<AvahiPublisherCore>.fromOpaque(userdata).takeUnretainedValue().groupChanged(state)
}
