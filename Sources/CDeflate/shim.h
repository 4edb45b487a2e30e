#ifndef LISTSERVER_CDEFLATE_SHIM_H
#define LISTSERVER_CDEFLATE_SHIM_H

// libdeflate (Debian's libdeflate-dev) for ListServer's Compression/ room: gzip of whole response bodies, a third
// faster than zlib on a page at level 1 (Benchmarks/compression).
#pragma clang module import SwiftGlibc
#include <libdeflate.h>

#endif
