#ifndef LISTSERVER_CSPNG_SHIM_H
#define LISTSERVER_CSPNG_SHIM_H

// libspng (Debian's libspng-dev, 0.7 on bookworm, over zlib) for ListServer's Codecs/ room. Chosen over libpng:
// libpng reports errors with setjmp/longjmp, which must not unwind through Swift frames; libspng returns codes.
#pragma clang module import SwiftGlibc
#include <spng.h>

#endif
