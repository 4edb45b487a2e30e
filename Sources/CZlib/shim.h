#ifndef LISTSERVER_CZLIB_SHIM_H
#define LISTSERVER_CZLIB_SHIM_H

// zlib (Debian's zlib1g-dev) for ListServer's Compression/ room: the gzip stream of an event stream, flushed after
// every event (libdeflate compresses whole buffers only). deflateInit2 is a macro: wrapped as a function here.
#pragma clang module import SwiftGlibc
#include <zlib.h>

static inline int listserver_deflate_init_gzip(z_stream *stream, int level, int window_bits, int memory_level) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits + 16, memory_level, Z_DEFAULT_STRATEGY);
}

#endif
