/*
 * evhttp-baseline: the C reference point for ListServer's benchmarks.
 *
 * A plain libevent evhttp server with the structure ListServer has (N threads, each with its own event_base
 * with the same flags: precise timers, no locks, the epoll change list; its own evhttp, accepting on its own
 * SO_REUSEPORT socket) that serves the same bytes for the same URLs:
 *
 *   GET /items?page=P&limit=L   the page body, Content-Type, X-Total-Count, Link
 *   GET /items/<id>             the item body
 *   GET /items/<id>/detail      {"id":..,"amount":..} through a cache; X-Cache HIT|MISS, Server-Timing on a miss
 *   GET /items/<id>/image       with --image-file PATH: that file's bytes as image/jpeg, as a cached image hit
 *                               (X-Cache: HIT, ETag, Vary, Content-Disposition), whatever the id and query
 *
 * Items are generated on the fly from (seed, id) exactly as Sources/ListDomain does it (SplitMix64 per field,
 * the same author table, the same JSON byte layout), so the benchmark script can check byte equality.
 *
 * The detail cache is one hash table shared by the threads (a mutex; every operation is a few loads), mapping
 * id -> amount and its formatted text. A miss (or `Cache-Control: no-cache`, or `Pragma: no-cache` without a
 * Cache-Control) waits a fixed latency on a libevent timer, never blocking, then stores and answers. Deliberate
 * simplifications next to ListServer: concurrent misses for one id are not coalesced (the benchmarks never
 * issue them: scenario 2 is warmed first, scenario 3 bypasses the cache), the table is emptied when it reaches
 * its capacity instead of evicting the least recently used entry (the benchmarks never fill it), error bodies
 * are problem+json but not worded as ListServer's, and a shutdown (SIGTERM, SIGINT) exits at once.
 *
 * Build: cc -O2 -o evhttp-baseline evhttp-baseline.c -levent_core -levent_extra -lpthread
 * Run:   evhttp-baseline --host 127.0.0.1 --port 0 --threads 2 --seed 42 --item-count 10000 --latency-ms 1000
 *        prints "listening on HOST:PORT" once every thread accepts.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <sys/queue.h> /* TAILQ_FOREACH over header fields */
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/event_struct.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "listserver-fields.h"

/* ---------------------------------------------------------------- configuration */

static struct {
    const char *host;
    int port;
    int threads;
    uint64_t seed;
    uint64_t item_count;
    int latency_ms;
    size_t cache_capacity;
    uint64_t default_limit;
    uint64_t max_limit;
    const char *image_path;
    const char *placeholders_path;
} config = {"127.0.0.1", 8080, 2, 42, 10000, 1000, 100000, 20, 100, NULL, NULL};

/*
 * The items' blur_hash placeholders, from --placeholders PATH: lines "<id> <28-character hash>", ascending ids,
 * read once at start. ListServer computes each from its photo's layout once and keeps it in a table (a page copies
 * them out under one lock); the baseline copies them out of this one, which a bench script fills from ListServer's
 * own answers for the ids its runs ask for (Benchmarks/load/lib.sh, placeholders_for). An item without one is
 * written without the member, which the verify step would catch.
 */
#define PLACEHOLDER_LENGTH 28
static uint64_t *placeholder_ids;
static char (*placeholder_hashes)[PLACEHOLDER_LENGTH];
static size_t placeholder_count;

/* The bytes of --image-file, read once at start. */
static char *image_bytes;
static size_t image_length;

#define MAXIMUM_COUNT (UINT64_C(1) << 53)

/* ---------------------------------------------------------------- generation (ListDomain) */

#define GAMMA UINT64_C(0x9E3779B97F4A7C15)

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* SplitMix64.output(seed:index:) */
static inline uint64_t splitmix_output(uint64_t seed, uint64_t index) { return mix64(seed + (index + 1) * GAMMA); }

enum {
    SALT_AUTHOR = 0x617574686F72, /* "author" */
    SALT_SIZE = 0x73697A65,       /* "size" */
    SALT_COLOR = 0x636F6C6F72,    /* "color" */
    SALT_LIKES = 0x6C696B6573,    /* "likes" */
};
#define SALT_AMOUNT UINT64_C(0x616D6F756E74) /* "amount" */

/* Per-field stream keys mix(seed ^ salt), computed once. */
static uint64_t key_author, key_size, key_color, key_likes, key_amount;

static const int landscape_sizes[16][2] = {
    {960, 720},   {1024, 768},  {1280, 720},  {1280, 960},  {1600, 1200}, {1920, 1080}, {1920, 1280}, {2048, 1536},
    {2560, 1440}, {3000, 2000}, {3264, 2448}, {3840, 2160}, {4000, 3000}, {4032, 3024}, {6000, 4000}, {1080, 1080},
};

static const char *const author_names[64] = {
    "Amara Okafor",      "Liam O'Connor",   "Sofia Rossi",      "Hiroshi Tanaka",  "Priya Natarajan",
    "Mateo García",      "Ingrid Johansson", "Chen Wei",        "Fatima Al-Sayed", "Lukas Müller",
    "Aisha Bello",       "Noah Williams",   "Yuki Sato",        "Olga Petrova",    "Kwame Mensah",
    "Elena Popescu",     "Rafael Souza",    "Zoë Dubois",       "Arjun Mehta",     "Hannah Schmidt",
    "Diego Hernández",   "Mei Lin",         "Tomasz Kowalski",  "Chloé Martin",    "Oluwaseun Adeyemi",
    "Emma Johnson",      "Santiago López",  "Ji-woo Park",      "Nikolai Ivanov",  "Leila Haddad",
    "Björn Lindqvist",   "Grace Kim",       "Mohammed Rahman",  "Isabella Costa",  "Kenji Nakamura",
    "Ananya Iyer",       "Lucas Bernard",   "Nadia Benali",     "Samuel Cohen",    "Camila Torres",
    "Dmitri Volkov",     "Aoife Byrne",     "Thabo Nkosi",      "Julia Nowak",     "Ahmed Hassan",
    "Maya Patel",        "Oliver Smith",    "Søren Nielsen",    "Linh Nguyễn",     "Gabriel Silva",
    "Fernanda Oliveira", "Ethan Brown",     "Zeynep Yılmaz",    "Marco Bianchi",   "Ewa Zielińska",
    "Kofi Boateng",      "Sara Lindgren",   "Andrés Ramírez",   "Hana Nováková",   "Ravi Shankar",
    "Alejandra Castillo", "Tariq Aziz",     "Anna Kowalczyk",   "François Lefèvre",
};

/* Each name as a complete JSON string, quotes included (JSONWriter.append(string:)). */
static char author_json[64][64];
static size_t author_json_length[64];

static void encode_authors(void) {
    for (int i = 0; i < 64; i++) {
        char *p = author_json[i];
        *p++ = '"';
        for (const unsigned char *s = (const unsigned char *)author_names[i]; *s; s++) {
            if (*s == '"' || *s == '\\') {
                *p++ = '\\';
                *p++ = (char)*s;
            } else if (*s < 0x20) {
                p += sprintf(p, "\\u00%02X", *s);
            } else {
                *p++ = (char)*s;
            }
        }
        *p++ = '"';
        author_json_length[i] = (size_t)(p - author_json[i]);
    }
}

/* Decimal digits of v at p; returns the new end. */
static inline char *put_u64(char *p, uint64_t v) {
    char digits[20];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0) *p++ = digits[--n];
    return p;
}

#define PUT_LITERAL(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/* The placeholder of item `id`, or NULL: by index while the ids run from 0, else by bisection. */
static const char *placeholder_of(uint64_t id) {
    if (id < placeholder_count && placeholder_ids[id] == id) return placeholder_hashes[id];
    size_t low = 0, high = placeholder_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (placeholder_ids[middle] < id) low = middle + 1;
        else high = middle;
    }
    return low < placeholder_count && placeholder_ids[low] == id ? placeholder_hashes[low] : NULL;
}

static void read_placeholders(const char *path) {
    FILE *file = fopen(path, "r");
    if (file == NULL) {
        fprintf(stderr, "evhttp-baseline: cannot read %s\n", path);
        exit(66);
    }
    size_t capacity = 1024;
    placeholder_ids = malloc(capacity * sizeof *placeholder_ids);
    placeholder_hashes = malloc(capacity * sizeof *placeholder_hashes);
    uint64_t id;
    char hash[PLACEHOLDER_LENGTH + 2];
    while (fscanf(file, "%" SCNu64 " %29s", &id, hash) == 2) {
        if (strlen(hash) != PLACEHOLDER_LENGTH) continue;
        if (placeholder_count == capacity) {
            capacity *= 2;
            placeholder_ids = realloc(placeholder_ids, capacity * sizeof *placeholder_ids);
            placeholder_hashes = realloc(placeholder_hashes, capacity * sizeof *placeholder_hashes);
        }
        if (placeholder_ids == NULL || placeholder_hashes == NULL) exit(70);
        placeholder_ids[placeholder_count] = id;
        memcpy(placeholder_hashes[placeholder_count], hash, PLACEHOLDER_LENGTH);
        placeholder_count++;
    }
    fclose(file);
}

/* Catalog.writeItem(_:into:) for an id below the count. */
static char *put_item(char *p, uint64_t id) {
    static const char hex[] = "0123456789abcdef";
    int author = (int)(splitmix_output(key_author, id) >> 58);
    uint64_t size_hash = splitmix_output(key_size, id);
    const int *size = landscape_sizes[size_hash & 0xF];
    int portrait = ((size_hash >> 8) & 0xFF) < 77;
    uint32_t color = (uint32_t)(splitmix_output(key_color, id) >> 40);
    uint64_t uniform = splitmix_output(key_likes, id) >> 32;
    uint64_t squared = (uniform * uniform) >> 32;
    uint64_t likes = (squared * 10001) >> 32;

    p = PUT_LITERAL(p, "{\"id\":");
    p = put_u64(p, id);
    p = PUT_LITERAL(p, ",\"label\":\"Line ");
    p = put_u64(p, id);
    p = PUT_LITERAL(p, "\",\"author\":");
    memcpy(p, author_json[author], author_json_length[author]);
    p += author_json_length[author];
    p = PUT_LITERAL(p, ",\"width\":");
    p = put_u64(p, (uint64_t)(portrait ? size[1] : size[0]));
    p = PUT_LITERAL(p, ",\"height\":");
    p = put_u64(p, (uint64_t)(portrait ? size[0] : size[1]));
    p = PUT_LITERAL(p, ",\"color\":\"#");
    for (int shift = 20; shift >= 0; shift -= 4) *p++ = hex[(color >> shift) & 0xF];
    const char *placeholder = placeholder_of(id);
    if (placeholder != NULL) {
        p = PUT_LITERAL(p, "\",\"blur_hash\":\"");
        memcpy(p, placeholder, PLACEHOLDER_LENGTH);
        p += PLACEHOLDER_LENGTH;
    }
    p = PUT_LITERAL(p, "\",\"likes\":");
    p = put_u64(p, likes);
    p = PUT_LITERAL(p, ",\"image_url\":\"/items/");
    p = put_u64(p, id);
    p = PUT_LITERAL(p, "/image\"}");
    return p;
}

/* ItemFields.amount(seed:id:): 53 random bits scaled into [0, 1). */
static double amount_of(uint64_t id) { return (double)(splitmix_output(key_amount, id) >> 11) * 0x1p-53; }

/*
 * Double.description for a finite value: the shortest decimal that reads back as the same double, in %g's
 * layout (which is Swift's: 0.5, 0.0001, 9.999e-05), with ".0" after an integral value.
 *
 * The precision is found by bisection on 1...17: the nearest (p+1)-digit decimal is at least as close as the
 * nearest p-digit one (every p-digit decimal is also a (p+1)-digit one), so "round-trips at p" is monotone in p,
 * and %.*g gives the nearest p-digit decimal, which is also the one Swift picks among the shortest.
 */
static size_t format_double(char *out, size_t size, double value) {
    if (value == 0) return (size_t)snprintf(out, size, signbit(value) ? "-0.0" : "0.0");
    int low = 1, high = 17;
    while (low < high) {
        int middle = (low + high) / 2;
        snprintf(out, size, "%.*g", middle, value);
        if (strtod(out, NULL) == value)
            high = middle;
        else
            low = middle + 1;
    }
    size_t length = (size_t)snprintf(out, size, "%.*g", low, value);
    if (strpbrk(out, ".e") == NULL) length += (size_t)snprintf(out + length, size - length, ".0");
    return length;
}

/* ---------------------------------------------------------------- paging (Page.swift) */

typedef struct {
    uint64_t number, limit, total, total_pages, first, end; /* ids first ..< end */
} page_t;

static page_t make_page(uint64_t number, uint64_t limit, uint64_t total) {
    page_t page = {number, limit, total, 0, total, total};
    if (limit > 0) page.total_pages = total / limit + (total % limit != 0);
    uint64_t first;
    if (number >= 1 && limit >= 1 && !__builtin_mul_overflow(number - 1, limit, &first) && first < total) {
        page.first = first;
        page.end = first + (limit < total - first ? limit : total - first);
    }
    return page;
}

/* Catalog.writePage(_:into:) */
static char *put_page(char *p, const page_t *page) {
    p = PUT_LITERAL(p, "{\"items\":[");
    for (uint64_t id = page->first; id < page->end; id++) {
        if (id != page->first) *p++ = ',';
        p = put_item(p, id);
    }
    p = PUT_LITERAL(p, "],\"page\":");
    p = put_u64(p, page->number);
    p = PUT_LITERAL(p, ",\"limit\":");
    p = put_u64(p, page->limit);
    p = PUT_LITERAL(p, ",\"total\":");
    p = put_u64(p, page->total);
    p = PUT_LITERAL(p, ",\"total_pages\":");
    p = put_u64(p, page->total_pages);
    p = PUT_LITERAL(p, ",\"next_page\":");
    if (page->number < page->total_pages)
        p = put_u64(p, page->number + 1);
    else
        p = PUT_LITERAL(p, "null");
    p = PUT_LITERAL(p, ",\"version\":1}");
    return p;
}

/* One RFC 8288 link-value: </items?page=2&limit=20>; rel="next" */
static char *put_link(char *p, uint64_t page, uint64_t limit, const char *rel) {
    p = PUT_LITERAL(p, "</items?page=");
    p = put_u64(p, page);
    p = PUT_LITERAL(p, "&limit=");
    p = put_u64(p, limit);
    p = PUT_LITERAL(p, ">; rel=\"");
    p = stpcpy(p, rel);
    *p++ = '"';
    return p;
}

/* Router.linkHeader(for:): first, prev (P > 1), next (P < total pages), last (at least 1). */
static void format_link_header(char *out, const page_t *page) {
    char *p = put_link(out, 1, page->limit, "first");
    if (page->number > 1) p = put_link(PUT_LITERAL(p, ", "), page->number - 1, page->limit, "prev");
    if (page->number < page->total_pages) p = put_link(PUT_LITERAL(p, ", "), page->number + 1, page->limit, "next");
    p = put_link(PUT_LITERAL(p, ", "), page->total_pages > 0 ? page->total_pages : 1, page->limit, "last");
    *p = '\0';
}

/* ---------------------------------------------------------------- detail cache */

/* One cached detail: the amount and its JSON text, formatted once when stored. key = id + 1; 0 is empty. */
typedef struct {
    uint64_t key;
    double amount;
    char text[24];
} cache_entry;

/* Open addressing with linear probing; grows with use up to twice the capacity, emptied when full. */
static struct {
    pthread_mutex_t lock;
    cache_entry *slots;
    size_t mask, count, limit;
} cache = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0};

static void cache_allocate(size_t size) {
    cache.slots = calloc(size, sizeof *cache.slots);
    if (cache.slots == NULL) {
        perror("calloc");
        exit(71);
    }
    cache.mask = size - 1;
    cache.count = 0;
}

static cache_entry *cache_slot(uint64_t key) {
    size_t i = mix64(key) & cache.mask;
    while (cache.slots[i].key != 0 && cache.slots[i].key != key) i = (i + 1) & cache.mask;
    return &cache.slots[i];
}

static void cache_init(void) {
    size_t limit = 16;
    while (limit < 2 * config.cache_capacity) limit <<= 1;
    cache.limit = limit;
    cache_allocate(limit < 1024 ? limit : 1024);
}

/* Copies the entry for id into *out; 1 on a hit. */
static int cache_get(uint64_t id, cache_entry *out) {
    pthread_mutex_lock(&cache.lock);
    cache_entry *slot = cache_slot(id + 1);
    int hit = slot->key != 0;
    if (hit) *out = *slot;
    pthread_mutex_unlock(&cache.lock);
    return hit;
}

static void cache_put(const cache_entry *entry) {
    pthread_mutex_lock(&cache.lock);
    cache_entry *slot = cache_slot(entry->key);
    if (slot->key == 0) {
        if (cache.count >= config.cache_capacity) {
            memset(cache.slots, 0, (cache.mask + 1) * sizeof *cache.slots);
            cache.count = 0;
        } else if (2 * (cache.count + 1) > cache.mask + 1 && cache.mask + 1 < cache.limit) {
            cache_entry *old = cache.slots;
            size_t old_size = cache.mask + 1;
            cache_allocate(2 * old_size);
            for (size_t i = 0; i < old_size; i++) {
                if (old[i].key != 0) {
                    *cache_slot(old[i].key) = old[i];
                    cache.count++;
                }
            }
            free(old);
        }
        slot = cache_slot(entry->key);
        cache.count++;
    }
    *slot = *entry;
    pthread_mutex_unlock(&cache.lock);
}

/* ---------------------------------------------------------------- HTTP */

/* One event loop: its own event_base, evhttp and listening socket; nothing here is touched by another thread. */
typedef struct {
    struct event_base *base;
    struct evhttp *http;
    struct evbuffer *reply; /* reused: evhttp_send_reply moves its contents out */
    char *scratch;          /* the body being written */
    pthread_t thread;
    int index;              /* which loop, for request ids */
    uint64_t requests;      /* requests answered, for request ids */
} worker_t;

/* A detail request waiting for the slow store. */
typedef struct {
    worker_t *worker;
    struct evhttp_request *request;
    struct event timer;
    struct timespec start;
    uint64_t id;
} pending_t;

static const char json_type[] = "application/json; charset=utf-8";

/* EntityTag (HTTP/EntityTag.swift): the catalog version and the inputs a body is a function of, hashed; written
   as "v<version>-<16 hex digits>". The version is inputs[0]; this server's catalog never changes, so it is 1. */
static void put_etag(char out[48], int count, const uint64_t *inputs) {
    uint64_t hash = 0x4C53455441470002ULL;
    for (int i = 0; i < count; i++) hash = mix64((hash ^ inputs[i]) + GAMMA);
    snprintf(out, 48, "\"v%llu-%016llx\"", (unsigned long long)inputs[0], (unsigned long long)hash);
}

/* The fields ListServer adds to every routed answer (listserver-fields.h), with no-cache and `vary`. */
static void add_common_headers(worker_t *w, struct evhttp_request *req, const char *vary) {
    listserver_add_fields(req, w->index, ++w->requests, "no-cache", vary);
}

/* ListServer's JSON answers (up to 256 KiB) vary by Accept-Encoding (a client without one gets the identity body and
   this field), and every answer by Origin. */
static const char json_vary[] = "Accept-Encoding, Origin";

/* Sends status and body (none on the wire for HEAD, with the Content-Length GET would have), with the common fields and
   `vary`. */
static void reply(worker_t *w, struct evhttp_request *req, int status, const char *reason, const char *body,
                  size_t length, const char *vary) {
    add_common_headers(w, req, vary);
    if (evhttp_request_get_command(req) == EVHTTP_REQ_HEAD) {
        char digits[24];
        *put_u64(digits, length) = '\0';
        evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Length", digits);
        evhttp_send_reply(req, status, reason, NULL);
        return;
    }
    evbuffer_add(w->reply, body, length);
    evhttp_send_reply(req, status, reason, w->reply);
}

/* An RFC 9457 problem+json answer (worded more tersely than ListServer's). */
static void problem(worker_t *w, struct evhttp_request *req, int status, const char *reason, const char *type,
                    const char *detail) {
    struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
    evhttp_add_header(headers, "Content-Type", "application/problem+json");
    if (status == 405) evhttp_add_header(headers, "Allow", "GET, HEAD, OPTIONS");
    int length = snprintf(w->scratch, 1024,
                          "{\"type\":\"urn:listserver:problem:%s\",\"title\":\"%s\",\"status\":%d,\"detail\":\"%s\"}",
                          type, reason, status, detail);
    reply(w, req, status, reason, w->scratch, (size_t)length, json_vary);
}

/* A plain decimal integer (digits only, at least one, fitting 64 bits). */
static int parse_decimal(const char *s, size_t n, uint64_t *out) {
    uint64_t value = 0;
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, (uint64_t)(s[i] - '0'), &value))
            return 0;
    }
    *out = value;
    return 1;
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Query-component decoding (%XX, '+' as space) into out[cap]; the length, or -1 (malformed, %00, too long). */
static long decode_component(const char *s, size_t n, char *out, size_t cap) {
    size_t length = 0;
    for (size_t i = 0; i < n; i++) {
        if (length == cap) return -1;
        char c = s[i];
        if (c == '+') {
            c = ' ';
        } else if (c == '%') {
            if (i + 2 >= n) return -1;
            int high = hex_value(s[i + 1]), low = hex_value(s[i + 2]);
            if (high < 0 || low < 0 || (high | low) == 0) return -1;
            c = (char)(high * 16 + low);
            i += 2;
        }
        out[length++] = c;
    }
    return (long)length;
}

/* GET /items?page=P&limit=L */
static void handle_items(worker_t *w, struct evhttp_request *req, const char *query) {
    uint64_t values[2] = {1, config.default_limit};
    int seen[2] = {0, 0};
    static const char *const names[2] = {"page", "limit"};
    const uint64_t maxima[2] = {MAXIMUM_COUNT, config.max_limit};
    for (const char *pair = query; pair != NULL && *pair != '\0';) {
        const char *amp = strchr(pair, '&');
        size_t pair_length = amp ? (size_t)(amp - pair) : strlen(pair);
        const char *equals = memchr(pair, '=', pair_length);
        size_t name_length = equals ? (size_t)(equals - pair) : pair_length;
        const char *raw_value = equals ? equals + 1 : pair + pair_length;
        size_t raw_value_length = (size_t)(pair + pair_length - raw_value);
        char name[16], value[256];
        long n = decode_component(pair, name_length, name, sizeof name);
        long v = decode_component(raw_value, raw_value_length, value, sizeof value);
        if (pair_length > 0 && (v < 0 || (n < 0 && name_length < sizeof name))) {
            problem(w, req, 400, "Bad Request", "invalid-request-target", "a query parameter does not decode");
            return;
        }
        for (int k = 0; pair_length > 0 && k < 2; k++) {
            if (n != (long)strlen(names[k]) || memcmp(name, names[k], (size_t)n) != 0) continue;
            uint64_t number;
            if (seen[k] || !parse_decimal(value, (size_t)v, &number) || number < 1 || number > maxima[k]) {
                problem(w, req, 400, "Bad Request", "invalid-parameter", "page or limit is invalid");
                return;
            }
            seen[k] = 1;
            values[k] = number;
        }
        pair = amp ? amp + 1 : NULL;
    }
    page_t page = make_page(values[0], values[1], config.item_count);
    char link[256];
    char total[24];
    format_link_header(link, &page);
    *put_u64(total, page.total) = '\0';
    struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
    evhttp_add_header(headers, "Content-Type", json_type);
    evhttp_add_header(headers, "X-Total-Count", total);
    evhttp_add_header(headers, "Link", link);
    char etag[48];
    uint64_t etag_inputs[] = {1, config.seed, config.item_count, 1, values[0], values[1], 0};
    put_etag(etag, 7, etag_inputs);
    evhttp_add_header(headers, "ETag", etag);
    char *end = put_page(w->scratch, &page);
    reply(w, req, 200, "OK", w->scratch, (size_t)(end - w->scratch), json_vary);
}

/* The id segment of /items/<id>...: 1 when valid; otherwise answers 400 or 404 and returns 0. */
static int item_id(worker_t *w, struct evhttp_request *req, const char *s, size_t n, uint64_t *id) {
    if (!parse_decimal(s, n, id)) {
        problem(w, req, 400, "Bad Request", "invalid-id", "the item id is not a plain decimal integer");
        return 0;
    }
    if (*id >= config.item_count) {
        problem(w, req, 404, "Not Found", "not-found", "there is no such item");
        return 0;
    }
    return 1;
}

/* Whether any header field called `name` lists the directive `token` (comma-separated, any case). */
static int lists_directive(struct evkeyvalq *headers, const char *name, const char *token, int *present) {
    size_t token_length = strlen(token);
    struct evkeyval *field;
    TAILQ_FOREACH(field, headers, next) {
        if (strcasecmp(field->key, name) != 0) continue;
        *present = 1;
        for (const char *p = field->value; *p != '\0';) {
            while (*p == ' ' || *p == '\t' || *p == ',') p++;
            const char *start = p;
            while (*p != '\0' && *p != ',' && *p != '=') p++;
            const char *end = p;
            while (end > start && (end[-1] == ' ' || end[-1] == '\t')) end--;
            if ((size_t)(end - start) == token_length && strncasecmp(start, token, token_length) == 0) return 1;
            while (*p != '\0' && *p != ',') p++;
        }
    }
    return 0;
}

/* Answers a detail from a cache entry: HIT, or MISS with how long the store took. */
static void reply_detail(worker_t *w, struct evhttp_request *req, uint64_t id, const cache_entry *entry,
                         const char *server_timing) {
    struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
    evhttp_add_header(headers, "Content-Type", json_type);
    evhttp_add_header(headers, "X-Cache", server_timing ? "MISS" : "HIT");
    if (server_timing) evhttp_add_header(headers, "Server-Timing", server_timing);
    char etag[48];
    uint64_t etag_inputs[] = {1, config.seed, 4, id};
    put_etag(etag, 4, etag_inputs);
    evhttp_add_header(headers, "ETag", etag);
    char *p = PUT_LITERAL(w->scratch, "{\"id\":");
    p = put_u64(p, id);
    p = PUT_LITERAL(p, ",\"amount\":");
    p = stpcpy(p, entry->text);
    *p++ = '}';
    reply(w, req, 200, "OK", w->scratch, (size_t)(p - w->scratch), json_vary);
}

/* The store answered: cache the detail and send it with Server-Timing (Router.milliseconds: tenths, no ".0"). */
static void detail_fetched(evutil_socket_t fd, short what, void *arg) {
    (void)fd;
    (void)what;
    pending_t *pending = arg;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t nanoseconds = (int64_t)(now.tv_sec - pending->start.tv_sec) * 1000000000 + (now.tv_nsec - pending->start.tv_nsec);
    int64_t tenths = nanoseconds > 0 ? (nanoseconds + 50000) / 100000 : 0;
    char timing[48];
    char *p = put_u64(PUT_LITERAL(timing, "store;dur="), (uint64_t)(tenths / 10));
    if (tenths % 10 != 0) p = put_u64(PUT_LITERAL(p, "."), (uint64_t)(tenths % 10));
    *p = '\0';

    cache_entry entry = {pending->id + 1, amount_of(pending->id), {0}};
    format_double(entry.text, sizeof entry.text, entry.amount);
    cache_put(&entry);
    reply_detail(pending->worker, pending->request, pending->id, &entry, timing);
    free(pending);
}

/* GET /items/<id>/detail: a hit answers at once; a miss or a bypass waits the store latency on a timer. */
static void handle_detail(worker_t *w, struct evhttp_request *req, uint64_t id) {
    struct evkeyvalq *headers = evhttp_request_get_input_headers(req);
    int has_cache_control = 0, has_pragma = 0;
    int bypass = lists_directive(headers, "Cache-Control", "no-cache", &has_cache_control);
    if (!has_cache_control) bypass = lists_directive(headers, "Pragma", "no-cache", &has_pragma);
    cache_entry entry;
    if (!bypass && cache_get(id, &entry)) {
        reply_detail(w, req, id, &entry, NULL);
        return;
    }
    pending_t *pending = malloc(sizeof *pending);
    if (pending == NULL) {
        problem(w, req, 503, "Service Unavailable", "store-unavailable", "out of memory");
        return;
    }
    pending->worker = w;
    pending->request = req;
    pending->id = id;
    clock_gettime(CLOCK_MONOTONIC, &pending->start);
    struct timeval latency = {config.latency_ms / 1000, (config.latency_ms % 1000) * 1000};
    event_assign(&pending->timer, w->base, -1, 0, detail_fetched, pending);
    event_add(&pending->timer, &latency);
}

/* Every request: route on the raw path; the query is read by /items only. */
static void handle_request(struct evhttp_request *req, void *arg) {
    worker_t *w = arg;
    const char *uri = evhttp_request_get_uri(req);
    if (uri[0] != '/') {
        problem(w, req, 400, "Bad Request", "invalid-request-target", "the request target must start with /");
        return;
    }
    const char *query = strchr(uri, '?');
    size_t path_length = query ? (size_t)(query - uri) : strlen(uri);
    enum { ITEMS, ITEM, DETAIL, IMAGE, NONE } route = NONE;
    const char *id_start = uri + 7;
    size_t id_length = 0;
    if (path_length == 6 && memcmp(uri, "/items", 6) == 0) {
        route = ITEMS;
    } else if (path_length > 7 && memcmp(uri, "/items/", 7) == 0) {
        const char *slash = memchr(id_start, '/', path_length - 7);
        id_length = slash ? (size_t)(slash - id_start) : path_length - 7;
        if (slash == NULL)
            route = ITEM;
        else if (id_length > 0 && (size_t)(uri + path_length - slash) == 7 && memcmp(slash, "/detail", 7) == 0)
            route = DETAIL;
        else if (id_length > 0 && image_bytes && (size_t)(uri + path_length - slash) == 6 &&
                 memcmp(slash, "/image", 6) == 0)
            route = IMAGE;
    }
    if (route == NONE) {
        problem(w, req, 404, "Not Found", "not-found", "there is no resource at this path");
        return;
    }
    enum evhttp_cmd_type method = evhttp_request_get_command(req);
    if (method != EVHTTP_REQ_GET && method != EVHTTP_REQ_HEAD) {
        problem(w, req, 405, "Method Not Allowed", "method-not-allowed", "use GET or HEAD");
        return;
    }
    uint64_t id;
    switch (route) {
    case ITEMS:
        handle_items(w, req, query ? query + 1 : NULL);
        break;
    case ITEM:
        if (item_id(w, req, id_start, id_length, &id)) {
            evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", json_type);
            char *end = put_item(w->scratch, id);
            reply(w, req, 200, "OK", w->scratch, (size_t)(end - w->scratch), json_vary);
        }
        break;
    case DETAIL:
        if (item_id(w, req, id_start, id_length, &id)) handle_detail(w, req, id);
        break;
    case IMAGE:
        if (item_id(w, req, id_start, id_length, &id)) {
            /* The fields ListServer's image hit has (Server-Timing only on a miss). */
            struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
            char etag[48], disposition[80];
            uint64_t etag_inputs[] = {1, 5, id, 600, 400};
            put_etag(etag, 5, etag_inputs);
            snprintf(disposition, sizeof disposition, "inline; filename=\"%llu-600x400.jpg\"", (unsigned long long)id);
            evhttp_add_header(headers, "X-Cache", "HIT");
            evhttp_add_header(headers, "ETag", etag);
            evhttp_add_header(headers, "Accept-Ranges", "bytes");
            evhttp_add_header(headers, "Content-Type", "image/jpeg");
            evhttp_add_header(headers, "Content-Disposition", disposition);
            reply(w, req, 200, "OK", image_bytes, image_length, "Accept, Origin");
        }
        break;
    case NONE:
        break;
    }
}

/* ---------------------------------------------------------------- sockets, threads, main */

static int bound_socket(const struct addrinfo *address, int port, int reuse_port) {
    struct sockaddr_storage storage;
    memcpy(&storage, address->ai_addr, address->ai_addrlen);
    if (storage.ss_family == AF_INET6)
        ((struct sockaddr_in6 *)&storage)->sin6_port = htons((uint16_t)port);
    else
        ((struct sockaddr_in *)&storage)->sin_port = htons((uint16_t)port);
    int fd = socket(address->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int on = 1;
    /* TCP_NODELAY, which Linux hands on to the accepted sockets: without it a 33 KB answer (a photo, issue 35),
     * written by libevent in 16 KB pieces, waited out the client's delayed ACK on its last piece (Nagle): 43 ms an
     * answer, 1,455 hits a second against ListServer's 39,000. ListServer's own writes did not meet it. */
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0 ||
        (reuse_port && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) != 0) ||
        bind(fd, (struct sockaddr *)&storage, address->ai_addrlen) != 0) {
        fprintf(stderr, "evhttp-baseline: cannot bind %s:%d: %s\n", config.host, port, strerror(errno));
        exit(71);
    }
    return fd;
}

/* As ListServer: a probe socket without SO_REUSEPORT claims the port (and learns it for port 0), then one
 * SO_REUSEPORT socket per loop, each with a backlog of 1024. */
static void open_listeners(int *fds, int count) {
    struct addrinfo hints = {0}, *address;
    hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
    hints.ai_socktype = SOCK_STREAM;
    int status = getaddrinfo(config.host, NULL, &hints, &address);
    if (status != 0) {
        fprintf(stderr, "evhttp-baseline: %s: %s\n", config.host, gai_strerror(status));
        exit(64);
    }
    int probe = bound_socket(address, config.port, 0);
    struct sockaddr_storage bound;
    socklen_t length = sizeof bound;
    getsockname(probe, (struct sockaddr *)&bound, &length);
    config.port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                                    : ((struct sockaddr_in *)&bound)->sin_port);
    close(probe);
    for (int i = 0; i < count; i++) {
        fds[i] = bound_socket(address, config.port, 1);
        if (listen(fds[i], 1024) != 0 || evutil_make_socket_nonblocking(fds[i]) != 0) {
            perror("listen");
            exit(71);
        }
    }
    freeaddrinfo(address);
}

static void *run_loop(void *arg) {
    event_base_dispatch(((worker_t *)arg)->base);
    return NULL;
}

static void start_worker(worker_t *w, int fd) {
    struct event_config *event_config = event_config_new();
    /* The flags ListServer's loops use (EventLoop.swift), the change list included: it saves this server two
     * epoll_ctl calls of its four a request (issue 32). */
    event_config_set_flag(event_config,
                          EVENT_BASE_FLAG_PRECISE_TIMER | EVENT_BASE_FLAG_NOLOCK | EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
    w->base = event_base_new_with_config(event_config);
    event_config_free(event_config);
    w->http = w->base ? evhttp_new(w->base) : NULL;
    w->reply = evbuffer_new();
    w->scratch = malloc(1024 + 512 * (size_t)config.max_limit);
    if (w->http == NULL || w->reply == NULL || w->scratch == NULL) {
        fprintf(stderr, "evhttp-baseline: cannot create an event loop\n");
        exit(71);
    }
    evhttp_set_allowed_methods(w->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT |
                                            EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE |
                                            EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH);
    evhttp_set_default_content_type(w->http, NULL);
    evhttp_set_gencb(w->http, handle_request, w);
    if (evhttp_accept_socket_with_handle(w->http, fd) == NULL) {
        fprintf(stderr, "evhttp-baseline: evhttp_accept_socket_with_handle failed\n");
        exit(71);
    }
}

static uint64_t number_argument(const char *flag, const char *text, uint64_t maximum) {
    uint64_t value;
    if (text == NULL || !parse_decimal(text, strlen(text), &value) || value > maximum) {
        fprintf(stderr, "evhttp-baseline: %s needs an integer in 0...%" PRIu64 "\n", flag, maximum);
        exit(64);
    }
    return value;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        i++;
        if (strcmp(flag, "--host") == 0 && value) config.host = value;
        else if (strcmp(flag, "--port") == 0) config.port = (int)number_argument(flag, value, 65535);
        else if (strcmp(flag, "--threads") == 0) config.threads = (int)number_argument(flag, value, 256);
        else if (strcmp(flag, "--seed") == 0) config.seed = number_argument(flag, value, INT64_MAX);
        else if (strcmp(flag, "--item-count") == 0) config.item_count = number_argument(flag, value, MAXIMUM_COUNT);
        else if (strcmp(flag, "--latency-ms") == 0) config.latency_ms = (int)number_argument(flag, value, 600000);
        else if (strcmp(flag, "--cache-capacity") == 0) config.cache_capacity = number_argument(flag, value, 10000000);
        else if (strcmp(flag, "--max-limit") == 0) config.max_limit = number_argument(flag, value, 10000);
        else if (strcmp(flag, "--image-file") == 0 && value) config.image_path = value;
        else if (strcmp(flag, "--placeholders") == 0 && value) config.placeholders_path = value;
        else {
            fprintf(stderr,
                    "usage: evhttp-baseline [--host 127.0.0.1] [--port 8080] [--threads 2] [--seed 42]\n"
                    "       [--item-count 10000] [--latency-ms 1000] [--cache-capacity 100000] [--max-limit 100]\n"
                    "       [--image-file PATH] [--placeholders PATH]\n");
            return 64;
        }
    }
    if (config.placeholders_path != NULL) read_placeholders(config.placeholders_path);
    if (config.threads < 1 || config.cache_capacity < 1 || config.max_limit < config.default_limit) {
        fprintf(stderr, "evhttp-baseline: --threads, --cache-capacity must be >= 1, --max-limit >= 20\n");
        return 64;
    }
    if (config.image_path) {
        FILE *file = fopen(config.image_path, "rb");
        if (!file || fseek(file, 0, SEEK_END) != 0) {
            fprintf(stderr, "evhttp-baseline: cannot read %s\n", config.image_path);
            return 66;
        }
        image_length = (size_t)ftell(file);
        rewind(file);
        image_bytes = malloc(image_length ? image_length : 1);
        if (!image_bytes || fread(image_bytes, 1, image_length, file) != image_length) {
            fprintf(stderr, "evhttp-baseline: cannot read %s\n", config.image_path);
            return 66;
        }
        fclose(file);
    }
    key_author = mix64(config.seed ^ SALT_AUTHOR);
    key_size = mix64(config.seed ^ SALT_SIZE);
    key_color = mix64(config.seed ^ SALT_COLOR);
    key_likes = mix64(config.seed ^ SALT_LIKES);
    key_amount = mix64(config.seed ^ SALT_AMOUNT);
    encode_authors();
    cache_init();

    /* SIGPIPE ignored; SIGTERM and SIGINT blocked in every thread and awaited by this one. */
    signal(SIGPIPE, SIG_IGN);
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);

    int *fds = calloc((size_t)config.threads, sizeof *fds);
    worker_t *workers = calloc((size_t)config.threads, sizeof *workers);
    open_listeners(fds, config.threads);
    for (int i = 0; i < config.threads; i++) {
        workers[i].index = i;
        start_worker(&workers[i], fds[i]);
    }
    for (int i = 0; i < config.threads; i++) pthread_create(&workers[i].thread, NULL, run_loop, &workers[i]);
    printf("listening on %s:%d threads=%d seed=%" PRIu64 " items=%" PRIu64 " latency=%dms\n", config.host,
           config.port, config.threads, config.seed, config.item_count, config.latency_ms);
    fflush(stdout);

    int signal_number;
    sigwait(&stop, &signal_number);
    return 0;
}
