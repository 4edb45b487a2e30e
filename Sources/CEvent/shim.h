#ifndef LISTSERVER_CEVENT_SHIM_H
#define LISTSERVER_CEVENT_SHIM_H

// The parts of libevent 2.1 that ListServer uses, plus static inline adapters for what Swift
// cannot call directly (macros and variadic functions).
// libc first: libevent's event-config.h defines _GNU_SOURCE, and if that reached glibc's
// features.h before any libc header, fd_set would be declared differently here than in Swift's
// Glibc module, and importing both fails ("__fds_bits ... not present in definition of fd_set").
// libc's declarations belong to Swift's Glibc module, not to this one: without this import, the libc headers that
// libevent's headers include (<sys/socket.h> among them) were copied into this module too, and in a whole-module
// build whichever copy clang met first owned them. Swift files that do not import CEvent (HealthProbe.swift, then in
// Glibc/, now System/) could not see SOCK_STREAM when they came after LibEvent/ in path order: the release build
// failed.
#pragma clang module import SwiftGlibc
#include <sys/types.h>
#include <sys/select.h>
#include <sys/time.h>
#include <time.h>
#include <errno.h>
#include <event2/event.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <event2/util.h>
#include <sys/eventfd.h>

/// `evsignal_new` is a macro.
static inline struct event *cevent_signal_new(struct event_base *base, int signum,
                                              event_callback_fn cb, void *arg) {
    return evsignal_new(base, signum, cb, arg);
}

/// The `struct evkeyvalq` iteration macros (`TAILQ_FIRST`, `TAILQ_NEXT`) as functions.
static inline struct evkeyval *cevent_headers_first(struct evkeyvalq *headers) {
    return headers->tqh_first;
}
static inline struct evkeyval *cevent_headers_next(struct evkeyval *header) {
    return header->next.tqe_next;
}

/// `errno` is a thread-local macro.
static inline int cevent_errno(void) { return errno; }

/// A non-blocking, close-on-exec eventfd (the flag macros do not import cleanly).
static inline int cevent_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

/// Milliseconds of CLOCK_MONOTONIC (a vDSO call, cheap enough for every request head).
static inline long long cevent_monotonic_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
