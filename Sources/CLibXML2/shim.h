#ifndef ZEADER_CLIBXML2_SHIM_H
#define ZEADER_CLIBXML2_SHIM_H
#include <string.h>
#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU, and encoding.h then includes the system ICU headers,
 * whose enums clash with Foundation's bundled ICU (_FoundationICU). Nothing here uses
 * libxml2's ICU converters (only the tail of xmlCharEncodingHandler changes, and Swift
 * only ever handles it through pointers), so leave them out. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlreader.h>
#include <libxml/HTMLparser.h>
#include <libxml/encoding.h>
#include <libxml/xmlerror.h>
#endif
