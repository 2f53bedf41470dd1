/*
 * Drop a 16 x 16 sheet (0.5 m) for 0.5 s at 60 Hz through the installed library and compare its
 * drop with free fall: nothing damps rigid motion at the defaults, so after n substeps of h the
 * sheet has fallen g h^2 n (n + 1) / 2, the symplectic Euler answer (g t^2 / 2 + g t h / 2).
 * Prints the state hash, equal for the shared and the static build. Exit status 0 when the drop
 * agrees to 0.1 mm.
 */
#include "xpbd_cloth.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 16, FRAMES = 30 };

static int check(XpbdResult result, const char *call) {
    if (result == XPBD_RESULT_OK) {
        return 1;
    }
    char message[512];
    xpbd_last_error_message(message, sizeof message);
    fprintf(stderr, "%s failed with %d: %s\n", call, (int)result, message);
    return 0;
}

int main(void) {
    if (xpbd_abi_version() != XPBD_ABI_VERSION) {
        fprintf(stderr, "library ABI %u, header ABI %u\n", xpbd_abi_version(), (unsigned)XPBD_ABI_VERSION);
        return 1;
    }
    static float positions[3 * N * N], after[3 * N * N];
    static uint32_t indices[6 * (N - 1) * (N - 1)];
    for (int j = 0; j < N; ++j) {
        for (int i = 0; i < N; ++i) { /* horizontal, 2 m up */
            float *p = &positions[3 * (j * N + i)];
            p[0] = 0.5f * (float)i / (N - 1), p[1] = 2.0f, p[2] = 0.5f * (float)j / (N - 1);
        }
    }
    uint32_t *t = indices;
    for (uint32_t j = 0; j < N - 1; ++j) {
        for (uint32_t i = 0; i < N - 1; ++i) {
            uint32_t a = j * N + i;
            *t++ = a, *t++ = a + N, *t++ = a + 1, *t++ = a + 1, *t++ = a + N, *t++ = a + N + 1;
        }
    }

    XpbdWorldDesc world_desc = xpbd_default_world_desc(); /* gravity (0, -9.81, 0) m/s^2 */
    XpbdWorldId world;
    if (!check(xpbd_world_create(&world_desc, &world), "xpbd_world_create")) {
        return 1;
    }
    int status = 1;
    XpbdClothDesc cloth_desc = xpbd_default_cloth_desc();
    cloth_desc.positions = positions, cloth_desc.vertex_count = N * N;
    cloth_desc.indices = indices, cloth_desc.triangle_count = 2 * (N - 1) * (N - 1);
    XpbdClothId cloth;
    uint64_t hash = 0;
    if (check(xpbd_cloth_create(world, &cloth_desc, &cloth), "xpbd_cloth_create")) {
        int stepped = 1;
        for (int frame = 0; frame < FRAMES && stepped; ++frame) {
            stepped = check(xpbd_world_step(world, 1.0f / 60.0f), "xpbd_world_step");
        }
        if (stepped && check(xpbd_cloth_read_positions(cloth, after, N * N), "xpbd_cloth_read_positions") &&
            check(xpbd_cloth_state_hash(cloth, &hash), "xpbd_cloth_state_hash")) {
            double drop = 0.0;
            for (int v = 0; v < N * N; ++v) {
                drop += (double)positions[3 * v + 1] - (double)after[3 * v + 1];
            }
            drop /= N * N;
            const double n = (double)FRAMES * world_desc.substeps, h = 1.0 / (60.0 * world_desc.substeps);
            const double expected = -world_desc.gravity[1] * h * h * n * (n + 1.0) / 2.0;
            printf("drop after %.2f s: %.5f m (free fall, %u substeps a step: %.5f m)\n", n * h, drop,
                   world_desc.substeps, expected);
            printf("state hash: %016" PRIx64 "\n", hash);
            status = fabs(drop - expected) < 1e-4 ? 0 : 1;
        }
    }
    if (!check(xpbd_world_destroy(world), "xpbd_world_destroy")) {
        status = 1;
    }
    return status;
}
