// CastDiscovery implements the light layer's discovery protocols over Avahi: whoever imports it sees
// CastDiscoveryCore's `DeviceBrowser`, `CastDevice`, `CastTXTRecord` and the rest too.
@_exported public import CastDiscoveryCore
