/// A challenge sent to a receiver: the nonce to expect back and the message to send.
public struct CastDeviceAuthChallenge: Sendable, Hashable {
    /// The sender nonce (16 random bytes by default).
    public let nonce: [UInt8]
    /// The hash the receiver is asked to sign with.
    public let hashAlgorithm: CastDeviceAuthHashAlgorithm
    /// The `CastMessage` to send: `sender-0` → `receiver-0` on `urn:x-cast:com.google.cast.tp.deviceauth`,
    /// binary payload `DeviceAuthMessage{challenge{sender_nonce, hash_algorithm}}`.
    public let message: CastMessage

    /// Creates a challenge from its parts, for a ``CastDeviceVerifier`` of your own
    /// (`CastDeviceAuthenticator.makeChallenge(nonce:hashAlgorithm:)` in CastTLS builds Google's).
    public init(nonce: [UInt8], hashAlgorithm: CastDeviceAuthHashAlgorithm, message: CastMessage) {
        self.nonce = nonce
        self.hashAlgorithm = hashAlgorithm
        self.message = message
    }
}
