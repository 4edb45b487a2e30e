#ifndef LISTSERVER_CWSLAY_SHIM_H
#define LISTSERVER_CWSLAY_SHIM_H

// wslay (Debian's libwslay-dev): RFC 6455 framing for event loops, for ListServer's WebSocket/ room (the change
// feed over a WebSocket). It reads and writes through callbacks, never the socket itself, so the loop keeps the I/O.
#pragma clang module import SwiftGlibc
#include <wslay/wslay.h>

#endif
