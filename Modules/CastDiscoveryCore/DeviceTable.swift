/// The pure state machine behind every browser: observations of services keyed by where they
/// were seen, merged into devices keyed by id, producing added/updated/removed events.
///
/// One observation is what one source saw at one place (an mDNS service instance on one
/// interface and protocol, a known host, an SSDP LOCATION). Several observations with the
/// same device id merge into one ``CastDevice``: endpoints and sources are united, and the
/// descriptive fields come from the most trusted, most recent observation (mDNS over known
/// hosts over DIAL), with gaps filled from the others.
package struct DeviceTable: Sendable {
    private struct Observation: Sendable {
        var device: CastDevice
        var sequence: Int
    }
    private var observations: [String: Observation] = [:]
    private var merged: [CastDeviceID: CastDevice] = [:]
    private var sequence = 0

    /// An empty table.
    package init() {}

    /// The merged devices, sorted by name then id.
    package var devices: [CastDevice] {
        merged.values.sorted { ($0.friendlyName, $0.id) < ($1.friendlyName, $1.id) }
    }

    /// The merged device with this id.
    package func device(_ id: CastDeviceID) -> CastDevice? { merged[id] }

    /// The device id an observation key currently contributes to.
    package func deviceID(forObservation key: String) -> CastDeviceID? { observations[key]?.device.id }

    /// Records (or replaces) what was seen under `key`. Returns the resulting events.
    package mutating func upsert(_ key: String, _ device: CastDevice) -> [DeviceBrowserEvent] {
        sequence += 1
        let previousID = observations[key]?.device.id
        observations[key] = Observation(device: device, sequence: sequence)
        var events: [DeviceBrowserEvent] = []
        if let previousID, previousID != device.id { events += remerge(previousID) }
        events += remerge(device.id)
        return events
    }

    /// Forgets what was seen under `key`. Returns the resulting events.
    package mutating func remove(_ key: String) -> [DeviceBrowserEvent] {
        guard let old = observations.removeValue(forKey: key) else { return [] }
        return remerge(old.device.id)
    }

    /// Forgets every observation whose key starts with `prefix` (a source going away).
    package mutating func removeAll(prefix: String = "") -> [DeviceBrowserEvent] {
        let keys = observations.keys.filter { $0.hasPrefix(prefix) }.sorted()
        return keys.flatMap { remove($0) }
    }

    private mutating func remerge(_ id: CastDeviceID) -> [DeviceBrowserEvent] {
        let parts = observations.values.filter { $0.device.id == id }
            .sorted { lhs, rhs in
                let l = lhs.device.sources.min()?.rank ?? 9, r = rhs.device.sources.min()?.rank ?? 9
                return l != r ? l < r : lhs.sequence > rhs.sequence
            }
        let old = merged[id]
        guard var result = parts.first?.device else {
            merged[id] = nil
            return old.map { [.removed($0)] } ?? []
        }
        for part in parts.dropFirst() {
            let other = part.device
            result.endpoints.formUnion(other.endpoints)
            result.sources.formUnion(other.sources)
            result.applicationIDs.formUnion(other.applicationIDs)
            if result.model == nil { result.model = other.model }
            if !result.advertisesCapabilities && other.advertisesCapabilities {
                result.capabilities = other.capabilities
                result.advertisesCapabilities = true
            }
            if result.protocolVersion == nil { result.protocolVersion = other.protocolVersion }
            if result.iconPath == nil { result.iconPath = other.iconPath }
            if result.buildRevision == nil { result.buildRevision = other.buildRevision }
            if result.serviceName == nil { result.serviceName = other.serviceName }
            if result.applicationURL == nil { result.applicationURL = other.applicationURL }
            if result.txtRecord.isEmpty { result.txtRecord = other.txtRecord }
        }
        merged[id] = result
        guard let old else { return [.added(result)] }
        return old == result ? [] : [.updated(result)]
    }
}
