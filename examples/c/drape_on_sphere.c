/*
 * Drop a 32 x 32 cloth (a 1 m square, 0.3 m above the top of a sphere of radius 0.3 m) onto the
 * sphere for 2 s at 60 Hz through the C API, then check from the positions alone that it rests
 * on the sphere: no vertex is inside the thickened sphere by more than 1 % of the collision
 * thickness. Prints the vertex over the sphere's top, the lowest vertex, the contact statistics,
 * and on the last line the same numbers as IEEE-754 bit patterns, so a test can compare them with
 * the Rust API's result for the same scene to the bit.
 *
 * Build and run on Linux after `cargo build --release` (see docs/c-cpp.md):
 *   cc -std=c11 -Iinclude examples/c/drape_on_sphere.c -Ltarget/release -lxpbd_cloth -lm \
 *      -Wl,-rpath,"$PWD/target/release" -o drape_on_sphere && ./drape_on_sphere
 */
#include "xpbd_cloth.h"

#include <inttypes.h>
#include <math.h>
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
#define TRY(call)                 \
    do {                          \
        if (!ok((call), #call)) { \
            goto cleanup;         \
        }                         \
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
    const float radius = 0.3f;

    /* A horizontal sheet in the x-z plane centred over the sphere at y = 2 r, row-major, two
     * triangles per quad, counter-clockwise seen from above. */
    static float positions[3 * N * N];
    static uint32_t indices[6 * (N - 1) * (N - 1)];
    for (int j = 0; j < N; ++j) {
        for (int i = 0; i < N; ++i) {
            float *p = &positions[3 * (j * N + i)];
            p[0] = (float)i / (float)(N - 1) - 0.5f;
            p[1] = 2.0f * radius;
            p[2] = (float)j / (float)(N - 1) - 0.5f;
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

    XpbdColliderDesc sphere_desc = xpbd_default_collider_desc_for(XPBD_COLLIDER_KIND_SPHERE); /* at the origin */
    sphere_desc.radius = radius;
    XpbdColliderId sphere;
    TRY(xpbd_collider_create(world, &sphere_desc, &sphere));

    XpbdClothDesc cloth_desc = xpbd_default_cloth_desc(); /* cotton, 5 mm collision thickness */
    cloth_desc.positions = positions;
    cloth_desc.vertex_count = N * N;
    cloth_desc.indices = indices;
    cloth_desc.triangle_count = 2 * (N - 1) * (N - 1);
    XpbdClothId cloth;
    TRY(xpbd_cloth_create(world, &cloth_desc, &cloth));

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

    /* Our own check, independent of the library's distance code: |x| - r - thickness >= 0. */
    const float thickness = cloth_desc.collision_thickness;
    float deepest = 0.0f, lowest = INFINITY;
    for (uint32_t v = 0; v < vertex_count; ++v) {
        const float *x = &out[3 * v];
        float inside = thickness - (sqrtf(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) - radius);
        deepest = inside > deepest ? inside : deepest;
        lowest = x[1] < lowest ? x[1] : lowest;
    }
    const float top = out[3 * (N / 2 * N + N / 2) + 1]; /* the vertex nearest the sphere's top */
    printf("32x32 cloth (1 m) dropped on a sphere (r = 0.3 m), after 2 s at 60 Hz\n");
    printf("vertex over the top at y = %.6f m (sphere top + thickness = %.6f m), lowest vertex y = %.6f m\n", top,
           radius + thickness, lowest);
    printf("deepest vertex inside the thickened sphere: %.3e m (1 %% of the thickness: %.3e m)\n", deepest,
           0.01 * thickness);
    printf("contacts: %" PRIu32 ", reported max penetration %.3e m\n", stats.contact_count, stats.max_penetration);
    printf("bits: %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %" PRIu32 "\n", bits_of(top), bits_of(lowest),
           bits_of(stats.max_penetration), stats.contact_count);
    if (deepest > 0.01f * thickness) {
        fprintf(stderr, "a vertex is %g m inside the thickened sphere\n", deepest);
        goto cleanup;
    }
    status = 0;

cleanup:
    free(out);
    /* Destroying the world destroys the cloth and the sphere too. */
    if (world.id != 0 && !ok(xpbd_world_destroy(world), "xpbd_world_destroy")) {
        status = 1;
    }
    return status;
}
