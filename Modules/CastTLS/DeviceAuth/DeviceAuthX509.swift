internal import CGnuTLS
import Foundation

/// Owns a `gnutls_pubkey_t`; freed in deinit.
final class GnuTLSPublicKey {
    let handle: gnutls_pubkey_t

    /// The public key of `certificate`.
    init(certificate: GnuTLSX509Certificate) throws(TLSError) {
        try GnuTLSLibrary.ensureInitialized()
        var key: gnutls_pubkey_t?
        try GnuTLSLibrary.check(gnutls_pubkey_init(&key), .libraryFailure, "gnutls_pubkey_init failed")
        guard let key else { throw TLSError(code: .libraryFailure, message: "gnutls_pubkey_init returned no handle") }
        handle = key
        try GnuTLSLibrary.check(
            gnutls_pubkey_import_x509(key, certificate.handle, 0), .invalidCredentials,
            "The certificate's public key cannot be read")
    }

    deinit { gnutls_pubkey_deinit(handle) }

    /// The DER `SubjectPublicKeyInfo` (what Cast CRLs hash).
    func subjectPublicKeyInfoDER() throws(TLSError) -> [UInt8] {
        var datum = gnutls_datum_t(data: nil, size: 0)
        try GnuTLSLibrary.check(
            gnutls_pubkey_export2(handle, GNUTLS_X509_FMT_DER, &datum), .invalidCredentials,
            "The public key cannot be exported")
        return takeGnuTLSDatum(&datum)
    }

    /// Whether `signature` is a valid `algorithm` signature of `data` by this key (SHA-1 allowed).
    func verify(_ algorithm: gnutls_sign_algorithm_t, data: [UInt8], signature: [UInt8]) -> Bool {
        guard !signature.isEmpty else { return false }
        let result = try? withGnuTLSDatum(data) { dataDatum throws(TLSError) in
            try withGnuTLSDatum(signature) { signatureDatum in
                gnutls_pubkey_verify_data2(handle, algorithm, castor_gnutls_verify_allow_sha1(), &dataDatum, &signatureDatum)
            }
        }
        return (result ?? -1) >= 0
    }
}

/// Owns a `gnutls_privkey_t` (an abstract key made from an X.509 key); freed in deinit.
final class GnuTLSPrivateKey {
    let handle: gnutls_privkey_t

    /// An abstract key holding a copy of `key`.
    init(_ key: GnuTLSX509PrivateKey) throws(TLSError) {
        try GnuTLSLibrary.ensureInitialized()
        var privkey: gnutls_privkey_t?
        try GnuTLSLibrary.check(gnutls_privkey_init(&privkey), .libraryFailure, "gnutls_privkey_init failed")
        guard let privkey else { throw TLSError(code: .libraryFailure, message: "gnutls_privkey_init returned no handle") }
        handle = privkey
        try GnuTLSLibrary.check(
            gnutls_privkey_import_x509(privkey, key.handle, castor_gnutls_privkey_import_copy()), .invalidCredentials,
            "The private key cannot be imported")
    }

    deinit { gnutls_privkey_deinit(handle) }

    /// An RSASSA-PKCS1-v1_5 signature of `data` with `digest`.
    func sign(_ digest: gnutls_digest_algorithm_t, data: [UInt8]) throws(TLSError) -> [UInt8] {
        var signature = gnutls_datum_t(data: nil, size: 0)
        let result = try withGnuTLSDatum(data) { datum in
            gnutls_privkey_sign_data(handle, digest, 0, &datum, &signature)
        }
        try GnuTLSLibrary.check(result, .libraryFailure, "Signing failed")
        return takeGnuTLSDatum(&signature)
    }
}

/// SHA-256 of `bytes`.
func deviceAuthSHA256(_ bytes: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: 32)
    bytes.withUnsafeBytes { input in
        _ = gnutls_hash_fast(GNUTLS_DIG_SHA256, input.baseAddress, input.count, &digest)
    }
    return digest
}

/// Fills `count` bytes from GnuTLS's nonce generator.
func deviceAuthRandomBytes(_ count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    if (try? GnuTLSLibrary.ensureInitialized()) == nil || gnutls_rnd(GNUTLS_RND_NONCE, &bytes, count) < 0 {
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
    }
    return bytes
}

/// Splits DER: the raw bytes (header included) of the first element inside the outer SEQUENCE,
/// which for a certificate is `tbsCertificate`. `nil` for anything malformed.
func derFirstElementOfSequence(_ bytes: [UInt8]) -> [UInt8]? {
    guard let outer = derHeader(bytes, at: 0), outer.tag == 0x30 else { return nil }
    guard outer.contentStart + outer.length <= bytes.count else { return nil }
    guard let inner = derHeader(bytes, at: outer.contentStart) else { return nil }
    let end = inner.contentStart + inner.length
    guard end <= outer.contentStart + outer.length else { return nil }
    return Array(bytes[outer.contentStart..<end])
}

/// One DER tag-length header at `offset`: the tag byte, the content length and where the content starts.
private func derHeader(_ bytes: [UInt8], at offset: Int) -> (tag: UInt8, length: Int, contentStart: Int)? {
    guard offset >= 0, offset + 2 <= bytes.count else { return nil }
    let tag = bytes[offset]
    guard tag & 0x1F != 0x1F else { return nil }  // multi-byte tags do not occur here
    let first = bytes[offset + 1]
    if first < 0x80 { return (tag, Int(first), offset + 2) }
    let count = Int(first & 0x7F)
    guard (1...4).contains(count), offset + 2 + count <= bytes.count else { return nil }
    var length = 0
    for index in 0..<count { length = length << 8 | Int(bytes[offset + 2 + index]) }
    guard length >= 0x80 else { return nil }  // DER uses the short form below 128
    return (tag, length, offset + 2 + count)
}

/// The RSA PKCS#1 v1.5 signature algorithms accepted on certificates of a Cast chain.
let deviceAuthAcceptedCertificateSignatures: Set<UInt32> = [
    GNUTLS_SIGN_RSA_SHA1.rawValue, GNUTLS_SIGN_RSA_SHA256.rawValue,
    GNUTLS_SIGN_RSA_SHA384.rawValue, GNUTLS_SIGN_RSA_SHA512.rawValue,
]

/// The extensions the path checks understand; any other extension marked critical makes a certificate unusable.
private let deviceAuthKnownExtensions: Set<String> = [
    "2.5.29.19",  // basicConstraints
    "2.5.29.15",  // keyUsage
    "2.5.29.37",  // extKeyUsage
    "2.5.29.32",  // certificatePolicies
    "2.5.29.14",  // subjectKeyIdentifier
    "2.5.29.35",  // authorityKeyIdentifier
    "2.5.29.17",  // subjectAltName
    "2.5.29.30",  // nameConstraints
]

/// The DER content of the anyPolicy OID (2.5.29.32.0), which a policy mapping must not name (RFC 5280 §6.1.4 (a)).
private let deviceAuthAnyPolicyOID: [UInt8] = [0x55, 0x1D, 0x20, 0x00]

/// One parsed certificate with the facts device authentication checks, read once through GnuTLS.
final class DeviceAuthCertificate {
    let certificate: GnuTLSX509Certificate
    let der: [UInt8]
    let subjectDN: [UInt8]
    let issuerDN: [UInt8]
    let tbsCertificate: [UInt8]
    let signature: [UInt8]
    let signatureAlgorithm: UInt32
    let publicKey: GnuTLSPublicKey
    let isRSA: Bool
    /// GnuTLS's name of the public-key algorithm (`"RSA"`, `"EC/ECDSA"`, …).
    let publicKeyAlgorithmName: String
    let keyBits: Int
    let subjectPublicKeyInfo: [UInt8]
    let notBefore: Date
    let notAfter: Date
    /// `nil` when the certificate has no basicConstraints extension.
    let basicConstraints: (isCA: Bool, pathLength: Int?)?
    /// `nil` when the certificate has no keyUsage extension.
    let keyUsage: UInt32?
    /// `nil` when the certificate has no extKeyUsage extension.
    let extendedKeyUsages: [String]?
    let policies: [String]
    let unknownCriticalExtensions: [String]
    let commonName: String?
    /// The serial number's big-endian magnitude, leading zero bytes removed.
    let serialNumber: [UInt8]
    /// The subject name as RDNs for name-constraint checks; `nil` when it cannot be parsed.
    let parsedSubject: [[DeviceAuthNameAttribute]]?
    /// The nameConstraints extension, if any.
    let nameConstraints: DeviceAuthNameConstraints?
    /// Whether a policyMappings extension maps from or to anyPolicy (forbidden by RFC 5280 §6.1.4 (a)).
    let mapsAnyPolicy: Bool

    /// Parses DER and reads every fact; throws when the bytes are not a usable certificate.
    init(der: [UInt8]) throws(TLSError) {
        let certificate = try GnuTLSX509Certificate(bytes: der, pem: false)
        let crt = certificate.handle
        self.certificate = certificate
        self.der = der
        guard let tbs = derFirstElementOfSequence(der) else {
            throw TLSError(code: .invalidCredentials, message: "The certificate's DER structure is malformed")
        }
        tbsCertificate = tbs

        var datum = gnutls_datum_t(data: nil, size: 0)
        try GnuTLSLibrary.check(gnutls_x509_crt_get_raw_dn(crt, &datum), .invalidCredentials, "No subject name")
        subjectDN = takeGnuTLSDatum(&datum)
        try GnuTLSLibrary.check(gnutls_x509_crt_get_raw_issuer_dn(crt, &datum), .invalidCredentials, "No issuer name")
        issuerDN = takeGnuTLSDatum(&datum)

        var signatureBuffer = [UInt8](repeating: 0, count: 2048)
        var signatureSize = signatureBuffer.count
        try GnuTLSLibrary.check(
            gnutls_x509_crt_get_signature(crt, &signatureBuffer, &signatureSize), .invalidCredentials,
            "The certificate signature cannot be read")
        signature = Array(signatureBuffer.prefix(signatureSize))
        signatureAlgorithm = UInt32(bitPattern: gnutls_x509_crt_get_signature_algorithm(crt))

        publicKey = try GnuTLSPublicKey(certificate: certificate)
        var bits: UInt32 = 0
        let algorithm = gnutls_x509_crt_get_pk_algorithm(crt, &bits)
        isRSA = algorithm == Int32(GNUTLS_PK_RSA.rawValue)
        publicKeyAlgorithmName = algorithm < 0 ? "unknown"
            : gnutls_pk_algorithm_get_name(gnutls_pk_algorithm_t(rawValue: UInt32(algorithm))).map { String(cString: $0) } ?? "unknown"
        keyBits = Int(bits)
        subjectPublicKeyInfo = try publicKey.subjectPublicKeyInfoDER()
        notBefore = certificate.notBefore
        notAfter = certificate.notAfter

        var critical: UInt32 = 0
        var isCA: UInt32 = 0
        var pathLength: Int32 = -1
        let constraints = gnutls_x509_crt_get_basic_constraints(crt, &critical, &isCA, &pathLength)
        if constraints == castor_gnutls_e_requested_data_not_available() {
            basicConstraints = nil
        } else if constraints < 0 {
            throw TLSError(code: .invalidCredentials, message: "Malformed basicConstraints", gnutls: constraints)
        } else {
            basicConstraints = (isCA != 0, pathLength >= 0 ? Int(pathLength) : nil)
        }

        var usage: UInt32 = 0
        let usageResult = gnutls_x509_crt_get_key_usage(crt, &usage, &critical)
        if usageResult == castor_gnutls_e_requested_data_not_available() {
            keyUsage = nil
        } else if usageResult < 0 {
            throw TLSError(code: .invalidCredentials, message: "Malformed keyUsage", gnutls: usageResult)
        } else {
            keyUsage = usage
        }

        extendedKeyUsages = try Self.readExtendedKeyUsages(crt)
        policies = try Self.readPolicies(crt)
        unknownCriticalExtensions = try Self.readUnknownCriticalExtensions(crt)
        commonName = certificate.subjectCommonName

        var serialBuffer = [UInt8](repeating: 0, count: 64)
        var serialSize = serialBuffer.count
        try GnuTLSLibrary.check(
            gnutls_x509_crt_get_serial(crt, &serialBuffer, &serialSize), .invalidCredentials, "No serial number")
        serialNumber = Array(serialBuffer.prefix(serialSize).drop(while: { $0 == 0 }))
        parsedSubject = deviceAuthParseName(subjectDN)
        nameConstraints = try DeviceAuthNameConstraints(crt)
        mapsAnyPolicy = try Self.readMapsAnyPolicy(crt)
    }

    /// The subject distinguished name as text (RFC 4514).
    var subjectText: String { Self.dnText(certificate.handle, issuer: false) }
    /// The issuer distinguished name as text (RFC 4514).
    var issuerText: String { Self.dnText(certificate.handle, issuer: true) }

    private static func dnText(_ crt: gnutls_x509_crt_t, issuer: Bool) -> String {
        var datum = gnutls_datum_t(data: nil, size: 0)
        let result = issuer ? gnutls_x509_crt_get_issuer_dn2(crt, &datum) : gnutls_x509_crt_get_dn2(crt, &datum)
        guard result >= 0 else { return "" }
        return String(decoding: takeGnuTLSDatum(&datum), as: UTF8.self)
    }

    private static func readMapsAnyPolicy(_ crt: gnutls_x509_crt_t) throws(TLSError) -> Bool {
        var datum = gnutls_datum_t(data: nil, size: 0)
        var critical: UInt32 = 0
        let result = gnutls_x509_crt_get_extension_by_oid2(crt, "2.5.29.33", 0, &datum, &critical)
        if result == castor_gnutls_e_requested_data_not_available() { return false }
        guard result >= 0 else { throw TLSError(code: .invalidCredentials, message: "Malformed policyMappings", gnutls: result) }
        let der = takeGnuTLSDatum(&datum)
        guard let outer = deviceAuthDERElements(der[...]), outer.count == 1, outer[0].tag == 0x30,
            let mappings = deviceAuthDERElements(outer[0].content)
        else { throw TLSError(code: .invalidCredentials, message: "Malformed policyMappings") }
        for mapping in mappings {
            guard mapping.tag == 0x30, let oids = deviceAuthDERElements(mapping.content), oids.count == 2,
                oids.allSatisfy({ $0.tag == 0x06 })
            else { throw TLSError(code: .invalidCredentials, message: "Malformed policyMappings") }
            if oids.contains(where: { Array($0.content) == deviceAuthAnyPolicyOID }) { return true }
        }
        return false
    }

    /// Parses a certificate of a device path.
    /// - Throws: `CastDeviceAuthError.Code.malformedCertificate`.
    static func parse(_ der: [UInt8], role: String = "A certificate") throws(CastDeviceAuthError) -> DeviceAuthCertificate {
        do {
            return try DeviceAuthCertificate(der: der)
        } catch {
            throw CastDeviceAuthError(code: .malformedCertificate, message: "\(role) cannot be parsed", cause: error)
        }
    }

    /// The serial number as an unsigned 64-bit value, if it fits (Cast CRL serial ranges are 64-bit).
    var serialNumberUInt64: UInt64? {
        guard serialNumber.count <= 8 else { return nil }
        return serialNumber.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// Whether `issuer` names this certificate's issuer and its key verifies this certificate's signature.
    func isIssued(by issuer: DeviceAuthCertificate) -> Bool {
        guard issuerDN == issuer.subjectDN, deviceAuthAcceptedCertificateSignatures.contains(signatureAlgorithm) else {
            return false
        }
        return issuer.publicKey.verify(
            gnutls_sign_algorithm_t(rawValue: signatureAlgorithm), data: tbsCertificate, signature: signature)
    }

    /// A name for messages: the common name, or a placeholder.
    var displayName: String { commonName.map { "'\($0)'" } ?? "(no common name)" }

    private static func readExtendedKeyUsages(_ crt: gnutls_x509_crt_t) throws(TLSError) -> [String]? {
        var usages: [String] = []
        var index: UInt32 = 0
        while true {
            var buffer = [CChar](repeating: 0, count: 128)
            var size = buffer.count
            var critical: UInt32 = 0
            let result = gnutls_x509_crt_get_key_purpose_oid(crt, index, &buffer, &size, &critical)
            if result == castor_gnutls_e_requested_data_not_available() { break }
            guard result >= 0 else {
                throw TLSError(code: .invalidCredentials, message: "Malformed extKeyUsage", gnutls: result)
            }
            usages.append(String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            index += 1
            if index > 64 { break }
        }
        return index == 0 ? nil : usages
    }

    private static func readPolicies(_ crt: gnutls_x509_crt_t) throws(TLSError) -> [String] {
        var oids: [String] = []
        var index: UInt32 = 0
        while index < 64 {
            var policy = gnutls_x509_policy_st()
            var critical: UInt32 = 0
            let result = gnutls_x509_crt_get_policy(crt, index, &policy, &critical)
            if result == castor_gnutls_e_requested_data_not_available() { break }
            guard result >= 0 else {
                throw TLSError(code: .invalidCredentials, message: "Malformed certificatePolicies", gnutls: result)
            }
            if let oid = castor_gnutls_policy_oid(&policy) { oids.append(String(cString: oid)) }
            gnutls_x509_policy_release(&policy)
            index += 1
        }
        return oids
    }

    private static func readUnknownCriticalExtensions(_ crt: gnutls_x509_crt_t) throws(TLSError) -> [String] {
        var unknown: [String] = []
        var index: UInt32 = 0
        while index < 256 {
            var buffer = [CChar](repeating: 0, count: 128)
            var size = buffer.count
            var critical: UInt32 = 0
            let result = gnutls_x509_crt_get_extension_info(crt, index, &buffer, &size, &critical)
            if result == castor_gnutls_e_requested_data_not_available() { break }
            guard result >= 0 else {
                throw TLSError(code: .invalidCredentials, message: "Malformed extension", gnutls: result)
            }
            let oid = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if critical != 0, !deviceAuthKnownExtensions.contains(oid) { unknown.append(oid) }
            index += 1
        }
        return unknown
    }
}

/// keyUsage bits and extended key usage OIDs (GnuTLS macros).
let castorKeyUsageDigitalSignature = castor_gnutls_ku_digital_signature()
let castorKeyUsageKeyCertSign = castor_gnutls_ku_key_cert_sign()
let castorExtendedKeyUsageClientAuth = String(cString: castor_gnutls_kp_client_auth())
let castorExtendedKeyUsageAny = String(cString: castor_gnutls_kp_any())
