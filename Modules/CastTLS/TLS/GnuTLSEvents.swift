/// Fired inbound (`fireUserInboundEventTriggered`) by ``GnuTLSHandler`` when the TLS handshake finished.
package struct GnuTLSHandshakeCompleted: Sendable, Hashable {
    /// The negotiated protocol version, e.g. `"TLS1.3"`.
    package var protocolVersion: String
    /// GnuTLS's summary of the negotiated parameters, e.g. `"(TLS1.3)-(ECDHE-X25519)-(RSA-PSS-RSAE-SHA256)-(AES-256-GCM)"`.
    package var sessionDescription: String
    /// The peer's leaf certificate (DER), if it presented one (a server always does).
    package var peerCertificateDER: [UInt8]?

    package init(protocolVersion: String, sessionDescription: String, peerCertificateDER: [UInt8]?) {
        self.protocolVersion = protocolVersion
        self.sessionDescription = sessionDescription
        self.peerCertificateDER = peerCertificateDER
    }
}

/// Fired inbound by ``GnuTLSHandler`` when the peer ended the TLS stream cleanly with `close_notify`.
/// The handler answers with its own `close_notify` and closes the channel; no error is reported.
package struct GnuTLSCloseNotifyReceived: Sendable, Hashable {
    package init() {}
}
