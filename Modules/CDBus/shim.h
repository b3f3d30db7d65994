// C shim for libdbus-1 (the reference D-Bus library). Imported only by CastMPRIS.
#ifndef CASTOR_CDBUS_SHIM_H
#define CASTOR_CDBUS_SHIM_H

#include <dbus/dbus.h>

#endif
