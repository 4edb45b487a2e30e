/*
 * fanout: the fan-out of the change feed, N idle SSE (or WebSocket) subscribers, then P POSTs, and when each
 * subscriber sees each event. Part of Benchmarks/writes/run.sh (steps fanout and wsfanout). Talks only to
 * 127.0.0.1:PORT.
 *
 * Build: cc -O2 -Wall -Wextra -o fanout fanout.c
 * Run:   fanout --port PORT --pid SERVER_PID [--subscribers 5000] [--posts 100] [--gap-ms 20] --out RESULT.json
 *               [--epoll-times]   (time arrivals by epoll_wait's return instead of the kernel's stamps)
 *               [--subscriber-ports P1,P2,...]   (subscriber i on P(i mod n), the POSTs still on PORT: replicas
 *                                                 sharing a store, Benchmarks/postgres/run.sh)
 *               [--websocket]   (the feed over a WebSocket, RFC 6455, instead of Server-Sent Events: below)
 *
 * 1. VmRSS of the server (/proc/PID/status) before any subscriber.
 * 2. N connections `GET /items/events`, at most 200 in flight at a time (so the listen backlog never overflows).
 *    Each must answer 200 with Content-Type text/event-stream; it counts as connected once its stream's `retry:`
 *    field has arrived. Then 1 s of quiet and VmRSS again.
 * 3. P times: one `POST /items` with {"label":"fanout <n>"} on a keep-alive connection of its own; t0 is when
 *    its 201 is complete. Every subscriber's stream is decoded (chunked transfer coding, then SSE: fields
 *    `event:`, `id:`, `data:`, `retry:`, `:` comments, events ended by a blank line) until the `event: created`
 *    whose data carries that label. The time of an event, like that of the 201, is the kernel's receive stamp of
 *    its bytes (SO_TIMESTAMPNS, see timed_recv), so neither the client's reading of other sockets nor its sleep
 *    counts against the server; the client then waits on epoll at most once a millisecond, instead of being
 *    woken for nearly every socket (~2 per wake-up, 14 µs of its CPU each, and a wake-up for the server to pay).
 *    With --epoll-times it is the epoll_wait return that reported the socket, as fanout.py did. The next POST
 *    goes out GAP ms after the event reached every subscriber (bounded: 10 s per POST).
 * 4. Writes RESULT.json and prints it (without per_post) on one line: per POST the delays from t0 to the event at
 *    the first, median and last subscriber (negative when the event came before the 201), their p50/p99/max,
 *    RSS before/after, the program's own CPU time (getrusage) during step 3 and in all, the server's during step
 *    3 (/proc/PID/stat), and counts.
 *
 * With --websocket each subscriber asks for the same feed as a WebSocket instead: `GET /items/events` with
 * `Upgrade: websocket`, `Connection: Upgrade`, `Sec-WebSocket-Key` (the Base64 of 16 random bytes, one per
 * subscriber) and `Sec-WebSocket-Version: 13`. The answer must be 101 with `Upgrade: websocket` and a
 * `Sec-WebSocket-Accept` (present: its value, a SHA-1 of the key, is not checked), and the subscriber counts as
 * connected once that head is complete (a WebSocket has no `retry:`). Then the server's frames are decoded (never
 * masked; a text message may come in fragments, control frames between them): each text message is one change's
 * JSON, `{"sequence":S,"kind":"created","item":{...,"label":"fanout <n>",...}}`, whose top-level `kind` and
 * `sequence` take the places of SSE's `event:` and `id:` (the same checks, below); other messages (typing,
 * expired, error) are foreign. A ping (the server's heartbeat, counted in heartbeats) is answered at once with a
 * masked pong echoing its payload, or the server drops the client after two; a close frame is answered with a
 * close and counts as a dropped subscriber, as the end of the connection does; a binary, masked or otherwise
 * malformed frame is a protocol error that closes the subscriber. RESULT.json says which (`"transport"`: `"sse"`
 * or `"websocket"`); its keys are the same otherwise.
 *
 * Checked: every subscriber sees every POST's event exactly once, in order, with one `id:` (WebSocket: one
 * `sequence`) per POST across all subscribers, ids increasing on each stream. A subscriber that misses an event,
 * sees one twice, or is closed by the server is counted (missed_events, duplicate_events, dropped_subscribers,
 * ...) and the program exits 1 after writing its results. The keys that the former fanout.py wrote are kept,
 * with the same meaning, so the report of run.sh reads results of either.
 *
 * One process, one thread, epoll on non-blocking sockets, CLOCK_MONOTONIC: fanout.py took ~70 % of a core to
 * read 5,000 sockets per event, on the same two cores as the server.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define IN_FLIGHT 200           /* subscriptions being opened at once */
#define CONNECT_SECONDS 120.0   /* for all of them */
#define POST_SECONDS 10.0       /* for one POST's 201 and its event at every subscriber */
#define MAX_HEAD 16384          /* bytes of an answer's head */
#define MAX_LINE 65536          /* bytes of one SSE line, and of one event's data (or WebSocket message) */
#define POSTER_TAG UINT32_MAX   /* epoll data of the POST connection */

/* ------------------------------------------------------------------------------------------------ utilities */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * Arrival times. With SO_TIMESTAMPNS the kernel stamps each received packet (CLOCK_REALTIME) and recvmsg hands
 * back the stamp of the last packet it read: the moment the bytes reached the socket, whatever the client was
 * doing then. The stamps are moved to CLOCK_MONOTONIC by the offset between the two clocks, measured before each
 * POST. Without stamps (--epoll-times, or a kernel that gives none) a read is timed by the epoll_wait return that
 * reported its socket.
 */
static void die(const char *format, ...);

static int kernel_times = 1;
static double realtime_offset; /* CLOCK_REALTIME − CLOCK_MONOTONIC, in seconds */
static long unstamped_reads;   /* reads that came without a stamp while stamps were asked for */

static void measure_realtime_offset(void) {
    double best = INFINITY;
    for (int i = 0; i < 5; i++) {
        struct timespec a, r, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_REALTIME, &r);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double before = (double)a.tv_sec + (double)a.tv_nsec / 1e9, after = (double)b.tv_sec + (double)b.tv_nsec / 1e9;
        if (after - before < best) {
            best = after - before;
            realtime_offset = (double)r.tv_sec + (double)r.tv_nsec / 1e9 - (before + after) / 2;
        }
    }
}

/* recv through recvmsg: *t becomes the kernel's stamp of the bytes (on CLOCK_MONOTONIC) when there is one. */
static ssize_t timed_recv(int fd, char *buffer, size_t size, double *t) {
    struct iovec vector = {.iov_base = buffer, .iov_len = size};
    union {
        char bytes[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } control;
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1};
    if (kernel_times) {
        message.msg_control = control.bytes;
        message.msg_controllen = sizeof control.bytes;
    }
    ssize_t n = recvmsg(fd, &message, 0);
    if (n <= 0 || !kernel_times) return n;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec stamp;
            memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
            *t = (double)stamp.tv_sec + (double)stamp.tv_nsec / 1e9 - realtime_offset;
            return n;
        }
    }
    unstamped_reads++;
    return n;
}

static void ask_for_stamps(int fd) {
    int one = 1;
    if (kernel_times && setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) < 0)
        die("setsockopt(SO_TIMESTAMPNS): %s", strerror(errno));
}

/* "fanout: <message>" on stderr, for die() and complain(). */
static void report(const char *format, va_list arguments) {
    fputs("fanout: ", stderr);
    vfprintf(stderr, format, arguments);
    fputc('\n', stderr);
}

static void die(const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    report(format, arguments);
    va_end(arguments);
    exit(1);
}

static int errors_shown;

/* An error worth reporting that does not stop the run; the first 20 are printed, all are counted by the caller. */
static void complain(const char *format, ...) {
    if (++errors_shown > 20) return;
    va_list arguments;
    va_start(arguments, format);
    report(format, arguments);
    va_end(arguments);
}

static void *grow(void *pointer, size_t size) {
    void *grown = realloc(pointer, size);
    if (!grown) die("out of memory");
    return grown;
}

static long rss_kb(int pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *file = fopen(path, "r");
    if (!file) die("cannot read %s: %s", path, strerror(errno));
    long kb = -1;
    while (fgets(line, sizeof line, file))
        if (strncmp(line, "VmRSS:", 6) == 0) kb = strtol(line + 6, NULL, 10);
    fclose(file);
    if (kb < 0) die("no VmRSS in %s", path);
    return kb;
}

/* User + system CPU seconds of process pid (/proc/PID/stat fields 14 and 15). */
static double process_cpu_seconds(int pid) {
    char path[64], text[4096];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *file = fopen(path, "r");
    if (!file) return NAN;
    size_t length = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[length] = 0;
    char *field = strrchr(text, ')'); /* the command name may hold spaces */
    if (!field) return NAN;
    unsigned long utime = 0, stime = 0;
    if (sscanf(field + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2) return NAN;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static void own_cpu(double *user, double *system) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    *user = (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6;
    *system = (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec / 1e6;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Python's round() of a non-negative number: halves go to the even neighbour. */
static long round_half_even(double x) {
    long whole = (long)x;
    double fraction = x - (double)whole;
    return fraction > 0.5 || (fraction == 0.5 && (whole & 1)) ? whole + 1 : whole;
}

/* fanout.py's percentile: the value at rank round(p/100·n + 0.5) − 1. */
static double percentile(const double *values, int count, double p) {
    if (count == 0) return NAN;
    double *ordered = grow(NULL, sizeof(double) * (size_t)count);
    memcpy(ordered, values, sizeof(double) * (size_t)count);
    qsort(ordered, (size_t)count, sizeof(double), compare_doubles);
    long rank = round_half_even(p / 100 * count + 0.5) - 1;
    if (rank > count - 1) rank = count - 1;
    if (rank < 0) rank = 0;
    double value = ordered[rank];
    free(ordered);
    return value;
}

static double maximum(const double *values, int count) {
    double most = NAN;
    for (int i = 0; i < count; i++)
        if (isnan(most) || values[i] > most) most = values[i];
    return most;
}

/* ------------------------------------------------------------------------------------------------ JSON out */

static char *json;
static size_t json_length, json_capacity;

static void put(const char *format, ...) {
    for (;;) {
        va_list arguments;
        va_start(arguments, format);
        size_t room = json_capacity - json_length;
        int written = vsnprintf(json ? json + json_length : NULL, room, format, arguments);
        va_end(arguments);
        if (written < 0) die("vsnprintf failed");
        if ((size_t)written < room) {
            json_length += (size_t)written;
            return;
        }
        json_capacity = json_capacity * 2 + (size_t)written + 4096;
        json = grow(json, json_capacity);
    }
}

/* A number as Python's json prints round(value, digits): shortest form, at least one decimal; NaN as null. */
static void put_rounded(const char *key, double value, int digits) {
    if (isnan(value)) {
        put("\"%s\": null, ", key);
        return;
    }
    char text[64];
    snprintf(text, sizeof text, "%.*f", digits, value);
    char *end = text + strlen(text) - 1;
    while (*end == '0' && end[-1] != '.') *end-- = 0;
    put("\"%s\": %s, ", key, text);
}

/* ------------------------------------------------------------------------------------------------ the run */

enum state { CONNECTING, HEAD, STREAM, DEAD };
enum chunk_state { SIZE, EXTENSION, SIZE_LF, DATA, DATA_CR, DATA_LF, ENDED };

struct subscriber {
    int fd;
    enum state state;
    char *head; /* the answer's head while it arrives */
    size_t head_length;
    int chunked;
    enum chunk_state chunk;
    uint64_t chunk_left;
    int size_digits;
    /* SSE: the line being read, and the fields of the event being read */
    char *line;
    size_t line_length, line_capacity;
    int after_cr;
    char *data;
    size_t data_length, data_capacity;
    char event[32]; /* longer kinds are cut: none of ours */
    int has_id;
    uint64_t id;
    /* WebSocket (--websocket): the frame being read; a text message collects in data, its kind and sequence go
     * to event and id */
    uint8_t frame_head[10]; /* a server's frame header: 2 bytes, then 0, 2 or 8 of length (never a mask) */
    int frame_head_length;
    int in_payload; /* the header is read: frame_left bytes of its payload to come */
    int frame_opcode, frame_fin;
    uint64_t frame_left;
    int in_message; /* a text message's first frame came without FIN: continuations follow */
    uint8_t control[125]; /* the payload of a control frame (ping, pong, close) */
    size_t control_length;
    /* what this stream has seen */
    int retry_seen;
    int live; /* counted as connected: its head was right and its retry: came (WebSocket: its 101 head) */
    int has_last_id;
    uint64_t last_id;
    int last_post; /* the highest POST whose event arrived */
};

static struct subscriber *subscribers;
static int wanted, epoll_fd, port;
static int websocket; /* --websocket: RFC 6455 frames instead of chunked Server-Sent Events */
static int connected, pending, connect_failures, dropped;
static long duplicate_events, late_events, foreign_events, id_mismatches, protocol_errors, heartbeats;

/* the POST in progress */
static int current_post;
static double *arrival;    /* per subscriber: when the current POST's event arrived, NaN before */
static int remaining;      /* live subscribers still waiting for it */
static uint64_t *post_ids; /* per POST: the id: its event carried (0: none seen yet) */

static void close_subscriber(int index, const char *why) {
    struct subscriber *s = &subscribers[index];
    if (s->state == DEAD) return;
    if (s->live) {
        dropped++;
        connected--;
        complain("subscriber %d was closed: %s", index, why);
        if (current_post > 0 && isnan(arrival[index])) remaining--;
    } else {
        connect_failures++;
        pending--;
        complain("subscription %d failed: %s", index, why);
    }
    close(s->fd);
    s->state = DEAD;
    free(s->head);
    free(s->line);
    free(s->data);
    s->head = s->line = s->data = NULL;
}

/* A whole event (its blank line has arrived) at time t. */
static void on_event(int index, double t) {
    struct subscriber *s = &subscribers[index];
    const char *type = s->event[0] ? s->event : "message";
    if (s->has_id) {
        if (s->has_last_id && s->id <= s->last_id) {
            duplicate_events++;
            complain("subscriber %d saw id %llu after id %llu: an event twice, or out of order", index,
                     (unsigned long long)s->id, (unsigned long long)s->last_id);
            return;
        }
        s->has_last_id = 1;
        s->last_id = s->id;
    }
    static const char marker[] = "\"label\":\"fanout ";
    const char *label = memmem(s->data, s->data_length, marker, sizeof marker - 1);
    long post = 0;
    if (label) {
        const char *digit = label + sizeof marker - 1, *end = s->data + s->data_length;
        while (digit < end && *digit >= '0' && *digit <= '9' && post < 1000000000) post = post * 10 + (*digit++ - '0');
        if (digit >= end || *digit != '"') post = 0;
    }
    if (strcmp(type, "created") != 0 || post < 1 || post > current_post) {
        foreign_events++; /* another writer, or another kind of change: not ours to time */
        return;
    }
    if (!s->has_id) {
        protocol_errors++;
        complain("subscriber %d: the event of POST %ld has no id:", index, post);
    } else if (post_ids[post] == 0) {
        post_ids[post] = s->id;
    } else if (post_ids[post] != s->id) {
        id_mismatches++;
        complain("subscriber %d: POST %ld's event has id %llu, others saw %llu", index, post,
                 (unsigned long long)s->id, (unsigned long long)post_ids[post]);
    }
    if (post <= s->last_post) {
        duplicate_events++;
        complain("subscriber %d saw POST %ld's event again (after POST %d's)", index, post, s->last_post);
        return;
    }
    s->last_post = (int)post;
    if (post == current_post) {
        arrival[index] = t;
        remaining--;
    } else {
        late_events++; /* after its POST's 10 s were up: counted missing there */
    }
}

static void on_line(int index, double t) {
    struct subscriber *s = &subscribers[index];
    char *line = s->line;
    size_t length = s->line_length;
    s->line_length = 0;
    if (length == 0) { /* the blank line: dispatch */
        if (s->data_length > 0) {
            s->data_length--; /* the last data line's \n */
            on_event(index, t);
        }
        s->data_length = 0;
        s->event[0] = 0;
        s->has_id = 0;
        return;
    }
    if (line[0] == ':') {
        heartbeats++;
        return;
    }
    char *colon = memchr(line, ':', length);
    size_t name_length = colon ? (size_t)(colon - line) : length;
    const char *value = colon ? colon + 1 : line + length;
    size_t value_length = (size_t)(line + length - value);
    if (value_length > 0 && *value == ' ') value++, value_length--;
    if (name_length == 5 && memcmp(line, "event", 5) == 0) {
        if (value_length >= sizeof s->event) value_length = sizeof s->event - 1;
        memcpy(s->event, value, value_length);
        s->event[value_length] = 0;
    } else if (name_length == 4 && memcmp(line, "data", 4) == 0) {
        if (s->data_length + value_length + 1 > MAX_LINE) {
            protocol_errors++;
            complain("subscriber %d: an event's data passes %d bytes", index, MAX_LINE);
            return;
        }
        if (s->data_length + value_length + 1 > s->data_capacity) {
            s->data_capacity = s->data_length + value_length + 256;
            s->data = grow(s->data, s->data_capacity);
        }
        memcpy(s->data + s->data_length, value, value_length);
        s->data_length += value_length;
        s->data[s->data_length++] = '\n';
    } else if (name_length == 2 && memcmp(line, "id", 2) == 0) {
        uint64_t id = 0;
        size_t i = 0;
        for (; i < value_length && value[i] >= '0' && value[i] <= '9' && id < UINT64_MAX / 10; i++)
            id = id * 10 + (uint64_t)(value[i] - '0');
        if (i == 0 || i != value_length) {
            protocol_errors++;
            complain("subscriber %d: id: is not a sequence number: %.*s", index, (int)value_length, value);
            return;
        }
        s->has_id = 1;
        s->id = id;
    } else if (name_length == 5 && memcmp(line, "retry", 5) == 0) {
        s->retry_seen = 1;
        if (!s->live) { /* the stream has started: connected */
            s->live = 1;
            pending--;
            connected++;
        }
    } /* other fields are ignored, as the SSE standard says */
}

/* Decoded body bytes into SSE lines: a line ends at \n, \r\n or \r. */
static void feed_sse(int index, const char *bytes, size_t length, double t) {
    struct subscriber *s = &subscribers[index];
    const char *end = bytes + length;
    while (bytes < end && s->state != DEAD) {
        if (s->after_cr) {
            s->after_cr = 0;
            if (*bytes == '\n') {
                bytes++;
                continue;
            }
        }
        const char *stop = bytes;
        while (stop < end && *stop != '\n' && *stop != '\r') stop++;
        size_t piece = (size_t)(stop - bytes);
        if (s->line_length + piece > MAX_LINE) {
            protocol_errors++;
            close_subscriber(index, "an SSE line passes 64 KiB");
            return;
        }
        if (s->line_length + piece > s->line_capacity) {
            s->line_capacity = s->line_length + piece + 256;
            s->line = grow(s->line, s->line_capacity);
        }
        memcpy(s->line + s->line_length, bytes, piece);
        s->line_length += piece;
        bytes = stop;
        if (bytes == end) break;
        s->after_cr = *bytes == '\r';
        bytes++;
        on_line(index, t);
    }
}

static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Body bytes: through the chunked decoder when the answer is chunked, to the SSE parser. */
static void feed_body(int index, const char *bytes, size_t length, double t) {
    struct subscriber *s = &subscribers[index];
    if (!s->chunked) {
        feed_sse(index, bytes, length, t);
        return;
    }
    const char *end = bytes + length;
    while (bytes < end && s->state != DEAD) {
        char c = *bytes;
        switch (s->chunk) {
        case SIZE:
            if (hex(c) >= 0 && s->size_digits < 15) {
                s->chunk_left = s->chunk_left * 16 + (uint64_t)hex(c);
                s->size_digits++;
            } else if (s->size_digits > 0 && (c == ';' || c == ' ' || c == '\t')) {
                s->chunk = EXTENSION;
            } else if (s->size_digits > 0 && c == '\r') {
                s->chunk = SIZE_LF;
            } else {
                protocol_errors++;
                close_subscriber(index, "a bad chunk size line");
                return;
            }
            bytes++;
            break;
        case EXTENSION:
            if (c == '\r') s->chunk = SIZE_LF;
            bytes++;
            break;
        case SIZE_LF:
            if (c != '\n') {
                protocol_errors++;
                close_subscriber(index, "a chunk size line without its LF");
                return;
            }
            bytes++;
            s->chunk = s->chunk_left ? DATA : ENDED;
            if (s->chunk == ENDED) {
                close_subscriber(index, "the server ended the stream (last chunk)");
                return;
            }
            break;
        case DATA: {
            size_t piece = (size_t)(end - bytes);
            if (piece > s->chunk_left) piece = (size_t)s->chunk_left;
            feed_sse(index, bytes, piece, t);
            bytes += piece;
            s->chunk_left -= piece;
            if (s->chunk_left == 0) s->chunk = DATA_CR;
            break;
        }
        case DATA_CR:
        case DATA_LF:
            if (c != (s->chunk == DATA_CR ? '\r' : '\n')) {
                protocol_errors++;
                close_subscriber(index, "a chunk not ended by CRLF");
                return;
            }
            bytes++;
            if (s->chunk == DATA_CR) {
                s->chunk = DATA_LF;
            } else {
                s->chunk = SIZE;
                s->chunk_left = 0;
                s->size_digits = 0;
            }
            break;
        case ENDED:
            return;
        }
    }
}

/* The value of header `name` in head (CRLF lines after the status line), or NULL; *length is its length. */
static const char *header(const char *head, const char *name, size_t *length) {
    size_t name_length = strlen(name);
    for (const char *line = strstr(head, "\r\n"); line && line[2]; line = strstr(line + 2, "\r\n")) {
        const char *start = line + 2;
        if (strncasecmp(start, name, name_length) == 0 && start[name_length] == ':') {
            const char *value = start + name_length + 1;
            while (*value == ' ' || *value == '\t') value++;
            const char *stop = strstr(value, "\r\n");
            *length = stop ? (size_t)(stop - value) : strlen(value);
            return value;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------------------------------------ WebSocket */

static uint64_t random_state; /* seeded in main; the masks and keys need not be secret, only vary */

static uint32_t random32(void) { /* xorshift64* */
    random_state ^= random_state >> 12;
    random_state ^= random_state << 25;
    random_state ^= random_state >> 27;
    return (uint32_t)((random_state * 2685821657736338717ULL) >> 32);
}

/* A Sec-WebSocket-Key: the Base64 of 16 random bytes (24 characters, the last two "=="). */
static void websocket_key(char key[25]) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint8_t bytes[18] = {0};
    for (int i = 0; i < 16; i++) bytes[i] = (uint8_t)random32();
    for (int i = 0, j = 0; i < 18; i += 3) {
        uint32_t group = (uint32_t)bytes[i] << 16 | (uint32_t)bytes[i + 1] << 8 | bytes[i + 2];
        for (int shift = 18; shift >= 0; shift -= 6) key[j++] = alphabet[(group >> shift) & 63];
    }
    key[22] = key[23] = '=';
    key[24] = 0;
}

/* Sends a client frame (masked, as RFC 6455 §5.3 requires of a client) of at most 125 bytes: a pong or a close.
 * The socket's buffer is empty on an idle subscriber, so a short write is an error. */
static int send_frame(int index, int opcode, const uint8_t *payload, size_t length) {
    uint8_t frame[6 + 125];
    uint32_t mask = random32();
    frame[0] = (uint8_t)(0x80 | opcode);
    frame[1] = (uint8_t)(0x80 | length);
    memcpy(frame + 2, &mask, 4);
    for (size_t i = 0; i < length; i++) frame[6 + i] = payload[i] ^ frame[2 + i % 4];
    return send(subscribers[index].fd, frame, 6 + length, MSG_NOSIGNAL) == (ssize_t)(6 + length);
}

/* Past the JSON value at p (checked no further than finding its end needs), or NULL when text ends first. */
static const char *skip_json_value(const char *p, const char *end) {
    int depth = 0;
    do {
        if (p == end) return NULL;
        char c = *p++;
        if (c == '"') {
            while (p < end && *p != '"') p += *p == '\\' ? 2 : 1;
            if (p >= end) return NULL;
            p++;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth < 0) return NULL;
        } else if (depth == 0) { /* a number, true, false or null */
            while (p < end && !memchr(",}] \t\r\n", *p, 7)) p++;
        }
    } while (depth > 0);
    return p;
}

static const char *skip_json_space(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
    return p;
}

/* The value of member `name` of the JSON object in text (a string with its quotes), NULL when the object has none
 * at its top level or text is no object; *length is its length. Nested values are skipped whole, so the item's
 * own members never match. */
static const char *json_member(const char *text, size_t size, const char *name, size_t *length) {
    const char *p = skip_json_space(text, text + size), *end = text + size;
    size_t name_length = strlen(name);
    if (p == end || *p++ != '{') return NULL;
    for (;;) {
        p = skip_json_space(p, end);
        if (p == end || *p != '"') return NULL; /* the object's end, or not JSON */
        const char *key = p + 1;
        if (!(p = skip_json_value(p, end))) return NULL;
        size_t key_length = (size_t)(p - 1 - key);
        p = skip_json_space(p, end);
        if (p == end || *p++ != ':') return NULL;
        const char *value = p = skip_json_space(p, end);
        if (!(p = skip_json_value(p, end))) return NULL;
        if (key_length == name_length && memcmp(key, name, name_length) == 0) {
            *length = (size_t)(p - value);
            return value;
        }
        p = skip_json_space(p, end);
        if (p == end || *p++ != ',') return NULL;
    }
}

/* A whole text message (in data) at time t: its top-level "kind" and "sequence" stand for SSE's event: and id:. */
static void on_message(int index, double t) {
    struct subscriber *s = &subscribers[index];
    size_t length = 0;
    const char *kind = json_member(s->data, s->data_length, "kind", &length);
    s->event[0] = 0;
    if (kind && length >= 2 && kind[0] == '"') {
        length -= 2;
        if (length >= sizeof s->event) length = sizeof s->event - 1;
        memcpy(s->event, kind + 1, length);
        s->event[length] = 0;
    }
    const char *sequence = json_member(s->data, s->data_length, "sequence", &length);
    s->has_id = 0;
    if (sequence) {
        uint64_t id = 0;
        size_t i = 0;
        for (; i < length && sequence[i] >= '0' && sequence[i] <= '9' && id < UINT64_MAX / 10; i++)
            id = id * 10 + (uint64_t)(sequence[i] - '0');
        if (i == 0 || i != length) {
            protocol_errors++;
            complain("subscriber %d: \"sequence\" is not a sequence number: %.*s", index, (int)length, sequence);
        } else {
            s->has_id = 1;
            s->id = id;
        }
    }
    on_event(index, t); /* without a kind it is no change: foreign, as an SSE event without event: */
    s->data_length = 0;
}

/* A frame protocol error: counted, and the subscriber closed. */
static void frame_error(int index, const char *why) {
    protocol_errors++;
    close_subscriber(index, why);
}

/* The frame header (frame_head) is complete: checks it, and makes room for its payload. */
static void start_frame(int index) {
    struct subscriber *s = &subscribers[index];
    uint8_t first = s->frame_head[0];
    uint64_t length = s->frame_head[1] & 0x7f;
    if (length >= 126) {
        length = 0;
        for (int i = 2; i < s->frame_head_length; i++) length = length << 8 | s->frame_head[i];
    }
    s->frame_head_length = 0;
    s->frame_opcode = first & 0x0f;
    s->frame_fin = (first & 0x80) != 0;
    s->frame_left = length;
    s->control_length = 0;
    s->in_payload = 1;
    char why[100];
    if (first & 0x70) {
        frame_error(index, "a frame with RSV bits set (no extension was agreed)");
        return;
    }
    switch (s->frame_opcode) {
    case 0x8:
    case 0x9:
    case 0xA:
        if (!s->frame_fin || length > 125) frame_error(index, "a fragmented or long control frame");
        return;
    case 0x0:
        if (!s->in_message) {
            frame_error(index, "a continuation frame outside a message");
            return;
        }
        break;
    case 0x1:
        if (s->in_message) {
            frame_error(index, "a text frame inside a fragmented message");
            return;
        }
        s->data_length = 0;
        break;
    case 0x2:
        frame_error(index, "a binary message (the feed's are JSON text)");
        return;
    default:
        snprintf(why, sizeof why, "a frame of unknown opcode %d", s->frame_opcode);
        frame_error(index, why);
        return;
    }
    if (length > MAX_LINE - s->data_length) {
        frame_error(index, "a WebSocket message over 64 KiB");
        return;
    }
    if (s->data_length + length > s->data_capacity) {
        s->data_capacity = s->data_length + (size_t)length + 256;
        s->data = grow(s->data, s->data_capacity);
    }
    s->in_message = !s->frame_fin;
}

/* The frame's payload is complete (at time t). */
static void end_frame(int index, double t) {
    struct subscriber *s = &subscribers[index];
    char why[200];
    s->in_payload = 0;
    switch (s->frame_opcode) {
    case 0x0:
    case 0x1:
        if (s->frame_fin) on_message(index, t);
        break;
    case 0x8: {
        int code = s->control_length >= 2 ? s->control[0] << 8 | s->control[1] : 1005;
        int reason = s->control_length >= 2 ? (int)s->control_length - 2 : 0;
        snprintf(why, sizeof why, "the server closed the WebSocket (%d %.*s)", code, reason,
                 reason ? (const char *)s->control + 2 : "");
        send_frame(index, 0x8, s->control, s->control_length >= 2 ? 2 : 0); /* the answer, as §5.5.1 asks */
        close_subscriber(index, why);
        break;
    }
    case 0x9:
        heartbeats++;
        errno = 0;
        if (!send_frame(index, 0xA, s->control, s->control_length))
            close_subscriber(index, errno ? strerror(errno) : "a short write of a pong");
        break;
    default: /* a pong: nothing asked for it */
        break;
    }
}

/* Bytes after the 101 head: frames. */
static void feed_frames(int index, const char *bytes, size_t length, double t) {
    struct subscriber *s = &subscribers[index];
    const uint8_t *p = (const uint8_t *)bytes, *end = p + length;
    while (p < end && s->state != DEAD) {
        if (!s->in_payload) {
            s->frame_head[s->frame_head_length++] = *p++;
            if (s->frame_head_length < 2) continue;
            if (s->frame_head[1] & 0x80) {
                frame_error(index, "a masked frame from the server");
                return;
            }
            int size = (s->frame_head[1] & 0x7f) == 127 ? 8 : (s->frame_head[1] & 0x7f) == 126 ? 2 : 0;
            if (s->frame_head_length < 2 + size) continue;
            if (size == 8 && s->frame_head[2] & 0x80) {
                frame_error(index, "a frame length over 2^63");
                return;
            }
            start_frame(index);
        } else {
            size_t piece = (size_t)(end - p);
            if (piece > s->frame_left) piece = (size_t)s->frame_left;
            if (s->frame_opcode & 0x8) {
                memcpy(s->control + s->control_length, p, piece);
                s->control_length += piece;
            } else {
                memcpy(s->data + s->data_length, p, piece);
                s->data_length += piece;
            }
            p += piece;
            s->frame_left -= piece;
        }
        if (s->state != DEAD && s->in_payload && s->frame_left == 0) end_frame(index, t);
    }
}

/* --websocket: the answer's head (as check_head's) must be 101 with Upgrade: websocket and a Sec-WebSocket-Accept;
 * the subscriber is connected from here, a WebSocket having no retry:. */
static int check_upgrade(int index) {
    struct subscriber *s = &subscribers[index];
    char why[300];
    if (strncmp(s->head, "HTTP/1.1 101 ", 13) != 0) {
        snprintf(why, sizeof why, "answered %.200s", s->head);
        *strchrnul(why, '\r') = 0;
        close_subscriber(index, why);
        return 0;
    }
    size_t length = 0;
    const char *upgrade = header(s->head, "Upgrade", &length);
    if (!upgrade || length != 9 || strncasecmp(upgrade, "websocket", 9) != 0) {
        close_subscriber(index, "a 101 without Upgrade: websocket");
        return 0;
    }
    if (!header(s->head, "Sec-WebSocket-Accept", &length) || length == 0) {
        close_subscriber(index, "a 101 without Sec-WebSocket-Accept");
        return 0;
    }
    s->live = 1;
    pending--;
    connected++;
    return 1;
}

/* The answer's head has arrived (head holds it, NUL-terminated, without its blank line): is it a stream? */
static int check_head(int index) {
    struct subscriber *s = &subscribers[index];
    char why[300];
    if (websocket) return check_upgrade(index);
    if (strncmp(s->head, "HTTP/1.1 200 ", 13) != 0 && strncmp(s->head, "HTTP/1.0 200 ", 13) != 0) {
        snprintf(why, sizeof why, "answered %.200s", s->head);
        *strchrnul(why, '\r') = 0;
        close_subscriber(index, why);
        return 0;
    }
    size_t length = 0;
    const char *type = header(s->head, "Content-Type", &length);
    if (!type || length < 17 || strncasecmp(type, "text/event-stream", 17) != 0) {
        snprintf(why, sizeof why, "Content-Type %.*s, not text/event-stream", type ? (int)length : 6,
                 type ? type : "absent");
        close_subscriber(index, why);
        return 0;
    }
    const char *coding = header(s->head, "Transfer-Encoding", &length);
    s->chunked = coding && length == 7 && strncasecmp(coding, "chunked", 7) == 0;
    if (coding && !s->chunked) {
        close_subscriber(index, "a Transfer-Encoding other than chunked");
        return 0;
    }
    return 1;
}

static char read_buffer[65536];

static void on_readable(int index, double t) {
    struct subscriber *s = &subscribers[index];
    for (;;) {
        double t_read = t;
        ssize_t n = timed_recv(s->fd, read_buffer, sizeof read_buffer, &t_read);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n <= 0) {
            close_subscriber(index, n == 0 ? "end of stream" : strerror(errno));
            return;
        }
        const char *bytes = read_buffer;
        size_t length = (size_t)n;
        if (s->state == HEAD) {
            size_t take = length < MAX_HEAD - s->head_length ? length : MAX_HEAD - s->head_length;
            memcpy(s->head + s->head_length, bytes, take);
            s->head_length += take;
            s->head[s->head_length] = 0;
            char *blank = strstr(s->head, "\r\n\r\n");
            if (!blank) {
                if (s->head_length == MAX_HEAD) close_subscriber(index, "an answer head over 16 KiB");
                if (s->state == DEAD || (size_t)n < sizeof read_buffer) return;
                continue;
            }
            size_t head_length = (size_t)(blank - s->head) + 4;
            *blank = 0;
            if (!check_head(index)) return;
            /* what followed the head in this read */
            size_t before = s->head_length - take; /* head bytes from earlier reads */
            bytes += head_length - before;
            length -= head_length - before;
            free(s->head);
            s->head = NULL;
            s->state = STREAM;
        }
        if (websocket) feed_frames(index, bytes, length, t_read);
        else feed_body(index, bytes, length, t_read);
        if (s->state == DEAD || (size_t)n < sizeof read_buffer) return;
    }
}

static const char *subscribe_request;
static size_t subscribe_length;

static void on_connected(int index) {
    struct subscriber *s = &subscribers[index];
    int error = 0;
    socklen_t size = sizeof error;
    if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &error, &size) < 0) error = errno;
    if (error) {
        close_subscriber(index, strerror(error));
        return;
    }
    const char *request = subscribe_request;
    size_t length = subscribe_length;
    char upgrade[512];
    if (websocket) { /* a key of its own for each subscriber */
        char key[25];
        websocket_key(key);
        length = (size_t)snprintf(upgrade, sizeof upgrade,
                                  "GET /items/events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                                  "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
                                  port, key);
        request = upgrade;
    }
    ssize_t sent = send(s->fd, request, length, MSG_NOSIGNAL);
    if (sent != (ssize_t)length) {
        close_subscriber(index, sent < 0 ? strerror(errno) : "a short write of the request");
        return;
    }
    s->state = HEAD;
    s->head = grow(NULL, MAX_HEAD + 1);
    s->head_length = 0;
    struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)index};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_MOD, s->fd, &event) < 0) die("epoll_ctl: %s", strerror(errno));
}

static struct sockaddr_in address;

static int subscriber_ports[64], subscriber_port_count;

static void open_subscriber(int index) {
    struct subscriber *s = &subscribers[index];
    struct sockaddr_in target = address;
    if (subscriber_port_count > 0) target.sin_port = htons((uint16_t)subscriber_ports[index % subscriber_port_count]);
    memset(s, 0, sizeof *s);
    s->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s->fd < 0) die("socket: %s (subscriber %d)", strerror(errno), index);
    int one = 1;
    setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ask_for_stamps(s->fd);
    s->state = CONNECTING;
    pending++;
    if (connect(s->fd, (struct sockaddr *)&target, sizeof target) < 0 && errno != EINPROGRESS) {
        close_subscriber(index, strerror(errno));
        return;
    }
    struct epoll_event event = {.events = EPOLLOUT, .data.u32 = (uint32_t)index};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, s->fd, &event) < 0) die("epoll_ctl: %s", strerror(errno));
}

/* ------------------------------------------------------------------------------------------------ the POSTs */

static int poster_fd;
static char poster_buffer[65536];
static size_t poster_length;
static double poster_time; /* when the bytes of the last read of the POST connection arrived */

static void send_post(int post) {
    char body[64], request[512];
    int body_length = snprintf(body, sizeof body, "{\"label\":\"fanout %d\"}", post);
    int length = snprintf(request, sizeof request,
                          "POST /items HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                          "Content-Length: %d\r\n\r\n%s",
                          port, body_length, body);
    for (int done = 0; done < length;) {
        ssize_t n = send(poster_fd, request + done, (size_t)(length - done), MSG_NOSIGNAL);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n < 0) die("POST %d: send: %s", post, strerror(errno));
        done += (int)n;
    }
}

/* Reads what is there; returns the status once a whole answer has arrived (poster_time: its last bytes), else 0. */
static int read_post_answer(double t) {
    for (;;) {
        if (poster_length == sizeof poster_buffer) die("the POST's answer is over 64 KiB");
        double t_read = t;
        ssize_t n = timed_recv(poster_fd, poster_buffer + poster_length, sizeof poster_buffer - poster_length, &t_read);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n < 0) die("the POST connection: %s", strerror(errno));
        if (n == 0) die("the POST connection was closed by the server");
        poster_length += (size_t)n;
        poster_time = t_read;
    }
    char *blank = memmem(poster_buffer, poster_length, "\r\n\r\n", 4);
    if (!blank) return 0;
    *blank = 0;
    size_t length = 0;
    const char *value = header(poster_buffer, "Content-Length", &length);
    if (header(poster_buffer, "Transfer-Encoding", &length)) die("a chunked answer to a POST: not expected");
    size_t body = value ? strtoul(value, NULL, 10) : 0;
    size_t whole = (size_t)(blank - poster_buffer) + 4 + body;
    if (poster_length < whole) {
        *blank = '\r';
        return 0;
    }
    int status = 0;
    if (sscanf(poster_buffer, "HTTP/1.%*d %d", &status) != 1) die("not an HTTP answer: %.80s", poster_buffer);
    memmove(poster_buffer, poster_buffer + whole, poster_length - whole);
    poster_length -= whole;
    return status;
}

/* ------------------------------------------------------------------------------------------------ main */

static struct epoll_event *events;
static int max_events;
static long polls, reported; /* epoll_wait calls that returned, and the sockets they reported */

/* One epoll_wait and what it reported; returns 1 when the POST connection had a whole answer (*status set, *t_out
 * when its last bytes arrived). */
static int poll_once(int timeout_ms, int *status, double *t_out) {
    int count = epoll_wait(epoll_fd, events, max_events, timeout_ms);
    double t = now();
    if (count < 0 && errno != EINTR) die("epoll_wait: %s", strerror(errno));
    if (count > 0) polls++, reported += count;
    int answered = 0;
    for (int i = 0; i < count; i++) {
        uint32_t index = events[i].data.u32;
        if (index == POSTER_TAG) {
            int s = read_post_answer(t);
            if (s) {
                *status = s;
                answered = 1;
                if (t_out) *t_out = poster_time;
            }
            continue;
        }
        struct subscriber *s = &subscribers[index];
        if (s->state == CONNECTING) {
            on_connected((int)index);
            continue;
        }
        if (s->state != DEAD) on_readable((int)index, t);
    }
    return answered;
}

static void usage(void) {
    fprintf(stderr, "usage: fanout --port PORT --pid SERVER_PID [--subscribers 5000] [--posts 100] [--gap-ms 20] "
                    "--out RESULT.json [--epoll-times] [--subscriber-ports P1,P2,...] [--websocket]\n");
    exit(64);
}

int main(int argc, char **argv) {
    int pid = 0, posts = 100;
    double gap_ms = 20;
    const char *out = NULL;
    wanted = 5000;
    for (int i = 1; i < argc; i++) {
        const char *option = argv[i];
        if (strcmp(option, "--epoll-times") == 0) {
            kernel_times = 0;
            continue;
        }
        if (strcmp(option, "--websocket") == 0) {
            websocket = 1;
            continue;
        }
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strncmp(option, "--", 2) == 0 && strchr(option, '=')) { /* argparse's --name=value */
            static char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(strchr(option, '=') - option), option);
            value = strchr(option, '=') + 1;
            option = name;
        } else {
            i++;
        }
        if (!value) usage();
        if (strcmp(option, "--port") == 0) port = atoi(value);
        else if (strcmp(option, "--pid") == 0) pid = atoi(value);
        else if (strcmp(option, "--subscribers") == 0) wanted = atoi(value);
        else if (strcmp(option, "--posts") == 0) posts = atoi(value);
        else if (strcmp(option, "--gap-ms") == 0) gap_ms = atof(value);
        else if (strcmp(option, "--out") == 0) out = value;
        else if (strcmp(option, "--subscriber-ports") == 0) {
            for (const char *part = value; *part && subscriber_port_count < 64; part += strcspn(part, ",")) {
                if (*part == ',') part++;
                subscriber_ports[subscriber_port_count++] = atoi(part);
            }
        } else usage();
    }
    if (port <= 0 || port > 65535 || pid <= 0 || !out || wanted < 1 || posts < 1 || gap_ms < 0) usage();

    struct rlimit limit;
    getrlimit(RLIMIT_NOFILE, &limit);
    rlim_t want = (rlim_t)wanted + 100;
    if (limit.rlim_cur < want) {
        if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < want)
            die("%d subscribers need %lu file descriptors; the hard limit is %lu", wanted, (unsigned long)want,
                (unsigned long)limit.rlim_max);
        limit.rlim_cur = want;
        if (setrlimit(RLIMIT_NOFILE, &limit) < 0) die("setrlimit(RLIMIT_NOFILE): %s", strerror(errno));
    }

    struct timespec seed;
    clock_gettime(CLOCK_REALTIME, &seed);
    random_state = ((uint64_t)seed.tv_sec * 1000000000 + (uint64_t)seed.tv_nsec) ^ (uint64_t)getpid() << 32;
    if (random_state == 0) random_state = 1; /* xorshift's one fixed point */
    address.sin_family = AF_INET;
    address.sin_port = htons((uint16_t)port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    static char request[256];
    subscribe_length = (size_t)snprintf(request, sizeof request,
                                        "GET /items/events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                                        "Accept: text/event-stream\r\n\r\n",
                                        port);
    subscribe_request = request;
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd < 0) die("epoll_create1: %s", strerror(errno));
    max_events = wanted + 1;
    events = grow(NULL, sizeof *events * (size_t)max_events);
    subscribers = grow(NULL, sizeof *subscribers * (size_t)wanted);
    arrival = grow(NULL, sizeof *arrival * (size_t)wanted);
    post_ids = calloc((size_t)posts + 1, sizeof *post_ids);
    if (!post_ids) die("out of memory");

    /* 1, 2: the subscribers */
    long rss_before = rss_kb(pid);
    double started = now();
    int opened = 0, ignored_status;
    while (opened < wanted || pending > 0) {
        while (opened < wanted && pending < IN_FLIGHT) open_subscriber(opened++);
        if (now() - started > CONNECT_SECONDS) {
            for (int i = 0; i < opened; i++)
                if (subscribers[i].state != DEAD && !subscribers[i].live)
                    close_subscriber(i, "its stream had not started after 120 s");
            for (; opened < wanted; opened++) {
                subscribers[opened].state = DEAD;
                connect_failures++;
            }
            break;
        }
        poll_once(1000, &ignored_status, NULL);
    }
    double connect_seconds = now() - started;
    if (connected == 0) die("no subscriber connected (%d failed)", connect_failures);
    struct timespec second = {1, 0};
    nanosleep(&second, NULL);
    long rss_after = rss_kb(pid);

    /* 3: the POSTs */
    poster_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (poster_fd < 0 || connect(poster_fd, (struct sockaddr *)&address, sizeof address) < 0)
        die("the POST connection: %s", strerror(errno));
    int one = 1;
    setsockopt(poster_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ask_for_stamps(poster_fd);
    if (fcntl(poster_fd, F_SETFL, fcntl(poster_fd, F_GETFL) | O_NONBLOCK) < 0) die("fcntl: %s", strerror(errno));
    struct epoll_event poster_event = {.events = EPOLLIN, .data.u32 = POSTER_TAG};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, poster_fd, &poster_event) < 0) die("epoll_ctl: %s", strerror(errno));

    size_t per_post = sizeof(double) * (size_t)posts;
    double *post_ms = grow(NULL, per_post), *first_ms = grow(NULL, per_post), *median_ms = grow(NULL, per_post);
    double *last_ms = grow(NULL, per_post), *from_send_ms = grow(NULL, per_post);
    int *received = grow(NULL, sizeof(int) * (size_t)posts), *missing = grow(NULL, sizeof(int) * (size_t)posts);
    double *delays = grow(NULL, sizeof(double) * (size_t)wanted);
    long missed_events = 0;
    int statuses_201 = 0;
    double user0, system0, user1, system1;
    own_cpu(&user0, &system0);
    double server0 = process_cpu_seconds(pid), wall0 = now();
    polls = reported = 0;
    for (int post = 1; post <= posts; post++) {
        current_post = post;
        for (int i = 0; i < wanted; i++) arrival[i] = NAN;
        remaining = connected;
        measure_realtime_offset();
        double t_sent = now(), t_201 = NAN, deadline = t_sent + POST_SECONDS;
        send_post(post);
        while (remaining > 0 || isnan(t_201)) {
            double left = deadline - now();
            if (left <= 0) break;
            int status = 0;
            double t;
            if (poll_once(left > 1 ? 1000 : (int)(left * 1000) + 1, &status, &t)) {
                if (status != 201) die("POST %d answered %d", post, status);
                statuses_201++;
                t_201 = t;
            }
            /* With stamps, waking once a millisecond instead of once per socket costs the timing nothing and
             * spares both sides a wake-up per event: the client sleeps while the server writes. */
            if (kernel_times) nanosleep(&(struct timespec){0, 1000000}, NULL);
        }
        if (isnan(t_201)) die("POST %d: no answer after %.0f s (%d subscribers without its event)", post,
                              POST_SECONDS, remaining);
        if (remaining > 0) {
            missed_events += remaining;
            complain("POST %d: %d of %d subscribers had no event after %.0f s", post, remaining, connected,
                     POST_SECONDS);
        }
        int count = 0;
        for (int i = 0; i < wanted; i++)
            if (!isnan(arrival[i])) delays[count++] = arrival[i] - t_201;
        qsort(delays, (size_t)count, sizeof(double), compare_doubles);
        int k = post - 1;
        post_ms[k] = (t_201 - t_sent) * 1000;
        received[k] = count;
        missing[k] = remaining;
        first_ms[k] = count ? delays[0] * 1000 : NAN;
        median_ms[k] = count ? delays[count / 2] * 1000 : NAN;
        last_ms[k] = count ? delays[count - 1] * 1000 : NAN;
        from_send_ms[k] = post_ms[k] + last_ms[k];
        if (gap_ms > 0) {
            long nanoseconds = (long)(gap_ms * 1e6);
            struct timespec gap = {nanoseconds / 1000000000, nanoseconds % 1000000000};
            nanosleep(&gap, NULL);
        }
    }
    current_post = 0;
    double wall = now() - wall0, server_cpu = process_cpu_seconds(pid) - server0;
    own_cpu(&user1, &system1);
    double cpu = user1 + system1 - user0 - system0;
    long rss_end = rss_kb(pid);

    /* 4: the results */
    put("\"transport\": \"%s\", ", websocket ? "websocket" : "sse");
    put("\"subscribers\": %d, \"posts\": %d, \"statuses\": {\"201\": %d}, ", connected, posts, statuses_201);
    put_rounded("connect_seconds", connect_seconds, 2);
    put("\"rss_before_kb\": %ld, \"rss_after_kb\": %ld, \"rss_end_kb\": %ld, ", rss_before, rss_after, rss_end);
    put_rounded("rss_per_subscriber_kb", (double)(rss_after - rss_before) / connected, 2);
    put_rounded("last_p50_ms", percentile(last_ms, posts, 50), 2);
    put_rounded("last_p99_ms", percentile(last_ms, posts, 99), 2);
    put_rounded("last_max_ms", maximum(last_ms, posts), 2);
    put_rounded("median_p50_ms", percentile(median_ms, posts, 50), 2);
    put_rounded("median_p99_ms", percentile(median_ms, posts, 99), 2);
    put_rounded("median_max_ms", maximum(median_ms, posts), 2);
    put_rounded("first_p50_ms", percentile(first_ms, posts, 50), 2);
    /* From the POST's send instead of its 201 (the event may go out before the answer does). */
    put_rounded("last_from_send_p50_ms", percentile(from_send_ms, posts, 50), 2);
    put_rounded("last_from_send_p99_ms", percentile(from_send_ms, posts, 99), 2);
    put_rounded("post_p50_ms", percentile(post_ms, posts, 50), 2);
    put_rounded("client_cpu_seconds", cpu, 3); /* during step 3, as fanout.py's */
    put_rounded("client_wall_seconds", wall, 3);
    put_rounded("client_cpu_pct", 100 * cpu / wall, 1);
    put_rounded("client_user_seconds", user1 - user0, 3);
    put_rounded("client_system_seconds", system1 - system0, 3);
    put_rounded("client_cpu_seconds_total", user1 + system1, 3); /* the whole run, connecting included */
    put_rounded("server_cpu_seconds", server_cpu, 2);            /* during step 3 */
    /* How the client woke during step 3: few sockets per wake-up means it waited on the server, not the reverse. */
    put("\"arrival_times\": \"%s\", \"unstamped_reads\": %ld, \"epoll_wakeups\": %ld, ",
        kernel_times ? "kernel (SO_TIMESTAMPNS)" : "epoll_wait return", unstamped_reads, polls);
    put_rounded("sockets_per_wakeup", polls ? (double)reported / (double)polls : NAN, 1);
    long errors = connect_failures + dropped + missed_events + late_events + duplicate_events + id_mismatches +
                  protocol_errors;
    put("\"subscribers_wanted\": %d, \"connect_failures\": %d, \"dropped_subscribers\": %d, \"missed_events\": %ld, "
        "\"late_events\": %ld, \"duplicate_events\": %ld, \"id_mismatches\": %ld, \"protocol_errors\": %ld, "
        "\"foreign_events\": %ld, \"heartbeats\": %ld, \"errors\": %ld, ",
        wanted, connect_failures, dropped, missed_events, late_events, duplicate_events, id_mismatches,
        protocol_errors, foreign_events, heartbeats, errors);
    json[json_length - 2] = 0; /* without its last ", " */
    char *summary = strdup(json);
    if (!summary) die("out of memory");

    FILE *file = fopen(out, "w");
    if (!file) die("cannot write %s: %s", out, strerror(errno));
    fprintf(file, "{%s,\n \"per_post\": [", summary);
    for (int k = 0; k < posts; k++) {
        json_length = 0;
        put("\n  {\"post\": %d, \"id\": %llu, ", k + 1, (unsigned long long)post_ids[k + 1]);
        put_rounded("post_ms", post_ms[k], 3);
        put_rounded("first_ms", first_ms[k], 3);
        put_rounded("median_ms", median_ms[k], 3);
        put_rounded("last_ms", last_ms[k], 3);
        put("\"received\": %d, \"missing\": %d}%s", received[k], missing[k], k + 1 < posts ? "," : "");
        fputs(json, file);
    }
    fputs("\n ]\n}\n", file);
    if (fclose(file) != 0) die("cannot write %s", out);
    printf("{%s}\n", summary);
    fflush(stdout); /* before the error summary on stderr: run.sh shows the end of both */
    for (int i = 0; i < wanted; i++)
        if (subscribers[i].state != DEAD) close(subscribers[i].fd);
    free(post_ms), free(first_ms), free(median_ms), free(last_ms), free(from_send_ms), free(received), free(missing);
    free(delays), free(summary);
    if (errors) {
        fprintf(stderr,
                "fanout: %ld errors: %d subscriptions failed, %d subscribers dropped, %ld events missed, %ld late, "
                "%ld twice, %ld with another id, %ld protocol errors\n",
                errors, connect_failures, dropped, missed_events, late_events, duplicate_events, id_mismatches,
                protocol_errors);
        return 1;
    }
    return 0;
}
