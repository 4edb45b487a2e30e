/*
 * inserts: the C baseline for ListServer's durable writes.
 *
 * Does, for N seconds, what SQLiteStore's commit path does for a group of POSTs that each add one item to one list
 * (Sources/ListServer/SQLite/SQLiteListTables+Commit.swift): one transaction per group of G writes,
 *
 *   BEGIN IMMEDIATE
 *   G times: INSERT OR REPLACE INTO items ...  (the written item: its label; the other fields NULL, generated)
 *            INSERT INTO changes ...           (a "created" change holding the whole item)
 *   once:    INSERT INTO lists ... ON CONFLICT (name) DO UPDATE ...   (the list's header)
 *            DELETE FROM changes WHERE list = ? AND sequence <= ?      (keep the newest changes_kept)
 *   COMMIT
 *
 * with the same schema (SQLiteSchema.swift: lists, items, changes; the idempotency table is created too but, as
 * for POSTs without an Idempotency-Key, not written), the same SQL text, statements prepared once, WAL, and
 * PRAGMA synchronous FULL or NORMAL. The store upserts a list's header and prunes its changes once per list per
 * commit, not once per write, and so does this program. Keep them in sync: a change to the store's statements
 * belongs here too, and in writes-server.c (the same statements behind an evhttp server), or the comparison means
 * nothing.
 *
 * Build: cc -O2 -Wall -Wextra -o inserts inserts.c -lsqlite3 -lpthread
 * Run:   inserts PATH full|normal G SECONDS [CHANGES_KEPT]
 *        PATH is replaced (with its -wal and -shm files); CHANGES_KEPT defaults to 10000.
 *        Prints inserts/s and commits/s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static sqlite3 *db;

static void die(const char *what) {
    fprintf(stderr, "inserts: %s: %s (extended code %d)\n", what, db ? sqlite3_errmsg(db) : "no connection",
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

/* Steps a statement to its end, then resets it and clears its bindings, as SQLiteConnection.withStatement does. */
static void run(sqlite3_stmt *statement) {
    int status = sqlite3_step(statement);
    if (status != SQLITE_DONE && status != SQLITE_ROW) die(sqlite3_sql(statement));
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* SQLiteSchema.migrations[0], as the store creates it. */
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

/* SQLiteListTables.SQL, the statements of the commit path. */
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

int main(int argc, char **argv) {
    if (argc < 5 || argc > 6 || (strcmp(argv[2], "full") != 0 && strcmp(argv[2], "normal") != 0)) {
        fprintf(stderr, "usage: %s PATH full|normal GROUP_SIZE SECONDS [CHANGES_KEPT]\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    int group = atoi(argv[3]);
    double seconds = atof(argv[4]);
    int64_t kept = argc == 6 ? atoll(argv[5]) : 10000;
    if (group < 1 || seconds <= 0 || kept < 0) {
        fprintf(stderr, "inserts: GROUP_SIZE must be at least 1, SECONDS and CHANGES_KEPT positive\n");
        return 2;
    }
    char side[4096];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);

    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) die("open");
    sqlite3_busy_timeout(db, 2000);
    exec("PRAGMA journal_mode = WAL");
    exec(strcmp(argv[2], "full") == 0 ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
    exec(schema);

    sqlite3_stmt *begin = prepare("BEGIN IMMEDIATE"), *commit = prepare("COMMIT");
    sqlite3_stmt *item = prepare(upsert_item), *change = prepare(insert_change);
    sqlite3_stmt *header = prepare(upsert_header), *prune = prepare(prune_changes);

    const char *list = "default";
    const int64_t seed = 42, base_count = 10000, version = 1;
    int64_t next_id = base_count, last_sequence = 0, commits = 0;
    char label[64];
    double start = now_seconds(), end = start + seconds, finished;
    do {
        run(begin);
        for (int i = 0; i < group; i++) {
            int64_t id = next_id++, sequence = ++last_sequence;
            int length = snprintf(label, sizeof label, "posted item %" PRId64, id);
            /* The written item: a label, the other fields generated (NULL). */
            sqlite3_bind_text(item, 1, list, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(item, 2, id);
            sqlite3_bind_text(item, 3, label, length, SQLITE_TRANSIENT);
            sqlite3_bind_int64(item, 9, sequence);
            run(item);
            /* Its "created" change, with the whole item as the list then shows it. */
            sqlite3_bind_text(change, 1, list, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(change, 2, sequence);
            sqlite3_bind_text(change, 3, "created", -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(change, 4, id);
            sqlite3_bind_text(change, 5, label, length, SQLITE_TRANSIENT);
            sqlite3_bind_text(change, 6, "Linh Nguyễn", -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(change, 7, 4000);
            sqlite3_bind_int64(change, 8, 3000);
            sqlite3_bind_text(change, 9, "#a1b2c3", -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(change, 10, 0);
            sqlite3_bind_text(change, 14, "LEHV6nWB2yk8pyo0adR*.7kCMdnj", 28, SQLITE_STATIC); /* a BlurHash */
            run(change);
        }
        sqlite3_bind_text(header, 1, list, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(header, 2, seed);
        sqlite3_bind_int64(header, 3, base_count);
        sqlite3_bind_int64(header, 4, version);
        sqlite3_bind_int64(header, 5, next_id);
        sqlite3_bind_int64(header, 6, last_sequence);
        run(header);
        if (last_sequence > kept) {
            sqlite3_bind_text(prune, 1, list, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(prune, 2, last_sequence - kept);
            run(prune);
        }
        run(commit);
        commits++;
        finished = now_seconds();
    } while (finished < end);

    double elapsed = finished - start;
    printf("synchronous=%s group=%d seconds=%.2f commits=%" PRId64 " inserts=%" PRId64 "\n", argv[2], group, elapsed,
           commits, commits * group);
    printf("inserts/s %.0f\ncommits/s %.0f\n", (double)(commits * group) / elapsed, (double)commits / elapsed);

    sqlite3_stmt *statements[] = {begin, commit, item, change, header, prune};
    for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++) sqlite3_finalize(statements[i]);
    if (sqlite3_close(db) != SQLITE_OK) die("close");
    return 0;
}
