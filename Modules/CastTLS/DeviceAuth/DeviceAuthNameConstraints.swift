internal import CGnuTLS

/// A certificate's nameConstraints extension (RFC 5280 §4.2.1.10), as Open Screen's verifier applies it
/// (`NAME_CONSTRAINTS_check` in `boringssl_trust_store.cc`): every later certificate of the path that is
/// not self-issued, and the target, must have names inside the permitted subtrees and outside the excluded ones.
///
/// directoryName subtrees are read from the extension's DER and checked here against the subject name
/// (GnuTLS does not check them); DNS, e-mail and IP subtrees go to `gnutls_x509_name_constraints_check_crt`.
/// Any other kind of subtree (URI, otherName, …) cannot be checked, so a path under it is refused.
/// Owns its GnuTLS handle.
final class DeviceAuthNameConstraints {
    /// GnuTLS's view of the same extension, for the DNS, e-mail and IP subtrees; `nil` when there are none.
    private let handle: gnutls_x509_name_constraints_t?
    private let permittedNames: [[[DeviceAuthNameAttribute]]]
    private let excludedNames: [[[DeviceAuthNameAttribute]]]
    /// The GnuTLS-checkable name types the constraints mention.
    private let gnutlsTypes: Set<UInt32>
    /// The GeneralName tag of a subtree kind nobody here can check, if any.
    let unsupportedTag: UInt8?

    /// Reads the extension of `crt`; `nil` when it has none.
    init?(_ crt: gnutls_x509_crt_t) throws(TLSError) {
        var datum = gnutls_datum_t(data: nil, size: 0)
        var critical: UInt32 = 0
        let result = gnutls_x509_crt_get_extension_by_oid2(crt, "2.5.29.30", 0, &datum, &critical)
        if result == castor_gnutls_e_requested_data_not_available() { return nil }
        guard result >= 0 else { throw TLSError(code: .invalidCredentials, message: "Malformed nameConstraints", gnutls: result) }
        let der = takeGnuTLSDatum(&datum)
        // NameConstraints ::= SEQUENCE { permittedSubtrees [0] GeneralSubtrees OPTIONAL, excludedSubtrees [1] … }
        // GeneralSubtree ::= SEQUENCE { base GeneralName, minimum [0] DEFAULT 0, maximum [1] OPTIONAL }
        guard let outer = deviceAuthDERElements(der[...]), outer.count == 1, outer[0].tag == 0x30,
            let parts = deviceAuthDERElements(outer[0].content)
        else { throw TLSError(code: .invalidCredentials, message: "Malformed nameConstraints") }
        var permitted: [[[DeviceAuthNameAttribute]]] = []
        var excluded: [[[DeviceAuthNameAttribute]]] = []
        var types = Set<UInt32>()
        var unsupported: UInt8?
        for part in parts {
            guard part.tag == 0xA0 || part.tag == 0xA1, let subtrees = deviceAuthDERElements(part.content) else {
                throw TLSError(code: .invalidCredentials, message: "Malformed nameConstraints")
            }
            for subtree in subtrees {
                guard subtree.tag == 0x30, let fields = deviceAuthDERElements(subtree.content), let base = fields.first else {
                    throw TLSError(code: .invalidCredentials, message: "Malformed nameConstraints subtree")
                }
                switch base.tag {
                case 0xA4:  // directoryName [4] EXPLICIT Name
                    guard let name = deviceAuthParseName(Array(base.content)) else {
                        throw TLSError(code: .invalidCredentials, message: "Malformed directoryName in nameConstraints")
                    }
                    if part.tag == 0xA0 { permitted.append(name) } else { excluded.append(name) }
                case 0x81: types.insert(GNUTLS_SAN_RFC822NAME.rawValue)
                case 0x82: types.insert(GNUTLS_SAN_DNSNAME.rawValue)
                case 0x87: types.insert(GNUTLS_SAN_IPADDRESS.rawValue)
                default: unsupported = unsupported ?? base.tag
                }
            }
        }
        if types.isEmpty {
            handle = nil
        } else {
            var nc: gnutls_x509_name_constraints_t?
            try GnuTLSLibrary.check(
                gnutls_x509_name_constraints_init(&nc), .libraryFailure, "gnutls_x509_name_constraints_init failed")
            guard let nc else { throw TLSError(code: .libraryFailure, message: "No name constraints handle") }
            let imported = gnutls_x509_crt_get_name_constraints(crt, nc, 0, &critical)
            guard imported >= 0 else {
                gnutls_x509_name_constraints_deinit(nc)
                throw TLSError(code: .invalidCredentials, message: "Malformed nameConstraints", gnutls: imported)
            }
            handle = nc
        }
        permittedNames = permitted
        excludedNames = excluded
        gnutlsTypes = types
        unsupportedTag = unsupported
    }

    deinit {
        if let handle { gnutls_x509_name_constraints_deinit(handle) }
    }

    /// Whether the names of `certificate` satisfy these constraints.
    func permits(_ certificate: DeviceAuthCertificate) -> Bool {
        guard unsupportedTag == nil, let subject = certificate.parsedSubject else { return false }
        if !subject.isEmpty {
            if !permittedNames.isEmpty, !permittedNames.contains(where: { deviceAuthNameIsWithin(subject, base: $0) }) {
                return false
            }
            if excludedNames.contains(where: { deviceAuthNameIsWithin(subject, base: $0) }) { return false }
        }
        guard let handle else { return true }
        for type in gnutlsTypes.sorted() {
            let allowed = gnutls_x509_name_constraints_check_crt(
                handle, gnutls_x509_subject_alt_name_t(rawValue: type), certificate.certificate.handle)
            if allowed == 0 { return false }
        }
        return true
    }
}
