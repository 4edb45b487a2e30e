#ifndef LISTSERVER_CPOSTGRES_SHIM_H
#define LISTSERVER_CPOSTGRES_SHIM_H

// libpq, PostgreSQL's C client (Debian's libpq-dev, 15 on bookworm; libpq5 at run time), for ListServer's Postgres/
// room. Its headers live in /usr/include/postgresql (libpq-fe.h finds postgres_ext.h beside itself).
// libc's declarations belong to Swift's Glibc module, not to this one (see CEvent's shim): libpq-fe.h includes
// <stdio.h>.
#pragma clang module import SwiftGlibc
#if __has_include(<postgresql/libpq-fe.h>)
#include <postgresql/libpq-fe.h>  // Debian's libpq-dev
#else
#include <libpq-fe.h>  // distributions that put it in /usr/include
#endif

// The functions ListServer calls, as pointer types: libpq is not linked but loaded with dlopen when a PostgreSQL
// store is opened (Postgres/LibPQ.swift), so a server on SQLite never loads it and the ~20 libraries it needs (TLS,
// Kerberos, LDAP: 4.8 MB resident). `__typeof__` takes each type from libpq-fe.h itself, so the pointers cannot
// disagree with the functions they point to.
#define LISTSERVER_PQ(name) typedef __typeof__(&name) listserver_##name;
LISTSERVER_PQ(PQclear)
LISTSERVER_PQ(PQcmdTuples)
LISTSERVER_PQ(PQconnectdbParams)
LISTSERVER_PQ(PQconsumeInput)
LISTSERVER_PQ(PQenterPipelineMode)
LISTSERVER_PQ(PQerrorMessage)
LISTSERVER_PQ(PQexec)
LISTSERVER_PQ(PQexecPrepared)
LISTSERVER_PQ(PQexitPipelineMode)
LISTSERVER_PQ(PQfinish)
LISTSERVER_PQ(PQfreemem)
LISTSERVER_PQ(PQgetResult)
LISTSERVER_PQ(PQgetisnull)
LISTSERVER_PQ(PQgetlength)
LISTSERVER_PQ(PQgetvalue)
LISTSERVER_PQ(PQnotifies)
LISTSERVER_PQ(PQntuples)
LISTSERVER_PQ(PQpipelineSync)
LISTSERVER_PQ(PQprepare)
LISTSERVER_PQ(PQresultErrorField)
LISTSERVER_PQ(PQresultErrorMessage)
LISTSERVER_PQ(PQresultStatus)
LISTSERVER_PQ(PQsendQueryPrepared)
LISTSERVER_PQ(PQsetNoticeProcessor)
LISTSERVER_PQ(PQsocket)
LISTSERVER_PQ(PQstatus)
LISTSERVER_PQ(PQtransactionStatus)
#undef LISTSERVER_PQ

#endif
