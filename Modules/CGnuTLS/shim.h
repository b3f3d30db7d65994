// C shim for GnuTLS: the headers Castor uses plus static inline wrappers for the macros
// and variadic functions the Swift importer cannot call. Imported only by CastTransport.
#ifndef CASTOR_CGNUTLS_SHIM_H
#define CASTOR_CGNUTLS_SHIM_H

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <gnutls/abstract.h>
#include <gnutls/crypto.h>
#include <sys/types.h>
#include <errno.h>
#include <string.h>

/// `gnutls_transport_set_ptr` takes a `gnutls_transport_ptr_t`; Swift sees it as an opaque pointer.
static inline void castor_gnutls_set_transport_user_data(gnutls_session_t session, void *ptr) {
    gnutls_transport_set_ptr(session, (gnutls_transport_ptr_t)ptr);
}

/// `GNUTLS_E_AGAIN` and friends are macros; expose them as functions so Swift can compare.
static inline int castor_gnutls_e_again(void) { return GNUTLS_E_AGAIN; }
static inline int castor_gnutls_e_interrupted(void) { return GNUTLS_E_INTERRUPTED; }
static inline int castor_gnutls_e_premature_termination(void) { return GNUTLS_E_PREMATURE_TERMINATION; }

/// `GNUTLS_CLIENT` / `GNUTLS_SERVER` / `GNUTLS_NONBLOCK` are macros of type unsigned int.
static inline unsigned int castor_gnutls_client_flags(void) { return GNUTLS_CLIENT | GNUTLS_NONBLOCK; }
static inline unsigned int castor_gnutls_server_flags(void) { return GNUTLS_SERVER | GNUTLS_NONBLOCK; }

/// `gnutls_transport_set_errno` wants an int errno value; EAGAIN is a macro.
static inline void castor_gnutls_set_errno_again(gnutls_session_t session) {
    gnutls_transport_set_errno(session, EAGAIN);
}

/// `gnutls_free` is a macro/function pointer depending on the build.
static inline void castor_gnutls_free(void *ptr) { gnutls_free(ptr); }

/// Key usage and version constants (macros) for certificate generation.
static inline unsigned int castor_gnutls_ku_digital_signature(void) { return GNUTLS_KEY_DIGITAL_SIGNATURE; }
static inline unsigned int castor_gnutls_ku_key_encipherment(void) { return GNUTLS_KEY_KEY_ENCIPHERMENT; }
static inline unsigned int castor_gnutls_ku_key_cert_sign(void) { return GNUTLS_KEY_KEY_CERT_SIGN; }
static inline unsigned int castor_gnutls_ku_crl_sign(void) { return GNUTLS_KEY_CRL_SIGN; }

/// More error-code macros the TLS handler compares against.
static inline int castor_gnutls_e_fatal_alert_received(void) { return GNUTLS_E_FATAL_ALERT_RECEIVED; }
static inline int castor_gnutls_e_warning_alert_received(void) { return GNUTLS_E_WARNING_ALERT_RECEIVED; }
static inline int castor_gnutls_e_rehandshake(void) { return GNUTLS_E_REHANDSHAKE; }
static inline int castor_gnutls_e_success(void) { return GNUTLS_E_SUCCESS; }

/// `GNUTLS_OID_X520_COMMON_NAME` is a string macro.
static inline const char *castor_gnutls_oid_common_name(void) { return GNUTLS_OID_X520_COMMON_NAME; }

/// `GNUTLS_INDEFINITE_TIMEOUT` / `GNUTLS_DEFAULT_HANDSHAKE_TIMEOUT` are macros; 0 disables the handshake timeout.
static inline void castor_gnutls_disable_handshake_timeout(gnutls_session_t session) {
    gnutls_handshake_set_timeout(session, 0);
}

/// The transport pointer set with `castor_gnutls_set_transport_user_data`.
static inline void *castor_gnutls_transport_user_data(gnutls_session_t session) {
    return (void *)gnutls_transport_get_ptr(session);
}

/// `EAGAIN` as a function (errno macros may expand to non-constant expressions).
static inline int castor_gnutls_errno_again(void) { return EAGAIN; }

// MARK: Device authentication (X.509 inspection, signatures)

/// `GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE`: an optional extension or list item is absent.
static inline int castor_gnutls_e_requested_data_not_available(void) { return GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE; }
/// `GNUTLS_E_SHORT_MEMORY_BUFFER`: the output buffer was too small; the needed size was stored.
static inline int castor_gnutls_e_short_memory_buffer(void) { return GNUTLS_E_SHORT_MEMORY_BUFFER; }

/// Flags for `gnutls_pubkey_verify_data2`: accept SHA-1 RSA signatures (older Cast device chains and
/// SHA-1 challenge replies use them); MD2/MD5 stay rejected.
static inline unsigned int castor_gnutls_verify_allow_sha1(void) { return GNUTLS_VERIFY_ALLOW_SIGN_WITH_SHA1; }

/// `GNUTLS_PRIVKEY_IMPORT_COPY`: the abstract key keeps its own copy of the X.509 key.
static inline unsigned int castor_gnutls_privkey_import_copy(void) { return GNUTLS_PRIVKEY_IMPORT_COPY; }

/// The OID string of one certificate policy (`struct gnutls_x509_policy_st` is awkward to import).
static inline const char *castor_gnutls_policy_oid(const struct gnutls_x509_policy_st *policy) { return policy->oid; }

/// Adds the certificate policy `oid` (no qualifiers) to `crt`.
static inline int castor_gnutls_crt_add_policy(gnutls_x509_crt_t crt, const char *oid) {
    struct gnutls_x509_policy_st policy;
    memset(&policy, 0, sizeof(policy));
    policy.oid = (char *)oid;
    policy.qualifiers = 0;
    return gnutls_x509_crt_set_policy(crt, &policy, 0);
}

/// `GNUTLS_OID_X520_ORGANIZATION_NAME` is a string macro.
static inline const char *castor_gnutls_oid_organization(void) { return GNUTLS_OID_X520_ORGANIZATION_NAME; }
/// `GNUTLS_KP_TLS_WWW_CLIENT` (clientAuth) and `GNUTLS_KP_ANY` are string macros.
static inline const char *castor_gnutls_kp_client_auth(void) { return GNUTLS_KP_TLS_WWW_CLIENT; }
static inline const char *castor_gnutls_kp_any(void) { return GNUTLS_KP_ANY; }

#endif
