public import Foundation

/// What one certificate of a device's chain says, for display and diagnostics (`castctl auth show`).
public struct CastDeviceCertificateInfo: Sendable, Hashable {
    /// The certificate (DER).
    public var der: [UInt8]
    /// The subject distinguished name (RFC 4514 text).
    public var subject: String
    /// The issuer distinguished name (RFC 4514 text).
    public var issuer: String
    /// The subject common name, if any (on real devices the device certificate's CN is its serial-like id).
    public var commonName: String?
    /// The serial number, lowercase hexadecimal without leading zeros (`"0"` for zero).
    public var serialNumber: String
    /// The start of the validity period.
    public var notBefore: Date
    /// The end of the validity period.
    public var notAfter: Date
    /// `"RSA"`, or another public-key algorithm's name (which Cast paths refuse).
    public var publicKeyAlgorithm: String
    /// The public key's size in bits.
    public var publicKeyBits: Int
    /// Whether basicConstraints marks the certificate as a certificate authority.
    public var isCertificateAuthority: Bool
    /// The basicConstraints path length limit, if any.
    public var pathLengthConstraint: Int?
    /// The certificate policy OIDs (1.3.6.1.4.1.11129.2.5.2 marks audio-only devices).
    public var policies: [String]
    /// The SHA-256 fingerprint of ``der``, lowercase hexadecimal.
    public var sha256Fingerprint: String

    /// Creates the description of a certificate from its fields (the parsing is in CastTLS: `init(der:)`).
    package init(
        der: [UInt8], subject: String, issuer: String, commonName: String?, serialNumber: String, notBefore: Date,
        notAfter: Date, publicKeyAlgorithm: String, publicKeyBits: Int, isCertificateAuthority: Bool,
        pathLengthConstraint: Int?, policies: [String], sha256Fingerprint: String
    ) {
        self.der = der
        self.subject = subject
        self.issuer = issuer
        self.commonName = commonName
        self.serialNumber = serialNumber
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.publicKeyAlgorithm = publicKeyAlgorithm
        self.publicKeyBits = publicKeyBits
        self.isCertificateAuthority = isCertificateAuthority
        self.pathLengthConstraint = pathLengthConstraint
        self.policies = policies
        self.sha256Fingerprint = sha256Fingerprint
    }
}

/// A CRL that verified: its window and what it revokes.
public struct CastDeviceCRLInfo: Sendable, Hashable {
    /// The start of the CRL's validity window.
    public var notBefore: Date
    /// The end of the CRL's own validity window.
    public var notAfter: Date
    /// The end of the window in which it can be used: the earlier of ``notAfter`` and its signer certificate's end.
    public var usableUntil: Date
    /// The certificate that signed the CRL (it chains to a CRL root).
    public var signer: CastDeviceCertificateInfo
    /// How many public keys (SHA-256 of SubjectPublicKeyInfo) the CRL revokes.
    public var revokedPublicKeyCount: Int
    /// How many serial-number ranges (each under an issuer key) the CRL revokes.
    public var revokedSerialRangeCount: Int

    /// Creates the description of a CRL from its fields.
    package init(
        notBefore: Date, notAfter: Date, usableUntil: Date, signer: CastDeviceCertificateInfo, revokedPublicKeyCount: Int,
        revokedSerialRangeCount: Int
    ) {
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.usableUntil = usableUntil
        self.signer = signer
        self.revokedPublicKeyCount = revokedPublicKeyCount
        self.revokedSerialRangeCount = revokedSerialRangeCount
    }
}

/// A device certificate path that verified: the first of the two steps of device authentication
/// (`CastDeviceAuthenticator.verifyCertificatePath(_:crlBundle:crlPolicy:at:crlVerificationTime:)` in CastTLS).
public struct CastDeviceCertificatePath: Sendable, Hashable {
    /// The path, device certificate first, trust anchor last.
    public var certificates: [CastDeviceCertificateInfo]
    /// Whether a certificate of the path (the anchor included) carries the audio-only policy
    /// (``CastDeviceAuthResult/audioOnlyPolicyOID``): the device must not be used for video.
    public var isAudioOnly: Bool
    /// The CRL that was checked against the path; `nil` when none was given or it was set aside.
    public var crl: CastDeviceCRLInfo?
    /// Why a CRL that was given was set aside under ``CastCRLPolicy/optional`` (it did not verify); `nil` otherwise.
    public var unusedCRLReason: CastDeviceAuthError?

    /// The device certificate (the first of ``certificates``).
    public var device: CastDeviceCertificateInfo { certificates[0] }

    /// Creates a path from its parts.
    package init(
        certificates: [CastDeviceCertificateInfo], isAudioOnly: Bool, crl: CastDeviceCRLInfo?, unusedCRLReason: CastDeviceAuthError?
    ) {
        self.certificates = certificates
        self.isAudioOnly = isAudioOnly
        self.crl = crl
        self.unusedCRLReason = unusedCRLReason
    }
}
