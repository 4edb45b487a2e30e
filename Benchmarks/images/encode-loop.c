/*
 * encode-loop: the C reference point for the CPU of ListServer's generated JPEGs.
 *
 * Decodes the given PNG files (ListServer's own lossless images, so the pixels are exactly those it draws) with
 * libspng, then encodes them to JPEG over and over with the TurboJPEG settings ListServer uses (quality 85, 4:2:0,
 * a handle kept for the whole run, as each image worker keeps one) for about SECONDS, round-robin over the files.
 * Prints one line: encodes, CPU seconds (user + system, getrusage) and CPU microseconds per encode. It draws
 * nothing and speaks no HTTP: the limit for "render, encode and answer" is "encode".
 *
 * With --planes first, each image is turned into 4:2:0 planes once before the clock starts (tjEncodeYUV3) and the
 * loop encodes from those (tjCompressFromYUV), as ListServer encodes the JPEGs it draws as planes: the encode
 * without its colour conversion, for comparison.
 *
 * Build: cc -O2 -o encode-loop encode-loop.c -lturbojpeg -lspng
 * Run:   encode-loop [--planes] SECONDS file.png...
 */
#include <spng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <turbojpeg.h>

typedef struct {
    unsigned char *pixels;
    unsigned char *planes; /* with --planes */
    int width, height;
} image_t;

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

static double wall_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

static int load(const char *path, image_t *image) {
    FILE *file = fopen(path, "rb");
    if (!file) return -1;
    spng_ctx *context = spng_ctx_new(0);
    spng_set_png_file(context, file);
    struct spng_ihdr header;
    size_t size;
    int status = spng_get_ihdr(context, &header);
    if (!status) status = spng_decoded_image_size(context, SPNG_FMT_RGB8, &size);
    if (!status) {
        image->pixels = malloc(size);
        status = spng_decode_image(context, image->pixels, size, SPNG_FMT_RGB8, 0);
        image->width = (int)header.width;
        image->height = (int)header.height;
    }
    spng_ctx_free(context);
    fclose(file);
    return status;
}

int main(int argc, char **argv) {
    int planes = argc > 1 && strcmp(argv[1], "--planes") == 0;
    argv += planes;
    argc -= planes;
    if (argc < 3) {
        fprintf(stderr, "usage: encode-loop [--planes] SECONDS file.png...\n");
        return 64;
    }
    double seconds = atof(argv[1]);
    int count = argc - 2;
    image_t *images = calloc((size_t)count, sizeof *images);
    tjhandle handle = tjInitCompress();
    for (int i = 0; i < count; i++) {
        if (load(argv[i + 2], &images[i])) {
            fprintf(stderr, "encode-loop: cannot decode %s\n", argv[i + 2]);
            return 66;
        }
        if (planes) {
            image_t *image = &images[i];
            image->planes = malloc(tjBufSizeYUV2(image->width, 1, image->height, TJSAMP_420));
            if (!image->planes) {
                fprintf(stderr, "encode-loop: out of memory\n");
                return 71;
            }
            if (tjEncodeYUV3(handle, image->pixels, image->width, 0, image->height, TJPF_RGB, image->planes, 1,
                             TJSAMP_420, 0)) {
                fprintf(stderr, "encode-loop: %s\n", tjGetErrorStr2(handle));
                return 70;
            }
        }
    }
    unsigned long total_bytes = 0, encodes = 0;
    double start_cpu = cpu_seconds(), start_wall = wall_seconds();
    while (wall_seconds() - start_wall < seconds) {
        for (int i = 0; i < count; i++) {
            unsigned char *jpeg = NULL;
            unsigned long size = 0;
            int status = planes ? tjCompressFromYUV(handle, images[i].planes, images[i].width, 1, images[i].height,
                                                    TJSAMP_420, &jpeg, &size, 85, 0)
                                : tjCompress2(handle, images[i].pixels, images[i].width, 0, images[i].height, TJPF_RGB,
                                              &jpeg, &size, TJSAMP_420, 85, 0);
            if (status) {
                fprintf(stderr, "encode-loop: %s\n", tjGetErrorStr2(handle));
                return 70;
            }
            total_bytes += size;
            encodes++;
            tjFree(jpeg);
        }
    }
    double cpu = cpu_seconds() - start_cpu;
    printf("encodes %lu cpu_s %.3f us_per_encode %.1f bytes_per_encode %lu\n", encodes, cpu, cpu * 1e6 / encodes,
           total_bytes / encodes);
    tjDestroy(handle);
    return 0;
}
