#ifndef LISTSERVER_CNETTLE_SHIM_H
#define LISTSERVER_CNETTLE_SHIM_H

// Nettle (Debian's nettle-dev): SHA-1 and Base64 for the WebSocket handshake's Sec-WebSocket-Accept (RFC 6455
// §4.2.2), in ListServer's Digest/ room. Not a security use: the handshake only proves the server read the key.
#pragma clang module import SwiftGlibc
#include <nettle/sha1.h>
#include <nettle/base64.h>

#endif
