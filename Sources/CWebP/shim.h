#ifndef LISTSERVER_CWEBP_SHIM_H
#define LISTSERVER_CWEBP_SHIM_H

// libwebp (Debian's libwebp-dev, 1.2 on bookworm) for ListServer's Codecs/ room: the simple encoding and decoding
// API.
#pragma clang module import SwiftGlibc
#include <webp/encode.h>
#include <webp/decode.h>

#endif
