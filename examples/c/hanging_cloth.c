/*
 * Hang a 32 x 32 cloth (a 1 m square) by its two top corners for 2 s at 60 Hz through the C API,
 * read the positions into our own buffer and print the bottom-edge midpoint and the largest edge
 * strain. The last line repeats both as IEEE-754 bit patterns, so a test can compare them with
 * the Rust API's result for the same scene to the bit.
 *
 * Build and run on Linux after `cargo build --release` (see docs/c-cpp.md):
 *   cc -std=c11 -Iinclude examples/c/hanging_cloth.c -Ltarget/release -lxpbd_cloth \
 *      -Wl,-rpath,"$PWD/target/release" -o hanging_cloth && ./hanging_cloth
 */
#include "xpbd_cloth.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 32 }; /* vertices per side */

/* Print the failing call and the library's reason; returns 0 on failure so callers can bail. */
static int ok(XpbdResult result, const char *call) {
    if (result == XPBD_RESULT_OK) {
        return 1;
    }
    char message[512];
    xpbd_last_error_message(message, sizeof message);
    fprintf(stderr, "%s failed with %d: %s\n", call, (int)result, message);
    return 0;
}
#define TRY(call)                \
    do {                         \
        if (!ok((call), #call)) { \
            goto cleanup;        \
        }                        \
    } while (0)

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

int main(void) {
    if (xpbd_abi_version() != XPBD_ABI_VERSION) {
        fprintf(stderr, "library ABI %u, header ABI %u\n", xpbd_abi_version(), (unsigned)XPBD_ABI_VERSION);
        return 1;
    }

    /* A vertical sheet in the x-y plane, top row at y = 1 m, row-major, two triangles per quad. */
    static float positions[3 * N * N];
    static uint32_t indices[6 * (N - 1) * (N - 1)];
    for (int j = 0; j < N; ++j) {
        for (int i = 0; i < N; ++i) {
            float *p = &positions[3 * (j * N + i)];
            p[0] = (float)i / (float)(N - 1);
            p[1] = 1.0f - (float)j / (float)(N - 1);
            p[2] = 0.0f;
        }
    }
    uint32_t *t = indices;
    for (uint32_t j = 0; j < N - 1; ++j) {
        for (uint32_t i = 0; i < N - 1; ++i) {
            uint32_t a = j * N + i, b = a + 1, c = a + N, d = a + N + 1;
            *t++ = a, *t++ = c, *t++ = b;
            *t++ = b, *t++ = c, *t++ = d;
        }
    }

    int status = 1;
    float *out = NULL;
    XpbdWorldId world = {0};

    XpbdWorldDesc world_desc = xpbd_default_world_desc(); /* gravity (0, -9.81, 0), 10 substeps */
    TRY(xpbd_world_create(&world_desc, &world));

    XpbdClothDesc cloth_desc = xpbd_default_cloth_desc(); /* cotton, compliance from the material */
    cloth_desc.positions = positions;
    cloth_desc.vertex_count = N * N;
    cloth_desc.indices = indices;
    cloth_desc.triangle_count = 2 * (N - 1) * (N - 1);
    XpbdClothId cloth;
    TRY(xpbd_cloth_create(world, &cloth_desc, &cloth));

    const uint32_t corners[2] = {0, N - 1};
    TRY(xpbd_cloth_set_pinned(cloth, corners, 2, NULL)); /* NULL: pinned where they are */

    for (int frame = 0; frame < 120; ++frame) {
        TRY(xpbd_world_step(world, 1.0f / 60.0f));
    }

    uint32_t vertex_count;
    TRY(xpbd_cloth_vertex_count(cloth, &vertex_count));
    out = malloc(3 * sizeof(float) * vertex_count);
    if (!out) {
        goto cleanup;
    }
    TRY(xpbd_cloth_read_positions(cloth, out, vertex_count));
    XpbdClothStats stats;
    TRY(xpbd_cloth_get_stats(cloth, &stats));

    /* Bottom row, the two middle vertices: their mean is the midpoint of the bottom edge. */
    const float *left = &out[3 * ((N - 1) * N + N / 2 - 1)];
    const float *right = &out[3 * ((N - 1) * N + N / 2)];
    float mid[3];
    for (int k = 0; k < 3; ++k) {
        mid[k] = 0.5f * (left[k] + right[k]);
    }
    printf("32x32 cloth (1 m) pinned at two corners, after 2 s at 60 Hz\n");
    printf("bottom-edge midpoint: (%.6f, %.6f, %.6f) m\n", mid[0], mid[1], mid[2]);
    printf("max edge strain: %.6f %%\n", 100.0 * stats.max_edge_strain);
    printf("bits: %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32 "\n", bits_of(mid[0]), bits_of(mid[1]),
           bits_of(mid[2]), bits_of(stats.max_edge_strain));
    status = 0;

cleanup:
    free(out);
    if (world.id != 0 && !ok(xpbd_world_destroy(world), "xpbd_world_destroy")) { /* frees the cloth too */
        status = 1;
    }
    return status;
}
