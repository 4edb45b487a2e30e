#ifndef LISTSERVER_CXXHASH_SHIM_H
#define LISTSERVER_CXXHASH_SHIM_H

// xxHash (Debian's libxxhash-dev, 0.8) for ListServer's Digest/ room: XXH3's 128-bit digest of uploaded images.
#pragma clang module import SwiftGlibc
#include <xxhash.h>

#endif
