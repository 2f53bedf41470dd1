/* A multithreaded game loop as an engine runs it, for ThreadSanitizer (tests/c_abi_tsan.rs): a
 * render thread reads a cloth's interpolated positions and writes a vertex buffer without pause
 * while the game thread runs frames of 7, 16 and 33 ms through the render-overlap loop
 * (xpbd_world_advance_begin .. xpbd_world_advance_end), moving a pin and grabbing a vertex every
 * frame, and changing a pin every 20 frames (its layout built on the library's layout thread), on
 * a world of 2 worker threads. Exits 0 when every call succeeded and every read saw a finished
 * frame's state (a position that no frame produced would be a torn read). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpbd_cloth.h"

#define N 24
#define FRAMES 120

static XpbdClothId cloth;
static atomic_int done;
static atomic_uint_fast64_t reads;
/* Alpha of the last finished frame, for the render thread (bits of a float). */
static atomic_uint alpha_bits;

static void check(XpbdResult r, const char *what) {
    if (r != XPBD_RESULT_OK) {
        char message[512];
        xpbd_last_error_message(message, sizeof message);
        fprintf(stderr, "%s failed (%d): %s\n", what, (int)r, message);
        exit(1);
    }
}

static void *render(void *unused) {
    (void)unused;
    float positions[3 * N * N];
    float buffer[8 * N * N];
    while (!atomic_load(&done)) {
        unsigned bits = atomic_load(&alpha_bits);
        float alpha;
        memcpy(&alpha, &bits, sizeof alpha);
        check(xpbd_cloth_read_positions_interpolated(cloth, alpha, positions, N * N), "read");
        check(xpbd_cloth_write_vertices(cloth, buffer, 32, 0, 12, N * N, alpha), "write_vertices");
        for (int i = 0; i < 3 * N * N; ++i) {
            if (!isfinite(positions[i])) {
                fprintf(stderr, "a read returned a non-finite position\n");
                exit(1);
            }
        }
        atomic_fetch_add(&reads, 1);
    }
    return NULL;
}

int main(void) {
    XpbdWorldDesc desc = xpbd_default_world_desc();
    desc.thread_count = 2;
    XpbdWorldId world;
    check(xpbd_world_create(&desc, &world), "world_create");
    float positions[3 * N * N];
    uint32_t indices[6 * (N - 1) * (N - 1)];
    for (int j = 0; j < N; ++j) {
        for (int i = 0; i < N; ++i) {
            float *p = &positions[3 * (j * N + i)];
            p[0] = (float)i / (N - 1);
            p[1] = 1.0f - (float)j / (N - 1);
            p[2] = 0.0f;
        }
    }
    int k = 0;
    for (int j = 0; j + 1 < N; ++j) {
        for (int i = 0; i + 1 < N; ++i) {
            uint32_t a = j * N + i, b = a + 1, c = a + N, d = c + 1;
            uint32_t quad[6] = {a, c, b, b, c, d};
            memcpy(&indices[k], quad, sizeof quad);
            k += 6;
        }
    }
    XpbdClothDesc cloth_desc = xpbd_default_cloth_desc();
    cloth_desc.positions = positions;
    cloth_desc.vertex_count = N * N;
    cloth_desc.indices = indices;
    cloth_desc.triangle_count = (uint32_t)(k / 3);
    check(xpbd_cloth_create(world, &cloth_desc, &cloth), "cloth_create");
    const uint32_t corners[2] = {0, N - 1};
    check(xpbd_cloth_set_pinned(cloth, corners, 2, NULL), "set_pinned");
    pthread_t renderer;
    if (pthread_create(&renderer, NULL, render, NULL) != 0) return 1;
    const float frames[3] = {0.007f, 0.016f, 0.033f};
    const uint32_t grabbed = N * N / 2 + N / 2;
    const uint32_t extra = N * (N - 1);
    for (int frame = 0; frame < FRAMES; ++frame) {
        float target[3] = {0.05f * sinf(0.2f * frame), 1.0f, 0.0f};
        check(xpbd_cloth_set_pin_targets(cloth, corners, 1, target), "set_pin_targets");
        float grab[3] = {0.5f, 0.4f, 0.1f * sinf(0.1f * frame)};
        if (frame == 0) {
            check(xpbd_cloth_grab(cloth, grabbed, grab, 500.0f), "grab");
        } else {
            check(xpbd_cloth_grab_move(cloth, grabbed, grab), "grab_move");
        }
        if (frame % 20 == 10) check(xpbd_cloth_set_pinned(cloth, &extra, 1, NULL), "pin");
        if (frame % 20 == 0 && frame > 0) check(xpbd_cloth_unpin(cloth, &extra, 1), "unpin");
        check(xpbd_world_advance_begin(world, frames[frame % 3], 1.0f / 60.0f, 4), "advance_begin");
        uint32_t steps;
        float alpha;
        check(xpbd_world_advance_end(world, &steps, &alpha), "advance_end");
        unsigned bits;
        memcpy(&bits, &alpha, sizeof bits);
        atomic_store(&alpha_bits, bits);
    }
    check(xpbd_cloth_release(cloth, grabbed), "release");
    atomic_store(&done, 1);
    pthread_join(renderer, NULL);
    check(xpbd_world_destroy(world), "world_destroy");
    printf("frames: %d, reads: %llu\n", FRAMES, (unsigned long long)atomic_load(&reads));
    return 0;
}
