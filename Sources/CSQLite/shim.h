#ifndef LISTSERVER_CSQLITE_SHIM_H
#define LISTSERVER_CSQLITE_SHIM_H

// The system SQLite 3 (Debian's libsqlite3-dev, 3.40 on bookworm) for ListServer's SQLite/ room, plus static inline
// adapters for what Swift cannot call directly (macros).
// libc's declarations belong to Swift's Glibc module, not to this one (see CEvent's shim for the failure this
// avoids): sqlite3.h includes <stdarg.h>, and a copy of libc's headers in this module would compete with Glibc's.
#pragma clang module import SwiftGlibc
#include <sqlite3.h>

/// `SQLITE_TRANSIENT` is a macro casting -1 to a destructor pointer, which Swift does not import: bind with it and
/// SQLite copies the bytes before the call returns, so a Swift buffer may go away right after.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/// `SQLITE_STATIC`, likewise: SQLite reads the bytes in place whenever it needs them, without a copy, so they must
/// stay valid until the parameter is bound again or the statement is finalized.
static inline sqlite3_destructor_type csqlite_static(void) { return SQLITE_STATIC; }

#endif
