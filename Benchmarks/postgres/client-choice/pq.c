#define _GNU_SOURCE
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <sys/resource.h>

#define N 20000
#define TX 64
static const char *INS = "INSERT INTO t (id, label, body) VALUES ($1, $2, $3)";

static long long cpu_us(void) {
    struct rusage ru; getrusage(RUSAGE_SELF, &ru);
    return (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}
static long long wall_us(void) {
    struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}
static int threads(void) {
    DIR *d = opendir("/proc/self/task"); if (!d) return -1;
    int n = 0; struct dirent *e;
    while ((e = readdir(d))) if (e->d_name[0] != '.') n++;
    closedir(d); return n;
}
static void status_line(const char *key, char *out, size_t outlen) {
    FILE *f = fopen("/proc/self/status", "r"); char line[256]; snprintf(out, outlen, "?");
    if (!f) return;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f)) if (!strncmp(line, key, kl)) {
        char *p = line + kl; while (*p == ' ' || *p == '\t') p++;
        p[strcspn(p, "\n")] = 0; snprintf(out, outlen, "%s", p); break; }
    fclose(f);
}
static void die(PGconn *c, const char *what) { fprintf(stderr, "%s: %s\n", what, PQerrorMessage(c)); exit(1); }

/* build text params: id, 20-char label, bytea as hex "\x" + 80 hex digits */
static void params(long id, char *idbuf, char *label, char *body) {
    static const char hx[] = "0123456789abcdef";
    sprintf(idbuf, "%ld", id);
    sprintf(label, "label-%014ld", id);
    body[0] = '\\'; body[1] = 'x';
    for (int i = 0; i < 40; i++) { unsigned char b = (unsigned char)(id + i); body[2+2*i] = hx[b >> 4]; body[3+2*i] = hx[b & 15]; }
    body[82] = 0;
}
static void exec_cmd(PGconn *c, const char *sql) {
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) die(c, sql);
    PQclear(r);
}
static void insert(PGconn *c, long id) {
    char idb[32], lab[32], body[96]; params(id, idb, lab, body);
    const char *v[3] = { idb, lab, body };
    PGresult *r = PQexecParams(c, INS, 3, NULL, v, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) die(c, "insert");
    PQclear(r);
}
static void report(const char *name, long long w0, long long c0) {
    long long w = wall_us() - w0, c = cpu_us() - c0;
    printf("pq %s: wall_us/insert=%.2f cpu_us/insert=%.2f threads=%d\n", name, (double)w / N, (double)c / N, threads());
}

int main(void) {
    PGconn *c = PQconnectdb("host=127.0.0.1 port=55432 user=postgres dbname=postgres sslmode=disable");
    if (PQstatus(c) != CONNECTION_OK) die(c, "connect");
    printf("pq threads after connect=%d\n", threads());
    exec_cmd(c, "TRUNCATE t");
    for (int i = 0; i < 500; i++) insert(c, 900000 + i);   /* warm-up, not timed */

    long long w0 = wall_us(), c0 = cpu_us();
    for (int i = 0; i < N; i++) insert(c, 1 + i);
    report("a_autocommit", w0, c0);

    w0 = wall_us(); c0 = cpu_us();
    long id = 100001;
    for (int done = 0; done < N; ) {
        int k = N - done < TX ? N - done : TX;
        exec_cmd(c, "BEGIN");
        for (int j = 0; j < k; j++) insert(c, id++);
        exec_cmd(c, "COMMIT");
        done += k;
    }
    report("b_tx64", w0, c0);

    /* (c) pipeline: BEGIN, k inserts, COMMIT, one Sync -> one round trip per transaction */
    if (!PQenterPipelineMode(c)) die(c, "enter pipeline");
    w0 = wall_us(); c0 = cpu_us();
    id = 200001;
    for (int done = 0; done < N; ) {
        int k = N - done < TX ? N - done : TX;
        if (!PQsendQueryParams(c, "BEGIN", 0, NULL, NULL, NULL, NULL, 0)) die(c, "send begin");
        for (int j = 0; j < k; j++) {
            char idb[32], lab[32], body[96]; params(id++, idb, lab, body);
            const char *v[3] = { idb, lab, body };
            if (!PQsendQueryParams(c, INS, 3, NULL, v, NULL, NULL, 0)) die(c, "send insert");
        }
        if (!PQsendQueryParams(c, "COMMIT", 0, NULL, NULL, NULL, NULL, 0)) die(c, "send commit");
        if (!PQpipelineSync(c)) die(c, "sync");
        /* read k+2 results (each followed by NULL) then the PGRES_PIPELINE_SYNC */
        for (int q = 0; q < k + 2; q++) {
            PGresult *r = PQgetResult(c);
            if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) die(c, "pipeline result");
            PQclear(r);
            r = PQgetResult(c); if (r) die(c, "expected NULL");
        }
        PGresult *r = PQgetResult(c);
        if (!r || PQresultStatus(r) != PGRES_PIPELINE_SYNC) die(c, "expected sync");
        PQclear(r);
        done += k;
    }
    report("c_pipeline_tx64", w0, c0);
    if (!PQexitPipelineMode(c)) die(c, "exit pipeline");

    PQfinish(c);
    char hwm[64], rss[64]; status_line("VmHWM:", hwm, sizeof hwm); status_line("VmRSS:", rss, sizeof rss);
    printf("pq exit threads=%d VmHWM=%s VmRSS=%s\n", threads(), hwm, rss);
    return 0;
}
