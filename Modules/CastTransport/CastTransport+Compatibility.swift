// The module CastTransport of earlier releases, split in two: the light layer (CastCore: the message,
// the `CastTransport` protocol, the in-memory transport, errors and device-authentication values) and
// the TLS implementation (CastTLS: the wire codec, framing, GnuTLS, `TLSCastTransport`,
// `CastTransportServer`, device-authentication checks). `import CastTransport` keeps compiling for
// one release; import CastCore or CastTLS instead (see CHANGELOG.md). This module goes away then.
@_exported public import CastCore
@_exported public import CastTLS
