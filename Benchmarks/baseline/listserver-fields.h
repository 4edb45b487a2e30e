/* listserver-fields.h: the fields ListServer adds to every routed answer, for the C servers it is compared with
   (evhttp-baseline.c and ../sqlite/writes-server.c), so that both send the same head bytes and do the same work for
   them: Cache-Control, CORS for any origin to a request with an Origin, one Vary line (what the answer depends on,
   Origin always) and a made-up request id, `<seed>-<loop>-<count>` as ListServer makes them. */
#ifndef LISTSERVER_FIELDS_H
#define LISTSERVER_FIELDS_H

#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <stdint.h>
#include <stdio.h>

/* Adds the fields to `req`'s answer; `request_number` is the loop's count of requests, this one included. */
static inline void listserver_add_fields(struct evhttp_request *req, int loop_index, uint64_t request_number,
                                         const char *cache_control, const char *vary) {
    struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
    char request_id[48];
    snprintf(request_id, sizeof request_id, "%08x-%d-%llx", 0x5eed1d5u, loop_index,
             (unsigned long long)request_number);
    evhttp_add_header(headers, "Cache-Control", cache_control);
    if (evhttp_find_header(evhttp_request_get_input_headers(req), "Origin")) {
        evhttp_add_header(headers, "Access-Control-Allow-Origin", "*");
        evhttp_add_header(headers, "Access-Control-Expose-Headers",
                          "Link, X-Total-Count, X-Cache, Server-Timing, ETag, Retry-After, X-Request-Id, Location, "
                          "Idempotent-Replayed, Content-Disposition, Picsum-ID, RateLimit, RateLimit-Policy, "
                          "WWW-Authenticate, Content-Range, Accept-Ranges");
    }
    evhttp_add_header(headers, "Vary", vary);
    evhttp_add_header(headers, "X-Request-Id", request_id);
}

#endif
