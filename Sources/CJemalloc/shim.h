#ifndef LISTSERVER_CJEMALLOC_SHIM_H
#define LISTSERVER_CJEMALLOC_SHIM_H

// jemalloc (Debian's libjemalloc-dev, 5.3), linked into the server so that it replaces glibc's malloc for the
// whole process; ListServer's Allocator/ room reads its statistics through mallctl.
#pragma clang module import SwiftGlibc
#include <jemalloc/jemalloc.h>

#endif
