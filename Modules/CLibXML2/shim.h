// C shim for libxml2. Imported only by the internal CastXML target.
// libxml2's headers pull in ICU, whose UErrorCode clashes with Foundation's copy:
// include xmlversion.h first, switch ICU off, then include the rest.
#ifndef CASTOR_CLIBXML2_SHIM_H
#define CASTOR_CLIBXML2_SHIM_H

#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>

/// `xmlFree` is a macro when libxml2 is built with thread-local allocators.
static inline void castor_xml_free(void *ptr) { xmlFree(ptr); }

#endif
