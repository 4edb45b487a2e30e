#ifndef LISTSERVER_CTURBOJPEG_SHIM_H
#define LISTSERVER_CTURBOJPEG_SHIM_H

// libjpeg-turbo's TurboJPEG API (Debian's libturbojpeg0-dev, 2.1 on bookworm) for ListServer's Codecs/ room.
// libc's declarations belong to Swift's Glibc module, not to this one (see CEvent's shim).
#pragma clang module import SwiftGlibc
#include <turbojpeg.h>

#endif
