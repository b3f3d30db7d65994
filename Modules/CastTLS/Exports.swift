// CastTLS implements the light layer's transport protocol: whoever imports it sees CastCore's
// message, `CastTransport` protocol, errors and device-authentication values too.
@_exported public import CastCore
