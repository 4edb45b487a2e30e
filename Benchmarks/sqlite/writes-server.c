/*
 * writes-server: the C HTTP baseline for ListServer's durable writes (issue 12).
 *
 * Why it exists: Benchmarks/sqlite/inserts.c does SQLiteStore's inserts with no HTTP at all, so at 16 and 64
 * clients it measures SQLite's CPU rather than the disk, and at one client with synchronous=NORMAL it commits
 * faster than any HTTP round trip over loopback allows. This program is the comparison "against a C program doing
 * the same work": a plain libevent evhttp server that takes POST /items over HTTP, groups the writes, commits them
 * with inserts.c's statements, and answers each 201 once its group is durable, as ListServer does.
 *
 * Structure (ListServer's, and Benchmarks/baseline/evhttp-baseline.c's): N loop threads (2 by default), each with
 * its own event_base and evhttp, accepting on its own SO_REUSEPORT socket bound to the same port; and ONE SQLite
 * writer thread. A loop never calls SQLite and the writer never touches evhttp:
 *
 *   loop:   POST /items -> checks the body -> queues the write (a mutex-guarded list; the writer's condition
 *           variable is signalled only when it sleeps) and returns; the request stays pending in evhttp.
 *   writer: takes everything queued when it wakes as one group; gives each write the next id and change sequence,
 *           commits the group (below); formats the group's events once and hands them to every loop that has an
 *           event stream; then hands each write back to the loop that took it (per-loop queues, and one eventfd
 *           write per loop per group, when its queues were empty).
 *   loop:   its eventfd's EV_PERSIST read event sends the events handed over to each of its streams, then answers
 *           every write handed back: 201 Created with Location, ETag, Content-Type and the item's JSON (503
 *           problem+json when the commit failed and was rolled back).
 *
 * Event streams (GET /items/events), the C yardstick for ListServer's fan-out (Benchmarks/writes/run.sh, step
 * fanout): the same bytes as ListServer's stream (its headers, `retry: 2000`, then per committed create
 * "event: created\nid: <change sequence>\ndata: <the 201's JSON>\n\n", one chunk each) and the same order: a
 * group's events are handed to the loops before its 201s, so the loop that took a POST sends the fan-out before
 * the answer (ListServer hands a commit's changes to its feed before it answers). --answer-first reverses that,
 * to measure what the order costs the 201. Each loop keeps its own list of streams; the writer never touches
 * evhttp. A stream is evhttp's chunked reply (evhttp_send_reply_start, evhttp_send_reply_chunk per event), pushed
 * to the kernel at once with one writev per stream per wake-up, as ListServer's connection filter does; the base's
 * epoll changelist keeps evhttp's EV_WRITE enable (and the disable after the push) from costing an epoll_ctl each.
 * A closed connection removes its stream (evhttp_connection_set_closecb); a subscriber more than 1 MiB behind is
 * dropped (ListServer's events.max_buffer_bytes), its socket's send buffer capped at 64 KiB as ListServer's.
 * Left out, because the benchmark does not need them: heartbeats (ListServer sends a `:` comment every 15 s; a
 * fanout run is far shorter and evhttp sets no timeouts on incoming connections), replay (Last-Event-ID or
 * ?since=: a stream sees the commits from its opening on, and one that opens while a group is being handed over
 * may miss that group), lists other than the default, and ending streams at shutdown (the process just exits).
 * The soft RLIMIT_NOFILE is raised to the hard limit, so 5,000 subscribers fit; evhttp has no connection limit.
 *
 * One group, one transaction, the statements of SQLiteStore's commit path (Sources/ListServer/SQLite/
 * SQLiteListTables+Commit.swift) with the same SQL text as inserts.c, prepared once, WAL, synchronous FULL|NORMAL:
 *
 *   BEGIN IMMEDIATE
 *   per write: INSERT OR REPLACE INTO items ...   (the label; the other fields NULL: generated; revision = sequence)
 *              INSERT INTO changes ...            (a "created" change holding the whole item)
 *   once:      INSERT INTO lists ... ON CONFLICT (name) DO UPDATE ...  (the header: next_id, last_sequence)
 *              DELETE FROM changes WHERE list = ? AND sequence <= ?     (only when more than changes_kept)
 *   COMMIT
 *
 * Keep the three in sync: a change to the store's statements belongs in inserts.c and here. Like inserts.c, this
 * program writes no idempotency records and skips the store's occasional pruning of them (an empty table here).
 * Unlike inserts.c, the change row holds the item's generated fields (author, size, color, likes from seed and id,
 * as Sources/ListDomain generates them, the code copied from evhttp-baseline.c), as the store's does: the 201's
 * body is then byte for byte what ListServer answers for the same label and id.
 *
 * The list is ListServer's default list: --item-count (10,000) generated items, so the first POST gets id 10000.
 * next_id lives in the writer's memory and is persisted in the list's header row each commit, as inserts.c does.
 *
 * Routes (anything else 404; another method 405):
 *   POST /items      body {"label":"..."} with Content-Type application/json (parameters allowed; else 415), at
 *                    most --max-body-bytes (64 KiB; else evhttp's 413). The body must be one JSON object whose only
 *                    member is "label", a string of 1 to 500 characters (Unicode scalars here; ListServer counts
 *                    grapheme clusters, the same for every label of the benchmark), with JSON's escapes decoded
 *                    (surrogate pairs joined, lone surrogates refused) and valid UTF-8; anything else is 400.
 *   GET|HEAD /items  200 with X-Total-Count: item count + committed writes (what run.sh's check reads); the body
 *                    is only {"total":N}, no page.
 *   GET /items/events  200 text/event-stream, the committed creates from now on (above).
 *   GET /metrics     counters in Prometheus text: writes_server_created_total (201s answered),
 *                    writes_server_commits_total, writes_server_commit_writes_total (their ratio is the average
 *                    group), writes_server_commit_seconds_sum (BEGIN to the end of COMMIT), writes_server_items_total,
 *                    writes_server_streams_{opened,closed,dropped}_total, writes_server_events_sent_total (events
 *                    times streams).
 * On SIGTERM or SIGINT it prints the same counters and the average group on stderr and exits at once (0), without
 * waiting for a group in flight (committed data survives in the WAL; a half-done group is rolled back by SQLite).
 *
 * Build: cc -O2 -Wall -Wextra -o writes-server writes-server.c -levent -lsqlite3 -lpthread
 * Run:   writes-server --data-path PATH [--synchronous full|normal] [--host 127.0.0.1] [--port 8080] [--threads 2]
 *                      [--changes-kept 100000] [--seed 42] [--item-count 10000] [--max-body-bytes 65536]
 *                      [--answer-first]
 *        PATH is replaced (with its -wal and -shm files), as inserts.c does. Prints "listening on HOST:PORT" once
 *        every loop accepts. Benchmarks/writes/run.sh's writes step runs it next to ListServer and inserts.c, its
 *        fanout step next to ListServer's fan-out, in both orders.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../baseline/listserver-fields.h"

/* ---------------------------------------------------------------- configuration */

static struct {
    const char *host;
    int port;
    int threads;
    const char *data_path;
    int full; /* synchronous FULL, else NORMAL */
    int64_t changes_kept;
    uint64_t seed;
    uint64_t item_count;
    size_t max_body;
    int answer_first; /* hand a group's 201s back before its events (ListServer: events first) */
} config = {"127.0.0.1", 8080, 2, NULL, 1, 100000, 42, 10000, 65536, 0};

#define MAXIMUM_COUNT (UINT64_C(1) << 53)
#define LABEL_MAXIMUM 500 /* ItemOverrides.Limits.labelLength */

/* ---------------------------------------------------------------- generation (ListDomain, as evhttp-baseline.c) */

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

static uint64_t key_author, key_size, key_color, key_likes;

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

/* The generated fields of an item (Catalog's), which a POST with only a label keeps. */
typedef struct {
    int author;
    int width, height;
    char color[8]; /* "#rrggbb" */
    uint64_t likes;
} fields_t;

static void generate(uint64_t id, fields_t *f) {
    static const char hex[] = "0123456789abcdef";
    f->author = (int)(splitmix_output(key_author, id) >> 58);
    uint64_t size_hash = splitmix_output(key_size, id);
    const int *size = landscape_sizes[size_hash & 0xF];
    int portrait = ((size_hash >> 8) & 0xFF) < 77;
    f->width = portrait ? size[1] : size[0];
    f->height = portrait ? size[0] : size[1];
    uint32_t color = (uint32_t)(splitmix_output(key_color, id) >> 40);
    f->color[0] = '#';
    for (int i = 0, shift = 20; shift >= 0; i++, shift -= 4) f->color[1 + i] = hex[(color >> shift) & 0xF];
    f->color[7] = '\0';
    uint64_t uniform = splitmix_output(key_likes, id) >> 32;
    uint64_t squared = (uniform * uniform) >> 32;
    f->likes = (squared * 10001) >> 32;
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

/* A JSON string, quotes included, as JSONWriter.append(string:) writes it: " and \ escaped, controls as \u00XX. */
static char *put_json_string(char *p, const char *s, size_t n) {
    static const char hex[] = "0123456789ABCDEF";
    *p++ = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            *p++ = '\\';
            *p++ = (char)c;
        } else if (c < 0x20) {
            p = PUT_LITERAL(p, "\\u00");
            *p++ = hex[c >> 4];
            *p++ = hex[c & 0xF];
        } else {
            *p++ = (char)c;
        }
    }
    *p++ = '"';
    return p;
}

/* ---------------------------------------------------------------- the write queue and the loops */

/* One POST: queued by its loop, committed by the writer, answered by its loop. */
typedef struct write_s {
    struct write_s *next;
    struct worker_s *worker;
    struct evhttp_request *request;
    uint64_t id, sequence; /* set by the writer */
    fields_t fields;       /* set by the writer */
    int status;            /* 201, or 503 when the group's commit failed */
    size_t label_length;
    char label[]; /* the decoded label, UTF-8 */
} write_t;

/* One group's events, formatted once by the writer ("event: created\nid: S\ndata: ITEM\n\n" each, one after the
 * other in `bytes`) and shared by every loop it is handed to; the last loop done with it frees it. */
typedef struct {
    int references; /* loops that still have to send it (atomic) */
    int count;
    struct {
        size_t offset, length;
    } *events; /* points into the same allocation */
    char bytes[];
} batch_t;

/* A batch handed to one loop: a node in that loop's queue. */
typedef struct delivery_s {
    struct delivery_s *next;
    batch_t *batch;
} delivery_t;

/* One open GET /items/events: a chunked evhttp reply that stays open, in its loop's list. Loop thread only. */
typedef struct stream_s {
    struct stream_s *previous, *next;
    struct worker_s *worker;
    struct evhttp_request *request;
    struct evhttp_connection *connection;
    struct bufferevent *bufferevent; /* the connection's, for its output backlog and its socket */
    int fd;
} stream_t;

/* One event loop: its own event_base, evhttp and listening socket. Only `lock`, the `done` and `deliveries`
 * queues and `stream_count` (read by the writer) are shared. */
typedef struct worker_s {
    struct event_base *base;
    struct evhttp *http;
    struct evbuffer *reply; /* reused: evhttp_send_reply moves its contents out */
    char *scratch;          /* bodies being written, labels and keys being decoded */
    pthread_t thread;
    int index;         /* which loop, for request ids */
    uint64_t requests; /* requests answered, for request ids */
    int wake_fd;       /* eventfd: the writer handed writes back */
    struct event *wake;
    pthread_mutex_t lock; /* guards done_head, done_tail, deliveries_head, deliveries_tail */
    write_t *done_head, **done_tail;
    delivery_t *deliveries_head, **deliveries_tail;
    stream_t *streams; /* open streams of this loop, newest first */
    int stream_count;  /* written by the loop, read by the writer (atomic) */
} worker_t;

/* Writes waiting for the writer, oldest first. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    write_t *head, **tail;
    int sleeping; /* the writer waits on `wake` */
} queue = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, &queue.head, 0};

/* Counters, written with relaxed atomics (the writer's by the writer alone) and read by /metrics and at exit. */
static uint64_t stat_created, stat_commits, stat_commit_writes, stat_commit_ns, stat_items;
static uint64_t stat_streams_opened, stat_streams_closed, stat_streams_dropped, stat_events_sent;

#define ATOMIC_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ATOMIC_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* The item's JSON as ListServer writes it, both the 201's body and an event's data: {"id":..,"label":..,..}.
 * Writes at most ITEM_JSON_MAXIMUM(label_length) bytes. */
#define ITEM_JSON_MAXIMUM(label_length) (6 * (label_length) + 512)

static char *put_item_json(char *p, const write_t *write) {
    const fields_t *f = &write->fields;
    const char *author = author_names[f->author];
    p = PUT_LITERAL(p, "{\"id\":");
    p = put_u64(p, write->id);
    p = PUT_LITERAL(p, ",\"label\":");
    p = put_json_string(p, write->label, write->label_length);
    p = PUT_LITERAL(p, ",\"author\":");
    p = put_json_string(p, author, strlen(author));
    p = PUT_LITERAL(p, ",\"width\":");
    p = put_u64(p, (uint64_t)f->width);
    p = PUT_LITERAL(p, ",\"height\":");
    p = put_u64(p, (uint64_t)f->height);
    p = PUT_LITERAL(p, ",\"color\":\"");
    p = stpcpy(p, f->color);
    p = PUT_LITERAL(p, "\",\"likes\":");
    p = put_u64(p, f->likes);
    p = PUT_LITERAL(p, ",\"image_url\":\"/items/");
    p = put_u64(p, write->id);
    p = PUT_LITERAL(p, "/image\"}");
    return p;
}

static void enqueue(write_t *write) {
    write->next = NULL;
    pthread_mutex_lock(&queue.lock);
    *queue.tail = write;
    queue.tail = &write->next;
    if (queue.sleeping) pthread_cond_signal(&queue.wake);
    pthread_mutex_unlock(&queue.lock);
}

/* ---------------------------------------------------------------- SQLite (the writer thread alone) */

static sqlite3 *db;
static sqlite3_stmt *begin_statement, *commit_statement, *rollback_statement;
static sqlite3_stmt *item_statement, *change_statement, *header_statement, *prune_statement;
static uint64_t next_id, last_sequence;

static void die(const char *what) {
    fprintf(stderr, "writes-server: %s: %s (extended code %d)\n", what, db ? sqlite3_errmsg(db) : "no connection",
            db ? sqlite3_extended_errcode(db) : 0);
    exit(1);
}

static void exec(const char *sql) {
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) die(sql);
}

static sqlite3_stmt *prepare(const char *sql) {
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, NULL) != SQLITE_OK) die(sql);
    return statement;
}

/* Steps a statement to its end, then resets it and clears its bindings (inserts.c's run()); 0 on an error. */
static int run(sqlite3_stmt *statement) {
    int status = sqlite3_step(statement);
    int ok = status == SQLITE_DONE || status == SQLITE_ROW;
    if (!ok)
        fprintf(stderr, "writes-server: %s: %s (extended code %d)\n", sqlite3_sql(statement), sqlite3_errmsg(db),
                sqlite3_extended_errcode(db));
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
    return ok;
}

/* SQLiteSchema.migrations[0], as the store creates it (inserts.c's text). */
static const char *schema =
    "CREATE TABLE lists (name TEXT NOT NULL PRIMARY KEY, seed INTEGER NOT NULL, base_count INTEGER NOT NULL,"
    " version INTEGER NOT NULL, next_id INTEGER NOT NULL, last_sequence INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE items (list TEXT NOT NULL, id INTEGER NOT NULL, label TEXT, author TEXT, width INTEGER,"
    " height INTEGER, color INTEGER, likes INTEGER, revision INTEGER, deleted INTEGER NOT NULL,"
    " PRIMARY KEY (list, id)) WITHOUT ROWID;"
    "CREATE TABLE changes (list TEXT NOT NULL, sequence INTEGER NOT NULL, kind TEXT NOT NULL, item_id INTEGER,"
    " label TEXT, author TEXT, width INTEGER, height INTEGER, color TEXT, likes INTEGER, version INTEGER,"
    " seed INTEGER, count INTEGER, blur_hash TEXT, PRIMARY KEY (list, sequence)) WITHOUT ROWID;"
    "CREATE TABLE idempotency (list TEXT NOT NULL, key TEXT NOT NULL, fingerprint BLOB NOT NULL,"
    " answer BLOB NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (list, key)) WITHOUT ROWID;"
    "CREATE INDEX idempotency_by_age ON idempotency (created_at);"
    "PRAGMA user_version = 1;";

/* SQLiteListTables.SQL, the statements of the commit path (inserts.c's text). */
static const char *upsert_item =
    "INSERT OR REPLACE INTO items (list, id, label, author, width, height, color, likes, revision, deleted)\n"
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 0)";
static const char *insert_change =
    "INSERT INTO changes (list, sequence, kind, item_id, label, author, width, height, color, likes,\n"
    "    version, seed, count, blur_hash)\n"
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";
static const char *upsert_header =
    "INSERT INTO lists (name, seed, base_count, version, next_id, last_sequence)\n"
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)\n"
    "ON CONFLICT (name) DO UPDATE SET seed = excluded.seed, base_count = excluded.base_count,\n"
    "    version = excluded.version, next_id = excluded.next_id, last_sequence = excluded.last_sequence";
static const char *prune_changes = "DELETE FROM changes WHERE list = ?1 AND sequence <= ?2";

static const char *list_name = "default";

static void open_store(void) {
    char side[4096];
    unlink(config.data_path);
    snprintf(side, sizeof side, "%s-wal", config.data_path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", config.data_path);
    unlink(side);
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
    if (sqlite3_open_v2(config.data_path, &db, flags, NULL) != SQLITE_OK) die("open");
    sqlite3_busy_timeout(db, 2000);
    exec("PRAGMA journal_mode = WAL");
    exec(config.full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
    exec(schema);
    begin_statement = prepare("BEGIN IMMEDIATE");
    commit_statement = prepare("COMMIT");
    rollback_statement = prepare("ROLLBACK");
    item_statement = prepare(upsert_item);
    change_statement = prepare(insert_change);
    header_statement = prepare(upsert_header);
    prune_statement = prepare(prune_changes);
    next_id = config.item_count;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One transaction for the whole group (inserts.c's loop body); on a failure, rolled back and every write 503. */
static void commit_group(write_t *group, uint64_t count) {
    const int64_t seed = (int64_t)config.seed, base_count = (int64_t)config.item_count, version = 1;
    uint64_t first_id = next_id, first_sequence = last_sequence, start = now_ns();
    int ok = run(begin_statement);
    for (write_t *w = group; ok && w != NULL; w = w->next) {
        w->id = next_id++;
        w->sequence = ++last_sequence;
        generate(w->id, &w->fields);
        int length = (int)w->label_length;
        /* The written item: its label, the other fields generated (NULL). */
        sqlite3_bind_text(item_statement, 1, list_name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(item_statement, 2, (int64_t)w->id);
        sqlite3_bind_text(item_statement, 3, w->label, length, SQLITE_TRANSIENT);
        sqlite3_bind_int64(item_statement, 9, (int64_t)w->sequence);
        ok = run(item_statement);
        if (!ok) break;
        /* Its "created" change, with the whole item as the list then shows it. */
        sqlite3_bind_text(change_statement, 1, list_name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(change_statement, 2, (int64_t)w->sequence);
        sqlite3_bind_text(change_statement, 3, "created", -1, SQLITE_STATIC);
        sqlite3_bind_int64(change_statement, 4, (int64_t)w->id);
        sqlite3_bind_text(change_statement, 5, w->label, length, SQLITE_TRANSIENT);
        sqlite3_bind_text(change_statement, 6, author_names[w->fields.author], -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(change_statement, 7, w->fields.width);
        sqlite3_bind_int64(change_statement, 8, w->fields.height);
        sqlite3_bind_text(change_statement, 9, w->fields.color, 7, SQLITE_TRANSIENT);
        sqlite3_bind_int64(change_statement, 10, (int64_t)w->fields.likes);
        sqlite3_bind_text(change_statement, 14, "LEHV6nWB2yk8pyo0adR*.7kCMdnj", 28, SQLITE_STATIC); /* a BlurHash */
        ok = run(change_statement);
    }
    if (ok) {
        sqlite3_bind_text(header_statement, 1, list_name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(header_statement, 2, seed);
        sqlite3_bind_int64(header_statement, 3, base_count);
        sqlite3_bind_int64(header_statement, 4, version);
        sqlite3_bind_int64(header_statement, 5, (int64_t)next_id);
        sqlite3_bind_int64(header_statement, 6, (int64_t)last_sequence);
        ok = run(header_statement);
    }
    if (ok && (int64_t)last_sequence > config.changes_kept) {
        sqlite3_bind_text(prune_statement, 1, list_name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(prune_statement, 2, (int64_t)last_sequence - config.changes_kept);
        ok = run(prune_statement);
    }
    if (ok) ok = run(commit_statement);
    if (!ok) {
        if (!sqlite3_get_autocommit(db)) run(rollback_statement);
        next_id = first_id;
        last_sequence = first_sequence;
    }
    for (write_t *w = group; w != NULL; w = w->next) w->status = ok ? 201 : 503;
    if (ok) {
        ATOMIC_STORE(stat_commits, stat_commits + 1);
        ATOMIC_STORE(stat_commit_writes, stat_commit_writes + count);
        ATOMIC_STORE(stat_commit_ns, stat_commit_ns + (now_ns() - start));
        ATOMIC_STORE(stat_items, next_id - config.item_count);
    }
}

static worker_t *workers;

/* One eventfd write: the loop's wake-up (called when its queues were empty, so once per loop per group at most). */
static void wake(worker_t *worker) {
    uint64_t one = 1;
    if (write(worker->wake_fd, &one, sizeof one) != sizeof one) {
        perror("write eventfd");
        exit(71);
    }
}

/* The events of a committed group, each formatted once for every stream of every loop; NULL when the commit failed
 * (nothing to tell) or no loop has a stream (nobody to tell). */
static batch_t *format_events(write_t *group, uint64_t count) {
    if (group->status != 201) return NULL;
    int listening = 0;
    for (int i = 0; i < config.threads; i++) listening |= ATOMIC_LOAD(workers[i].stream_count) > 0;
    if (!listening) return NULL;
    size_t size = 0;
    for (write_t *w = group; w != NULL; w = w->next) size += 64 + ITEM_JSON_MAXIMUM(w->label_length);
    size_t events_offset = (sizeof(batch_t) + size + 15) & ~(size_t)15;
    batch_t *batch = malloc(events_offset + count * sizeof *batch->events);
    if (batch == NULL) {
        perror("malloc");
        exit(71);
    }
    batch->events = (void *)((char *)batch + events_offset);
    batch->count = 0;
    char *p = batch->bytes;
    for (write_t *w = group; w != NULL; w = w->next) {
        char *start = p;
        p = PUT_LITERAL(p, "event: created\nid: ");
        p = put_u64(p, w->sequence);
        p = PUT_LITERAL(p, "\ndata: ");
        p = put_item_json(p, w);
        p = PUT_LITERAL(p, "\n\n");
        batch->events[batch->count].offset = (size_t)(start - batch->bytes);
        batch->events[batch->count].length = (size_t)(p - start);
        batch->count++;
    }
    return batch;
}

/* Hands a batch to every loop that has a stream now (one delivery node each, one wake-up when its queues were
 * empty). A stream that opens meanwhile on a loop that had none misses this group: it sees the changes from the
 * next commit on (nothing is replayed here, see the top of the file). */
static void hand_events(batch_t *batch) {
    if (batch == NULL) return;
    worker_t *targets[256];
    int count = 0;
    for (int i = 0; i < config.threads; i++)
        if (ATOMIC_LOAD(workers[i].stream_count) > 0) targets[count++] = &workers[i];
    if (count == 0) {
        free(batch);
        return;
    }
    batch->references = count; /* before any loop can see it */
    for (int i = 0; i < count; i++) {
        worker_t *worker = targets[i];
        delivery_t *delivery = malloc(sizeof *delivery);
        if (delivery == NULL) {
            perror("malloc");
            exit(71);
        }
        delivery->next = NULL;
        delivery->batch = batch;
        pthread_mutex_lock(&worker->lock);
        int was_empty = worker->done_head == NULL && worker->deliveries_head == NULL;
        *worker->deliveries_tail = delivery;
        worker->deliveries_tail = &delivery->next;
        pthread_mutex_unlock(&worker->lock);
        if (was_empty) wake(worker);
    }
}

/* The writer: a group is everything queued when it wakes; each write goes back to the loop that took it. */
static void *run_writer(void *arg) {
    (void)arg;
    write_t **heads = calloc((size_t)config.threads, sizeof *heads);
    write_t ***tails = calloc((size_t)config.threads, sizeof *tails);
    if (heads == NULL || tails == NULL) {
        perror("calloc");
        exit(71);
    }
    for (;;) {
        pthread_mutex_lock(&queue.lock);
        while (queue.head == NULL) {
            queue.sleeping = 1;
            pthread_cond_wait(&queue.wake, &queue.lock);
        }
        queue.sleeping = 0;
        write_t *group = queue.head;
        queue.head = NULL;
        queue.tail = &queue.head;
        pthread_mutex_unlock(&queue.lock);

        uint64_t count = 0;
        for (write_t *w = group; w != NULL; w = w->next) count++;
        commit_group(group, count);

        /* The group's events go to every loop with a stream; its answers to the loops that took its POSTs. The
         * events first, as ListServer hands a commit's changes to the feed before it answers (so a loop sends the
         * fan-out before the 201), unless --answer-first. */
        batch_t *batch = format_events(group, count);
        if (!config.answer_first) hand_events(batch);
        for (int i = 0; i < config.threads; i++) {
            heads[i] = NULL;
            tails[i] = &heads[i];
        }
        for (write_t *w = group, *next; w != NULL; w = next) {
            next = w->next;
            w->next = NULL;
            *tails[w->worker->index] = w;
            tails[w->worker->index] = &w->next;
        }
        for (int i = 0; i < config.threads; i++) {
            if (heads[i] == NULL) continue;
            worker_t *worker = &workers[i];
            pthread_mutex_lock(&worker->lock);
            int was_empty = worker->done_head == NULL && worker->deliveries_head == NULL;
            *worker->done_tail = heads[i];
            worker->done_tail = tails[i];
            pthread_mutex_unlock(&worker->lock);
            if (was_empty) wake(worker);
        }
        if (config.answer_first) hand_events(batch);
    }
    return NULL;
}

/* ---------------------------------------------------------------- HTTP (each loop's own thread) */

static const char json_type[] = "application/json; charset=utf-8";

/* EntityTag's shape, "v<version>-<16 hex digits>", over the inputs (evhttp-baseline.c's put_etag). */
static void put_etag(char out[48], int count, const uint64_t *inputs) {
    uint64_t hash = 0x4C53455441470002ULL;
    for (int i = 0; i < count; i++) hash = mix64((hash ^ inputs[i]) + GAMMA);
    snprintf(out, 48, "\"v%llu-%016llx\"", (unsigned long long)inputs[0], (unsigned long long)hash);
}

/* The fields ListServer adds to every routed answer (../baseline/listserver-fields.h), with the Vary of a JSON answer
   (all of these are). */
static void add_headers(worker_t *w, struct evhttp_request *req, const char *cache_control) {
    listserver_add_fields(req, w->index, ++w->requests, cache_control, "Accept-Encoding, Origin");
}

static void add_common_headers(worker_t *w, struct evhttp_request *req) { add_headers(w, req, "no-cache"); }

/* Sends status and body (none on the wire for HEAD, with the Content-Length GET would have). */
static void reply(worker_t *w, struct evhttp_request *req, int status, const char *reason, const char *body,
                  size_t length) {
    add_common_headers(w, req);
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
    if (status == 405) evhttp_add_header(headers, "Allow", "GET, HEAD, POST");
    if (status == 503) evhttp_add_header(headers, "Retry-After", "1");
    char *p = w->scratch + snprintf(w->scratch, 512, "{\"type\":\"urn:listserver:problem:%s\",\"title\":\"%s\","
                                                     "\"status\":%d,\"detail\":",
                                    type, reason, status);
    p = put_json_string(p, detail, strlen(detail));
    *p++ = '}';
    reply(w, req, status, reason, w->scratch, (size_t)(p - w->scratch));
}

/* Writes handed back by the writer: answer each (201 with the item, or 503), on this loop. */
static void answer(worker_t *w, write_t *done) {
    for (write_t *next; done != NULL; done = next) {
        next = done->next;
        struct evhttp_request *req = done->request;
        if (done->status != 201) {
            problem(w, req, 503, "Service Unavailable", "store-unavailable", "the store could not commit the write");
            free(done);
            continue;
        }
        struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
        char etag[48], location[40];
        uint64_t etag_inputs[] = {1, config.seed, done->id, done->sequence};
        put_etag(etag, 4, etag_inputs);
        *put_u64(PUT_LITERAL(location, "/items/"), done->id) = '\0';
        evhttp_add_header(headers, "Content-Type", json_type);
        evhttp_add_header(headers, "ETag", etag);
        evhttp_add_header(headers, "Location", location);
        char *p = put_item_json(w->scratch, done);
        reply(w, req, 201, "Created", w->scratch, (size_t)(p - w->scratch));
        __atomic_fetch_add(&stat_created, 1, __ATOMIC_RELAXED);
        free(done);
    }
}

/* ---------------------------------------------------------------- event streams (each loop's own thread) */

/* A subscriber whose unsent bytes in its bufferevent pass this is dropped (ListServer's events.max_buffer_bytes),
 * and the kernel's send buffer of a stream's socket is capped (ListServer's streamSocketBuffer; Linux doubles it),
 * so a subscriber that stops reading holds at most about 1.1 MiB of the server's memory. */
#define STREAM_BACKLOG_MAXIMUM (1 << 20)
#define STREAM_SOCKET_BUFFER (64 * 1024)

/* The kernel gets what the stream's bufferevent holds now, as ListServer's ConnectionGuard writes an answer
 * straight to the socket: one writev per stream per wake-up. evhttp_send_reply_chunk enabled the bufferevent's
 * EV_WRITE; once the output is empty it is disabled again, and the base's epoll changelist cancels the pair
 * without an epoll_ctl. What the kernel does not take now (a slow reader) the bufferevent writes when the socket
 * is writable, as it would have; an error is left for it to find (evhttp then closes the connection). */
static void push(stream_t *stream) {
    struct evbuffer *output = bufferevent_get_output(stream->bufferevent);
    if (evbuffer_get_length(output) == 0) return;
    evbuffer_write(output, stream->fd);
    if (evbuffer_get_length(output) == 0) bufferevent_disable(stream->bufferevent, EV_WRITE);
}

/* The stream's connection went away (the client left, or drop() freed it): evhttp calls this from
 * evhttp_connection_free. When the client left, evhttp has detached the streamed request from the connection
 * without freeing it (a reply in progress belongs to its sender): it is freed here; when drop() freed the
 * connection, the request is still on it and evhttp frees it next. */
static void stream_closed(struct evhttp_connection *connection, void *arg) {
    (void)connection;
    stream_t *stream = arg;
    worker_t *w = stream->worker;
    if (stream->previous) stream->previous->next = stream->next;
    else w->streams = stream->next;
    if (stream->next) stream->next->previous = stream->previous;
    ATOMIC_STORE(w->stream_count, w->stream_count - 1);
    if (evhttp_request_get_connection(stream->request) == NULL) evhttp_request_free(stream->request);
    __atomic_fetch_add(&stat_streams_closed, 1, __ATOMIC_RELAXED);
    free(stream);
}

/* Closes the connection of a subscriber that stopped reading. Called from the loop's wake-up, never inside an
 * evhttp callback of the same connection (the retry: chunk, written while the stream opens, cannot pass the
 * bound), so the connection may be freed at once; stream_closed then unlinks and frees the stream. */
static void drop(stream_t *stream) {
    __atomic_fetch_add(&stat_streams_dropped, 1, __ATOMIC_RELAXED);
    evhttp_connection_free(stream->connection);
}

/* GET /items/events: 200 text/event-stream, a chunked reply that stays open; `retry:` first, then the events of
 * every commit from now on (fan_out). The headers are ListServer's for a stream. */
static void handle_events(worker_t *w, struct evhttp_request *req) {
    struct evhttp_connection *connection = evhttp_request_get_connection(req);
    struct bufferevent *bufferevent = connection ? evhttp_connection_get_bufferevent(connection) : NULL;
    stream_t *stream = bufferevent ? calloc(1, sizeof *stream) : NULL;
    if (stream == NULL) {
        problem(w, req, 503, "Service Unavailable", "stream-unavailable", "cannot open a stream");
        return;
    }
    stream->worker = w;
    stream->request = req;
    stream->connection = connection;
    stream->bufferevent = bufferevent;
    stream->fd = bufferevent_getfd(bufferevent);
    int size = STREAM_SOCKET_BUFFER;
    setsockopt(stream->fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    stream->next = w->streams;
    if (w->streams) w->streams->previous = stream;
    w->streams = stream;
    ATOMIC_STORE(w->stream_count, w->stream_count + 1);
    __atomic_fetch_add(&stat_streams_opened, 1, __ATOMIC_RELAXED);
    evhttp_connection_set_closecb(connection, stream_closed, stream);
    struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
    evhttp_add_header(headers, "Content-Type", "text/event-stream; charset=utf-8");
    evhttp_add_header(headers, "X-Accel-Buffering", "no");
    add_headers(w, req, "no-store");
    evhttp_send_reply_start(req, 200, "OK");
    static const char retry[] = "retry: 2000\n\n"; /* ListServer's events.retry (2 s) */
    evbuffer_add(w->reply, retry, sizeof retry - 1);
    evhttp_send_reply_chunk(req, w->reply);
    push(stream);
}

/* A batch of events to every stream of this loop: each event one chunk (the bytes the writer formatted once,
 * copied into the stream's output), then one push per stream. A stream more than STREAM_BACKLOG_MAXIMUM behind is
 * dropped instead (the backlog is measured before this batch is added, as ListServer does). */
static void fan_out(worker_t *w, delivery_t *delivery) {
    for (delivery_t *next; delivery != NULL; delivery = next) {
        next = delivery->next;
        batch_t *batch = delivery->batch;
        for (stream_t *stream = w->streams, *following; stream != NULL; stream = following) {
            following = stream->next; /* drop() frees the stream */
            if (evbuffer_get_length(bufferevent_get_output(stream->bufferevent)) > STREAM_BACKLOG_MAXIMUM) {
                drop(stream);
                continue;
            }
            for (int i = 0; i < batch->count; i++) {
                evbuffer_add(w->reply, batch->bytes + batch->events[i].offset, batch->events[i].length);
                evhttp_send_reply_chunk(stream->request, w->reply);
            }
            push(stream);
            __atomic_fetch_add(&stat_events_sent, (uint64_t)batch->count, __ATOMIC_RELAXED);
        }
        if (__atomic_sub_fetch(&batch->references, 1, __ATOMIC_ACQ_REL) == 0) free(batch);
        free(delivery);
    }
}

/* The writer handed something over: the events of a group (to every stream here) and the answers to this loop's
 * POSTs. Events first, as ListServer sends a commit's fan-out before its 201, unless --answer-first. */
static void handed_over(evutil_socket_t fd, short what, void *arg) {
    (void)what;
    worker_t *w = arg;
    uint64_t count;
    if (read(fd, &count, sizeof count) != sizeof count && errno != EAGAIN) {
        perror("read eventfd");
        exit(71);
    }
    pthread_mutex_lock(&w->lock);
    write_t *done = w->done_head;
    w->done_head = NULL;
    w->done_tail = &w->done_head;
    delivery_t *deliveries = w->deliveries_head;
    w->deliveries_head = NULL;
    w->deliveries_tail = &w->deliveries_head;
    pthread_mutex_unlock(&w->lock);
    if (config.answer_first) answer(w, done);
    fan_out(w, deliveries);
    if (!config.answer_first) answer(w, done);
}

/* ---------------------------------------------------------------- the body: {"label":"..."} */

static const unsigned char *skip_space(const unsigned char *p, const unsigned char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

static int hex_value(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Four hex digits at p (p + 4 <= end), or -1. */
static long hex4(const unsigned char *p, const unsigned char *end) {
    if (end - p < 4) return -1;
    long value = 0;
    for (int i = 0; i < 4; i++) {
        int digit = hex_value(p[i]);
        if (digit < 0) return -1;
        value = value * 16 + digit;
    }
    return value;
}

static unsigned char *put_utf8(unsigned char *out, uint32_t scalar) {
    if (scalar < 0x80) {
        *out++ = (unsigned char)scalar;
    } else if (scalar < 0x800) {
        *out++ = (unsigned char)(0xC0 | scalar >> 6);
        *out++ = (unsigned char)(0x80 | (scalar & 0x3F));
    } else if (scalar < 0x10000) {
        *out++ = (unsigned char)(0xE0 | scalar >> 12);
        *out++ = (unsigned char)(0x80 | ((scalar >> 6) & 0x3F));
        *out++ = (unsigned char)(0x80 | (scalar & 0x3F));
    } else {
        *out++ = (unsigned char)(0xF0 | scalar >> 18);
        *out++ = (unsigned char)(0x80 | ((scalar >> 12) & 0x3F));
        *out++ = (unsigned char)(0x80 | ((scalar >> 6) & 0x3F));
        *out++ = (unsigned char)(0x80 | (scalar & 0x3F));
    }
    return out;
}

/* The length of the valid UTF-8 sequence at p (a lead byte >= 0x80), or 0: no overlong forms, no surrogates, at
 * most U+10FFFF (RFC 3629's table). */
static size_t utf8_sequence(const unsigned char *p, const unsigned char *end) {
    unsigned char c = p[0];
    size_t length;
    unsigned char low = 0x80, high = 0xBF; /* the second byte's range */
    if (c >= 0xC2 && c <= 0xDF) length = 2;
    else if (c == 0xE0) length = 3, low = 0xA0;
    else if (c == 0xED) length = 3, high = 0x9F;
    else if (c >= 0xE1 && c <= 0xEF) length = 3;
    else if (c == 0xF0) length = 4, low = 0x90;
    else if (c == 0xF4) length = 4, high = 0x8F;
    else if (c >= 0xF1 && c <= 0xF3) length = 4;
    else return 0;
    if ((size_t)(end - p) < length || p[1] < low || p[1] > high) return 0;
    for (size_t i = 2; i < length; i++)
        if ((p[i] & 0xC0) != 0x80) return 0;
    return length;
}

/* Decodes the JSON string whose opening quote is at *pp into out (at most as many bytes as its text), counting
 * its Unicode scalars; leaves *pp after the closing quote. NULL, or what is wrong with it. */
static const char *decode_string(const unsigned char **pp, const unsigned char *end, unsigned char *out,
                                 size_t *length, size_t *scalars) {
    const unsigned char *p = *pp + 1;
    unsigned char *o = out;
    size_t count = 0;
    for (;;) {
        if (p >= end) return "a string is not closed";
        unsigned char c = *p;
        if (c == '"') break;
        if (c < 0x20) return "a string holds a control character";
        if (c == '\\') {
            if (end - p < 2) return "a string is not closed";
            unsigned char e = p[1];
            p += 2;
            switch (e) {
            case '"': *o++ = '"'; break;
            case '\\': *o++ = '\\'; break;
            case '/': *o++ = '/'; break;
            case 'b': *o++ = '\b'; break;
            case 'f': *o++ = '\f'; break;
            case 'n': *o++ = '\n'; break;
            case 'r': *o++ = '\r'; break;
            case 't': *o++ = '\t'; break;
            case 'u': {
                long unit = hex4(p, end);
                if (unit < 0) return "a \\u escape needs four hex digits";
                p += 4;
                uint32_t scalar = (uint32_t)unit;
                if (unit >= 0xDC00 && unit <= 0xDFFF) return "a lone low surrogate escape";
                if (unit >= 0xD800 && unit <= 0xDBFF) {
                    long low = end - p >= 6 && p[0] == '\\' && p[1] == 'u' ? hex4(p + 2, end) : -1;
                    if (low < 0xDC00 || low > 0xDFFF) return "a lone high surrogate escape";
                    p += 6;
                    scalar = 0x10000 + (((uint32_t)unit - 0xD800) << 10) + ((uint32_t)low - 0xDC00);
                }
                /* A \u escape takes at least 6 bytes of text and writes at most 4 of UTF-8. */
                o = put_utf8(o, scalar);
                break;
            }
            default: return "an unknown escape in a string";
            }
            count++;
        } else if (c < 0x80) {
            *o++ = c;
            p++;
            count++;
        } else {
            size_t n = utf8_sequence(p, end);
            if (n == 0) return "a string is not UTF-8";
            memcpy(o, p, n);
            o += n;
            p += n;
            count++;
        }
    }
    *pp = p + 1;
    *length = (size_t)(o - out);
    *scalars = count;
    return NULL;
}

/* Checks the body (`n` bytes at `body`): one object, its only member "label", a string of 1 to 500 characters.
 * The label is decoded into label[] (room for n bytes), the member names into key[] (room for n bytes). NULL, or
 * what is wrong (ListServer's wording where it has one); *detail_buffer holds a formatted detail. */
static const char *check_body(const unsigned char *body, size_t n, unsigned char *label, size_t *label_length,
                              unsigned char *key, char detail_buffer[128]) {
    const unsigned char *p = skip_space(body, body + n), *end = body + n;
    int seen = 0;
    if (p >= end || *p != '{') return "the body is not a JSON object";
    p = skip_space(p + 1, end);
    if (p < end && *p == '}') return "field \"label\": required";
    for (;;) {
        size_t key_length, scalars;
        if (p >= end || *p != '"') return "a member name is not a string";
        const char *error = decode_string(&p, end, key, &key_length, &scalars);
        if (error) return error;
        if (key_length != 5 || memcmp(key, "label", 5) != 0)
            return "an unknown member (only \"label\" is written here)";
        if (seen) return "a duplicate member";
        seen = 1;
        p = skip_space(p, end);
        if (p >= end || *p != ':') return "a member name without a colon";
        p = skip_space(p + 1, end);
        if (p >= end || *p != '"') return "field \"label\": expected a string of 1 to 500 characters";
        error = decode_string(&p, end, label, label_length, &scalars);
        if (error) return error;
        if (scalars < 1 || scalars > LABEL_MAXIMUM) {
            snprintf(detail_buffer, 128, "field \"label\": expected a string of 1 to 500 characters, got %zu",
                     scalars);
            return detail_buffer;
        }
        p = skip_space(p, end);
        if (p < end && *p == ',') {
            p = skip_space(p + 1, end);
            continue;
        }
        if (p < end && *p == '}') break;
        return "a member is not followed by a comma or a closing brace";
    }
    if (skip_space(p + 1, end) != end) return "something follows the object";
    return NULL;
}

/* Whether the Content-Type is application/json, any case, with or without parameters. */
static int is_json(const char *type) {
    if (type == NULL) return 0;
    while (*type == ' ' || *type == '\t') type++;
    if (strncasecmp(type, "application/json", 16) != 0) return 0;
    char after = type[16];
    return after == '\0' || after == ';' || after == ' ' || after == '\t';
}

/* POST /items: check the body, queue the write; the answer comes from handed_over. */
static void handle_post(worker_t *w, struct evhttp_request *req) {
    if (!is_json(evhttp_find_header(evhttp_request_get_input_headers(req), "Content-Type"))) {
        problem(w, req, 415, "Unsupported media type", "unsupported-media-type", "the body must be application/json");
        return;
    }
    struct evbuffer *input = evhttp_request_get_input_buffer(req);
    size_t n = evbuffer_get_length(input);
    const unsigned char *body = n > 0 ? evbuffer_pullup(input, -1) : (const unsigned char *)"";
    unsigned char *label = (unsigned char *)w->scratch, *key = label + config.max_body;
    size_t label_length = 0;
    char detail[128];
    const char *error = check_body(body, n, label, &label_length, key, detail);
    if (error) {
        problem(w, req, 400, "Invalid item", "invalid-item", error);
        return;
    }
    write_t *write = malloc(sizeof *write + label_length);
    if (write == NULL) {
        problem(w, req, 503, "Service Unavailable", "store-unavailable", "out of memory");
        return;
    }
    write->worker = w;
    write->request = req;
    write->label_length = label_length;
    memcpy(write->label, label, label_length);
    enqueue(write);
}

/* GET /items: only the count the benchmark checks. */
static void handle_count(worker_t *w, struct evhttp_request *req) {
    char total[24], *p;
    *put_u64(total, config.item_count + ATOMIC_LOAD(stat_items)) = '\0';
    struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
    evhttp_add_header(headers, "Content-Type", json_type);
    evhttp_add_header(headers, "X-Total-Count", total);
    p = stpcpy(stpcpy(PUT_LITERAL(w->scratch, "{\"total\":"), total), "}");
    reply(w, req, 200, "OK", w->scratch, (size_t)(p - w->scratch));
}

/* The counters: run.sh reads them as it reads ListServer's /metrics. */
static int format_counters(char *out, size_t size) {
    uint64_t commits = ATOMIC_LOAD(stat_commits), writes = ATOMIC_LOAD(stat_commit_writes);
    return snprintf(out, size,
                    "writes_server_created_total %" PRIu64 "\nwrites_server_commits_total %" PRIu64
                    "\nwrites_server_commit_writes_total %" PRIu64 "\nwrites_server_commit_seconds_sum %.6f\n"
                    "writes_server_items_total %" PRIu64 "\nwrites_server_streams_opened_total %" PRIu64
                    "\nwrites_server_streams_closed_total %" PRIu64 "\nwrites_server_streams_dropped_total %" PRIu64
                    "\nwrites_server_events_sent_total %" PRIu64 "\n# average group %.2f\n",
                    ATOMIC_LOAD(stat_created), commits, writes, (double)ATOMIC_LOAD(stat_commit_ns) * 1e-9,
                    ATOMIC_LOAD(stat_items), ATOMIC_LOAD(stat_streams_opened), ATOMIC_LOAD(stat_streams_closed),
                    ATOMIC_LOAD(stat_streams_dropped), ATOMIC_LOAD(stat_events_sent),
                    commits ? (double)writes / (double)commits : 0.0);
}

static void handle_metrics(worker_t *w, struct evhttp_request *req) {
    int length = format_counters(w->scratch, 1024);
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", "text/plain; version=0.0.4");
    reply(w, req, 200, "OK", w->scratch, (size_t)length);
}

/* Every request: route on the raw path. */
static void handle_request(struct evhttp_request *req, void *arg) {
    worker_t *w = arg;
    const char *uri = evhttp_request_get_uri(req);
    const char *query = strchr(uri, '?');
    size_t path_length = query ? (size_t)(query - uri) : strlen(uri);
    enum evhttp_cmd_type method = evhttp_request_get_command(req);
    if (path_length == 13 && memcmp(uri, "/items/events", 13) == 0) {
        if (method == EVHTTP_REQ_GET) handle_events(w, req);
        else problem(w, req, 405, "Method Not Allowed", "method-not-allowed", "use GET");
    } else if (path_length == 6 && memcmp(uri, "/items", 6) == 0) {
        if (method == EVHTTP_REQ_POST) handle_post(w, req);
        else if (method == EVHTTP_REQ_GET || method == EVHTTP_REQ_HEAD) handle_count(w, req);
        else problem(w, req, 405, "Method Not Allowed", "method-not-allowed", "use GET, HEAD or POST");
    } else if (path_length == 8 && memcmp(uri, "/metrics", 8) == 0) {
        if (method == EVHTTP_REQ_GET || method == EVHTTP_REQ_HEAD) handle_metrics(w, req);
        else problem(w, req, 405, "Method Not Allowed", "method-not-allowed", "use GET or HEAD");
    } else {
        problem(w, req, 404, "Not Found", "not-found", "there is no resource at this path");
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
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
        (reuse_port && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) != 0) ||
        bind(fd, (struct sockaddr *)&storage, address->ai_addrlen) != 0) {
        fprintf(stderr, "writes-server: cannot bind %s:%d: %s\n", config.host, port, strerror(errno));
        exit(71);
    }
    return fd;
}

/* As ListServer and evhttp-baseline.c: a probe socket without SO_REUSEPORT claims the port (and learns it for
 * port 0), then one SO_REUSEPORT socket per loop, each with a backlog of 1024. */
static void open_listeners(int *fds, int count) {
    struct addrinfo hints = {0}, *address;
    hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
    hints.ai_socktype = SOCK_STREAM;
    int status = getaddrinfo(config.host, NULL, &hints, &address);
    if (status != 0) {
        fprintf(stderr, "writes-server: %s: %s\n", config.host, gai_strerror(status));
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
    /* The changelist: epoll_ctl calls are collected until the loop next waits, so push()'s EV_WRITE enable and
     * disable of a stream cancel out (see push). */
    event_config_set_flag(event_config, EVENT_BASE_FLAG_PRECISE_TIMER | EVENT_BASE_FLAG_NOLOCK |
                                            EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
    w->base = event_base_new_with_config(event_config);
    event_config_free(event_config);
    w->http = w->base ? evhttp_new(w->base) : NULL;
    w->reply = evbuffer_new();
    w->scratch = malloc(2 * config.max_body + 8192);
    w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    w->wake = w->base && w->wake_fd >= 0 ? event_new(w->base, w->wake_fd, EV_READ | EV_PERSIST, handed_over, w) : NULL;
    pthread_mutex_init(&w->lock, NULL);
    w->done_head = NULL;
    w->done_tail = &w->done_head;
    w->deliveries_head = NULL;
    w->deliveries_tail = &w->deliveries_head;
    w->streams = NULL;
    w->stream_count = 0;
    if (w->http == NULL || w->reply == NULL || w->scratch == NULL || w->wake == NULL || event_add(w->wake, NULL) != 0) {
        fprintf(stderr, "writes-server: cannot create an event loop\n");
        exit(71);
    }
    evhttp_set_allowed_methods(w->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT |
                                            EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE |
                                            EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH);
    evhttp_set_default_content_type(w->http, NULL);
    evhttp_set_max_body_size(w->http, (ev_ssize_t)config.max_body);
    evhttp_set_max_headers_size(w->http, 16384);
    evhttp_set_gencb(w->http, handle_request, w);
    if (evhttp_accept_socket_with_handle(w->http, fd) == NULL) {
        fprintf(stderr, "writes-server: evhttp_accept_socket_with_handle failed\n");
        exit(71);
    }
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

static uint64_t number_argument(const char *flag, const char *text, uint64_t maximum) {
    uint64_t value;
    if (text == NULL || !parse_decimal(text, strlen(text), &value) || value > maximum) {
        fprintf(stderr, "writes-server: %s needs an integer in 0...%" PRIu64 "\n", flag, maximum);
        exit(64);
    }
    return value;
}

/* Every subscriber is a connection and a descriptor: the soft limit goes up to the hard one (evhttp itself has no
 * connection limit). */
static void raise_file_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
    rlim_t wanted = limit.rlim_max == RLIM_INFINITY ? (rlim_t)1 << 20 : limit.rlim_max;
    if (limit.rlim_cur >= wanted) return;
    limit.rlim_cur = wanted;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) perror("setrlimit(RLIMIT_NOFILE)");
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(flag, "--answer-first") == 0) {
            config.answer_first = 1;
            continue;
        }
        i++;
        if (strcmp(flag, "--host") == 0 && value) config.host = value;
        else if (strcmp(flag, "--port") == 0) config.port = (int)number_argument(flag, value, 65535);
        else if (strcmp(flag, "--threads") == 0) config.threads = (int)number_argument(flag, value, 256);
        else if (strcmp(flag, "--data-path") == 0 && value) config.data_path = value;
        else if (strcmp(flag, "--synchronous") == 0 && value && strcmp(value, "full") == 0) config.full = 1;
        else if (strcmp(flag, "--synchronous") == 0 && value && strcmp(value, "normal") == 0) config.full = 0;
        else if (strcmp(flag, "--changes-kept") == 0)
            config.changes_kept = (int64_t)number_argument(flag, value, INT64_MAX);
        else if (strcmp(flag, "--seed") == 0) config.seed = number_argument(flag, value, INT64_MAX);
        else if (strcmp(flag, "--item-count") == 0) config.item_count = number_argument(flag, value, MAXIMUM_COUNT);
        else if (strcmp(flag, "--max-body-bytes") == 0) config.max_body = number_argument(flag, value, 1 << 24);
        else {
            fprintf(stderr,
                    "usage: writes-server --data-path PATH [--synchronous full|normal] [--host 127.0.0.1]\n"
                    "       [--port 8080] [--threads 2] [--changes-kept 100000] [--seed 42] [--item-count 10000]\n"
                    "       [--max-body-bytes 65536] [--answer-first]\n");
            return 64;
        }
    }
    if (config.data_path == NULL || config.threads < 1 || config.max_body < 64) {
        fprintf(stderr, "writes-server: --data-path is required, --threads must be >= 1, --max-body-bytes >= 64\n");
        return 64;
    }
    key_author = mix64(config.seed ^ SALT_AUTHOR);
    key_size = mix64(config.seed ^ SALT_SIZE);
    key_color = mix64(config.seed ^ SALT_COLOR);
    key_likes = mix64(config.seed ^ SALT_LIKES);
    open_store();
    raise_file_limit();

    /* SIGPIPE ignored; SIGTERM and SIGINT blocked in every thread and awaited by this one. */
    signal(SIGPIPE, SIG_IGN);
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);

    int *fds = calloc((size_t)config.threads, sizeof *fds);
    workers = calloc((size_t)config.threads, sizeof *workers);
    if (fds == NULL || workers == NULL) {
        perror("calloc");
        return 71;
    }
    open_listeners(fds, config.threads);
    for (int i = 0; i < config.threads; i++) {
        workers[i].index = i;
        start_worker(&workers[i], fds[i]);
    }
    free(fds);
    pthread_t writer;
    pthread_create(&writer, NULL, run_writer, NULL);
    for (int i = 0; i < config.threads; i++) pthread_create(&workers[i].thread, NULL, run_loop, &workers[i]);
    struct rlimit files;
    getrlimit(RLIMIT_NOFILE, &files);
    printf("listening on %s:%d threads=%d synchronous=%s changes_kept=%" PRId64 " items=%" PRIu64
           " data=%s order=%s files=%llu\n",
           config.host, config.port, config.threads, config.full ? "full" : "normal", config.changes_kept,
           config.item_count, config.data_path, config.answer_first ? "answer-first" : "events-first",
           (unsigned long long)files.rlim_cur);
    fflush(stdout);

    int signal_number;
    sigwait(&stop, &signal_number);
    char counters[1024];
    format_counters(counters, sizeof counters);
    fprintf(stderr, "writes-server: stopping on signal %d\n%s", signal_number, counters);
    return 0;
}
