/// Something a ``DeviceBrowser`` noticed.
public enum DeviceBrowserEvent: Sendable, Hashable, CustomStringConvertible {
    /// A device appeared (its id was not known).
    case added(CastDevice)
    /// A known device changed: name, status text, capabilities or endpoints (a group whose
    /// leader moved arrives here with its new address and port).
    case updated(CastDevice)
    /// A device is gone from every source and endpoint. Carries its last known state.
    case removed(CastDevice)
    /// A problem that may explain why devices are missing (see ``DiscoveryDiagnostic``).
    case diagnostic(DiscoveryDiagnostic)

    /// The device the event is about, if any.
    public var device: CastDevice? {
        switch self {
        case .added(let device), .updated(let device), .removed(let device): return device
        case .diagnostic: return nil
        }
    }

    /// `added "Kitchen" (…)`.
    public var description: String {
        switch self {
        case .added(let device): return "added \(device)"
        case .updated(let device): return "updated \(device)"
        case .removed(let device): return "removed \(device)"
        case .diagnostic(let diagnostic): return "diagnostic \(diagnostic)"
        }
    }
}

/// Finds Cast devices and reports them as they come and go.
///
/// Implementations: CastDiscovery's `AvahiDeviceBrowser` (mDNS) and ``MergedDeviceBrowser`` (several browsers
/// together, deduplicated by id) here; `KnownHostsBrowser` (configured addresses probed over TLS)
/// in the CastKnownHosts product and `SSDPDeviceBrowser` (DIAL) in the CastDIAL product, so that a
/// program finding devices over mDNS builds no TLS, protobuf or XML code. Each browser keeps its
/// devices keyed by ``CastDeviceID``.
public protocol DeviceBrowser: AnyObject, Sendable {
    /// Starts browsing. Problems (no daemon, no interface) are reported as
    /// ``DeviceBrowserEvent/diagnostic(_:)`` events and in ``diagnostics``, never thrown, so a
    /// browser that cannot work yet keeps trying (Avahi reconnects when the daemon starts).
    func start() async
    /// Stops browsing and finishes every event stream. Idempotent.
    func stop() async
    /// A new stream of events. It starts with an ``DeviceBrowserEvent/added(_:)`` for every
    /// device already known, then follows changes; it finishes when the browser stops. Any
    /// number of streams may be open.
    func events() -> AsyncStream<DeviceBrowserEvent>
    /// The devices known now, sorted by name.
    var devices: [CastDevice] { get }
    /// The problems in effect now (cleared when they go away, e.g. the daemon came back).
    var diagnostics: [DiscoveryDiagnostic] { get }
    /// The mechanism this browser uses, named in ``DeviceBrowser/discover(timeout:clock:)``'s
    /// no-answer diagnostic. ``DiscoverySource/mdns`` unless the browser says otherwise.
    var discoverySource: DiscoverySource { get }
}

extension DeviceBrowser {
    /// ``DiscoverySource/mdns``.
    public var discoverySource: DiscoverySource { .mdns }
}
