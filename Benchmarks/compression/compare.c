/* Benchmarks/compression/compare.c: which compressor for ListServer's JSON (issue 35)? Each candidate the Debian
 * 12 machine has as a -dev package compresses the same bodies (files named on the command line: pages as the server
 * sends them) over and over for a fixed CPU time; prints CPU microseconds a body and the ratio, as a markdown table.
 *
 *   cc -O2 -o compare compare.c -lz -ldeflate -lzstd -lbrotlienc && ./compare page20.json page100.json
 *
 * One-shot compression of a whole body, as a JSON answer is (the event stream's per-event flushing is a zlib
 * stream's job: Z_SYNC_FLUSH; libdeflate has no streaming). zlib-ng is not packaged for Debian 12. */
#define _GNU_SOURCE
#include <brotli/encode.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include <zstd.h>

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

typedef size_t (*compress_fn)(const unsigned char *in, size_t length, unsigned char *out, size_t capacity, int level);

/* zlib with one stream per level kept and reset between bodies, as a server keeps one per loop. (A stream made for
 * each body measured 3 to 51 µs more by where glibc's heap put its 256 KB of state: not a figure to compare.) */
static z_stream *zlib_streams[10];

static size_t with_zlib_reused(const unsigned char *in, size_t length, unsigned char *out, size_t capacity,
                               int level) {
    z_stream *s = zlib_streams[level];
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s || deflateInit2(s, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            fprintf(stderr, "compare: zlib cannot start a stream\n");
            exit(1);
        }
        zlib_streams[level] = s;
    } else {
        deflateReset(s);
    }
    s->next_in = (unsigned char *)in;
    s->avail_in = (uInt)length;
    s->next_out = out;
    s->avail_out = (uInt)capacity;
    return deflate(s, Z_FINISH) == Z_STREAM_END ? s->total_out : 0;
}

static struct libdeflate_compressor *deflaters[13];

static size_t with_libdeflate_gzip(const unsigned char *in, size_t length, unsigned char *out, size_t capacity,
                                   int level) {
    /* A compressor per level, made once: a server keeps one per loop. */
    if (!deflaters[level] && !(deflaters[level] = libdeflate_alloc_compressor(level))) {
        fprintf(stderr, "compare: libdeflate cannot make a compressor\n");
        exit(1);
    }
    return libdeflate_gzip_compress(deflaters[level], in, length, out, capacity);
}

static ZSTD_CCtx *zstd_context;

static size_t with_zstd(const unsigned char *in, size_t length, unsigned char *out, size_t capacity, int level) {
    if (!zstd_context && !(zstd_context = ZSTD_createCCtx())) {
        fprintf(stderr, "compare: zstd cannot make a context\n");
        exit(1);
    }
    size_t written = ZSTD_compressCCtx(zstd_context, out, capacity, in, length, level);
    return ZSTD_isError(written) ? 0 : written;
}

static size_t with_brotli(const unsigned char *in, size_t length, unsigned char *out, size_t capacity, int level) {
    size_t written = capacity;
    return BrotliEncoderCompress(level, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, length, in, &written, out) ? written
                                                                                                             : 0;
}

static unsigned char *read_file(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    long size = fseek(file, 0, SEEK_END) == 0 ? ftell(file) : -1;
    /* Bodies are pages: at most a few hundred KB, far within zlib's 32-bit lengths. */
    unsigned char *bytes = size > 0 && size < (1L << 24) && fseek(file, 0, SEEK_SET) == 0 ? malloc((size_t)size) : NULL;
    if (bytes && fread(bytes, 1, (size_t)size, file) != (size_t)size) {
        free(bytes);
        bytes = NULL;
    }
    *length = bytes ? (size_t)size : 0;
    fclose(file);
    return bytes;
}

int main(int argc, char **argv) {
    struct {
        const char *name;
        compress_fn compress;
        int level;
    } candidates[] = {
        {"zlib gzip 1, one stream reset", with_zlib_reused, 1},
        {"zlib gzip 6, one stream reset", with_zlib_reused, 6},
        {"libdeflate gzip 1", with_libdeflate_gzip, 1}, {"libdeflate gzip 6", with_libdeflate_gzip, 6},
        {"zstd 1", with_zstd, 1},                 {"zstd 3", with_zstd, 3},
        {"brotli 1", with_brotli, 1},             {"brotli 4", with_brotli, 4},
        {"brotli 5", with_brotli, 5},
    };
    double budget = getenv("SECONDS_EACH") ? atof(getenv("SECONDS_EACH")) : 0.5;
    printf("| body | bytes | compressor | bytes out | ratio | CPU µs a body |\n|---|---:|---|---:|---:|---:|\n");
    for (int file = 1; file < argc; file++) {
        size_t length = 0;
        unsigned char *body = read_file(argv[file], &length);
        if (!body) {
            fprintf(stderr, "compare: cannot read %s (or it is empty, or 16 MB or more)\n", argv[file]);
            return 1;
        }
        size_t capacity = length * 2 + 1024;
        unsigned char *out = malloc(capacity);
        if (!out) return 1;
        for (size_t c = 0; c < sizeof candidates / sizeof candidates[0]; c++) {
            size_t written = candidates[c].compress(body, length, out, capacity, candidates[c].level);  /* warm */
            long count = 0;
            double start = cpu_seconds(), now = start;
            while (now - start < budget) {
                for (int i = 0; i < 50; i++) written = candidates[c].compress(body, length, out, capacity,
                                                                             candidates[c].level);
                count += 50;
                now = cpu_seconds();
            }
            if (written == 0) {
                fprintf(stderr, "compare: %s failed on %s\n", candidates[c].name, argv[file]);
                return 1;
            }
            printf("| %s | %zu | %s | %zu | %.2f | %.2f |\n", argv[file], length, candidates[c].name, written,
                   (double)length / (double)written, (now - start) / (double)count * 1e6);
        }
        free(out);
        free(body);
    }
    return 0;
}
