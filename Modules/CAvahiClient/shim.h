// C shim for avahi-client (the native API, not the dns_sd compatibility layer).
// Imported only by CastDiscovery.
#ifndef CASTOR_CAVAHICLIENT_SHIM_H
#define CASTOR_CAVAHICLIENT_SHIM_H

#include <stddef.h>
#include <net/if.h>
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/strlst.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/address.h>
#include <avahi-common/alternative.h>

/// `avahi_entry_group_add_service` is variadic (a NULL-terminated list of TXT strings);
/// Swift cannot call it, so the strlst form is wrapped here for a non-variadic call.
static inline int castor_avahi_entry_group_add_service_strlst(
    AvahiEntryGroup *group, AvahiIfIndex interface, AvahiProtocol protocol,
    AvahiPublishFlags flags, const char *name, const char *type, const char *domain,
    const char *host, uint16_t port, AvahiStringList *txt) {
    return avahi_entry_group_add_service_strlst(group, interface, protocol, flags, name, type,
                                                domain, host, port, txt);
}

/// `avahi_string_list_new` is variadic; start lists empty and add entries one at a time.
static inline AvahiStringList *castor_avahi_string_list_empty(void) { return NULL; }

/// AVAHI_IF_UNSPEC / AVAHI_PROTO_UNSPEC are enum constants but imported awkwardly.
static inline AvahiIfIndex castor_avahi_if_unspec(void) { return AVAHI_IF_UNSPEC; }
static inline AvahiProtocol castor_avahi_proto_unspec(void) { return AVAHI_PROTO_UNSPEC; }
static inline AvahiProtocol castor_avahi_proto_inet(void) { return AVAHI_PROTO_INET; }
static inline AvahiProtocol castor_avahi_proto_inet6(void) { return AVAHI_PROTO_INET6; }

#endif
