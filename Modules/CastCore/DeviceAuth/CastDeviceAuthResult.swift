/// The hash of an RSASSA-PKCS1-v1_5 device-authentication signature.
public enum CastDeviceAuthHashAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// SHA-1 (`HashAlgorithm.SHA1`, the protocol default; still accepted, as Chrome does).
    case sha1
    /// SHA-256 (`HashAlgorithm.SHA256`, what senders request).
    case sha256
}

/// What a verified device proved.
public struct CastDeviceAuthResult: Sendable, Hashable {
    /// How the reply's nonce echo compared with the nonce sent.
    public enum NonceCheck: String, Sendable, Hashable {
        /// The reply echoed the nonce sent.
        case matched
        /// The reply carried no nonce (the signature covers only the TLS certificate: replayable).
        case missing
        /// The reply echoed a different nonce (accepted only with nonce enforcement off).
        case mismatched
    }

    /// The device certificate's subject common name (on real devices, the device's serial-like id).
    public var deviceCommonName: String
    /// Whether a certificate of the chain carries the audio-only policy (OID 1.3.6.1.4.1.11129.2.5.2):
    /// the device must not be used for video.
    public var isAudioOnly: Bool
    /// The hash the device signed with.
    public var hashAlgorithm: CastDeviceAuthHashAlgorithm
    /// How the nonce echo compared.
    public var nonce: NonceCheck
    /// Whether the reply carried a CRL bundle that verified (and revoked nothing in the chain).
    public var crlChecked: Bool
    /// The common names of the verified path, device certificate first, trust anchor last.
    public var chainCommonNames: [String]
    /// The verified path in full (certificates, policies, the CRL that was checked), when known.
    public var certificatePath: CastDeviceCertificatePath?

    /// Creates a result.
    public init(
        deviceCommonName: String, isAudioOnly: Bool, hashAlgorithm: CastDeviceAuthHashAlgorithm,
        nonce: NonceCheck, crlChecked: Bool, chainCommonNames: [String], certificatePath: CastDeviceCertificatePath? = nil
    ) {
        self.certificatePath = certificatePath
        self.deviceCommonName = deviceCommonName
        self.isAudioOnly = isAudioOnly
        self.hashAlgorithm = hashAlgorithm
        self.nonce = nonce
        self.crlChecked = crlChecked
        self.chainCommonNames = chainCommonNames
    }

    /// The certificate policy OID that marks audio-only devices.
    public static let audioOnlyPolicyOID = "1.3.6.1.4.1.11129.2.5.2"
}

/// The outcome of device authentication on one connection.
public enum CastDeviceAuthStatus: Sendable, Hashable, CustomStringConvertible {
    /// No challenge was sent (policy ``CastDeviceAuthPolicy/Mode-swift.enum/off``): the device is unverified.
    case notChecked
    /// The device proved it is genuine.
    case verified(CastDeviceAuthResult)
    /// Authentication failed, with the reason.
    case failed(CastDeviceAuthError)

    /// Whether the device is verified genuine.
    public var isVerified: Bool {
        if case .verified = self { return true }
        return false
    }

    /// `genuine (<CN>[, audio-only])`, `unverified`, or `failed: <code>: <message>` — what `castctl status` prints.
    public var description: String {
        switch self {
        case .notChecked:
            return "unverified"
        case .verified(let result):
            return "genuine (\(result.deviceCommonName)\(result.isAudioOnly ? ", audio-only" : ""))"
        case .failed(let error):
            return "failed: \(error.code): \(error.message)"
        }
    }
}
