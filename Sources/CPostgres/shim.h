#ifndef LISTSERVER_CPOSTGRES_SHIM_H
#define LISTSERVER_CPOSTGRES_SHIM_H

// libpq, PostgreSQL's C client (Debian's libpq-dev, 15 on bookworm), for ListServer's Postgres/ room. pkg-config
// adds -I/usr/include/postgresql, where libpq-fe.h and postgres_ext.h live.
// libc's declarations belong to Swift's Glibc module, not to this one (see CEvent's shim): libpq-fe.h includes
// <stdio.h>.
#pragma clang module import SwiftGlibc
#include <libpq-fe.h>

#endif
