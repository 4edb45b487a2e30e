#ifndef LISTSERVER_CZSTD_SHIM_H
#define LISTSERVER_CZSTD_SHIM_H

// Zstandard (Debian's libzstd-dev) for ListServer's Compression/ room: `Content-Encoding: zstd` of whole response
// bodies, the fastest and smallest of the four measured on a page (Benchmarks/compression).
#pragma clang module import SwiftGlibc
#include <zstd.h>

#endif
