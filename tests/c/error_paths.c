/*
 * Every error path of the C API, with the exact XpbdResult each must return, that the message
 * names the culprit, and that a failed call changed nothing. Run by tests/c_abi_programs.rs; prints
 * "N passed, M failed" and exits non-zero on any failure.
 */
#include "xpbd_cloth.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;

static const char *last_message(void) {
    static char buf[1024];
    xpbd_last_error_message(buf, sizeof buf);
    return buf;
}

/* Check that `call` returns `expected` and, for errors, that the message contains `needle`. */
static void expect(const char *file, int line, const char *call, XpbdResult got, XpbdResult expected,
                   const char *needle) {
    if (got != expected) {
        failed++;
        fprintf(stderr, "%s:%d: %s returned %d, expected %d (%s)\n", file, line, call, (int)got, (int)expected,
                last_message());
        return;
    }
    if (needle && !strstr(last_message(), needle)) {
        failed++;
        fprintf(stderr, "%s:%d: %s: message \"%s\" does not mention \"%s\"\n", file, line, call, last_message(),
                needle);
        return;
    }
    passed++;
}
#define EXPECT(call, code, needle) expect(__FILE__, __LINE__, #call, (call), (code), (needle))
#define EXPECT_OK(call) EXPECT(call, XPBD_RESULT_OK, NULL)
#define CHECK(cond)                                                               \
    do {                                                                          \
        if (cond) {                                                               \
            passed++;                                                             \
        } else {                                                                  \
            failed++;                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                         \
    } while (0)

/* A 3 x 3 grid of vertices, 0.5 m apart in the x-z plane: 9 vertices, 8 triangles. */
static float grid_positions[27];
static uint32_t grid_indices[24];

static void make_grid(void) {
    for (int j = 0; j < 3; ++j) {
        for (int i = 0; i < 3; ++i) {
            float *p = &grid_positions[3 * (j * 3 + i)];
            p[0] = 0.5f * (float)i, p[1] = 0.0f, p[2] = 0.5f * (float)j;
        }
    }
    uint32_t *t = grid_indices;
    for (uint32_t j = 0; j < 2; ++j) {
        for (uint32_t i = 0; i < 2; ++i) {
            uint32_t a = j * 3 + i, b = a + 1, c = a + 3, d = a + 4;
            *t++ = a, *t++ = c, *t++ = b, *t++ = b, *t++ = c, *t++ = d;
        }
    }
}

static XpbdClothDesc grid_desc(void) {
    XpbdClothDesc d = xpbd_default_cloth_desc();
    d.positions = grid_positions;
    d.vertex_count = 9;
    d.indices = grid_indices;
    d.triangle_count = 8;
    return d;
}

static const XpbdWorldId SENTINEL_WORLD = {0x5e5e5e5e5e5e5e5eull};
static const XpbdClothId SENTINEL_CLOTH = {0x5e5e5e5e5e5e5e5eull};
static const XpbdColliderId SENTINEL_COLLIDER = {0x5e5e5e5e5e5e5e5eull};

static void world_errors(XpbdWorldId *out_world) {
    XpbdWorldDesc wd = xpbd_default_world_desc();
    XpbdWorldId w = SENTINEL_WORLD;
    EXPECT(xpbd_world_create(NULL, &w), XPBD_RESULT_NULL_POINTER, "`desc` is NULL");
    EXPECT(xpbd_world_create(&wd, NULL), XPBD_RESULT_NULL_POINTER, "`out_world` is NULL");

    XpbdWorldDesc bad = wd;
    bad.substeps = 0;
    EXPECT(xpbd_world_create(&bad, &w), XPBD_RESULT_INVALID_ARGUMENT, "substeps");
    bad = wd;
    bad.iterations = 1001;
    EXPECT(xpbd_world_create(&bad, &w), XPBD_RESULT_INVALID_ARGUMENT, "iterations");
    bad = wd;
    bad.gravity[1] = NAN;
    EXPECT(xpbd_world_create(&bad, &w), XPBD_RESULT_INVALID_ARGUMENT, "gravity");
    bad = wd;
    bad.thread_count = 100000;
    EXPECT(xpbd_world_create(&bad, &w), XPBD_RESULT_INVALID_ARGUMENT, "thread_count");
    CHECK(w.id == SENTINEL_WORLD.id); /* failed creates never write the out-parameter */

    wd.thread_count = 1;
    EXPECT_OK(xpbd_world_create(&wd, &w));
    CHECK(w.id != 0 && w.id != SENTINEL_WORLD.id);

    EXPECT(xpbd_world_step(w, 0.0f), XPBD_RESULT_INVALID_ARGUMENT, "time step 0");
    EXPECT(xpbd_world_step(w, -0.016f), XPBD_RESULT_INVALID_ARGUMENT, "time step");
    EXPECT(xpbd_world_step(w, NAN), XPBD_RESULT_INVALID_ARGUMENT, "time step NaN");
    EXPECT(xpbd_world_step(w, INFINITY), XPBD_RESULT_INVALID_ARGUMENT, "time step");
    EXPECT(xpbd_world_step(w, 1.0001f), XPBD_RESULT_INVALID_ARGUMENT, "expected 1e-5 <= dt <= 1");
    /* Below 10 us the substep's alpha/h^2 and 1/h overflow: refused rather than turned into NaN. */
    EXPECT(xpbd_world_step(w, 1e-30f), XPBD_RESULT_INVALID_ARGUMENT, "time step 0.000");
    EXPECT_OK(xpbd_world_step(w, 1.0f)); /* exactly 1 s is allowed */
    EXPECT(xpbd_world_set_gravity(w, 0.0f, INFINITY, 0.0f), XPBD_RESULT_INVALID_ARGUMENT, "gravity");

    /* The asynchronous step: calls in the wrong order get codes of their own. */
    EXPECT(xpbd_world_step_end(w), XPBD_RESULT_STEP_NOT_BEGUN, "xpbd_world_step_end: no step was begun");
    EXPECT(xpbd_world_step_begin(w, 0.0f), XPBD_RESULT_INVALID_ARGUMENT, "time step 0");
    EXPECT(xpbd_world_step_end(w), XPBD_RESULT_STEP_NOT_BEGUN, NULL); /* the bad dt began nothing */
    EXPECT_OK(xpbd_world_step_begin(w, 1.0f / 60.0f));
    EXPECT(xpbd_world_step_begin(w, 1.0f / 60.0f), XPBD_RESULT_STEP_IN_PROGRESS, "call step_end first");
    EXPECT(xpbd_world_step(w, 1.0f / 60.0f), XPBD_RESULT_STEP_IN_PROGRESS, "xpbd_world_step:");
    EXPECT_OK(xpbd_world_step_end(w));

    /* Null, forged and wrong-kind world ids. */
    XpbdWorldId null_world = {0};
    EXPECT(xpbd_world_step(null_world, 0.01f), XPBD_RESULT_INVALID_ID, "world id 0x0000000000000000");
    XpbdWorldId forged = {0xdeadbeefcafebabeull};
    EXPECT(xpbd_world_step(forged, 0.01f), XPBD_RESULT_INVALID_ID, "world id 0xdeadbeefcafebabe");
    XpbdWorldId wrong_generation = {w.id + (1ull << 16)};
    EXPECT(xpbd_world_step(wrong_generation, 0.01f), XPBD_RESULT_INVALID_ID, "forged");
    XpbdWorldId unused_slot = {(w.id & ~0xffffull) | 0xfffeull};
    EXPECT(xpbd_world_step(unused_slot, 0.01f), XPBD_RESULT_INVALID_ID, "forged");
    EXPECT(xpbd_world_destroy(forged), XPBD_RESULT_INVALID_ID, NULL);
    *out_world = w;
}

static void create_errors(XpbdWorldId w) {
    XpbdClothDesc d = grid_desc();
    XpbdClothId c = SENTINEL_CLOTH;
    EXPECT(xpbd_cloth_create(w, NULL, &c), XPBD_RESULT_NULL_POINTER, "`desc` is NULL");
    EXPECT(xpbd_cloth_create(w, &d, NULL), XPBD_RESULT_NULL_POINTER, "`out_cloth` is NULL");

    XpbdClothDesc bad = d;
    bad.positions = NULL;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_NULL_POINTER, "`positions` is NULL but its count is 9");
    bad = d;
    bad.indices = NULL;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_NULL_POINTER, "`indices` is NULL but its count is 8");
    bad = d;
    bad.positions = NULL, bad.vertex_count = 0, bad.indices = NULL, bad.triangle_count = 0;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_MESH, "no vertices");

    /* Mesh errors name the triangle or vertex. */
    uint32_t indices[24];
    memcpy(indices, grid_indices, sizeof indices);
    indices[4] = 9;
    bad = d;
    bad.indices = indices;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_MESH, "triangle 1 refers to vertex 9");
    memcpy(indices, grid_indices, sizeof indices);
    indices[1] = indices[0];
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_MESH, "triangle 0 is degenerate");
    float positions[27];
    memcpy(positions, grid_positions, sizeof positions);
    positions[3 * 2 + 1] = NAN;
    bad = d;
    bad.positions = positions;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_MESH, "vertex 2 has a NaN");
    positions[3 * 2 + 1] = -INFINITY;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_MESH, "vertex 2");

    /* Impossible descriptor values. */
    bad = d;
    bad.stretch_compliance_from_material = 0;
    bad.stretch_compliance = -1e-6f;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "stretch_compliance");
    bad = d;
    bad.bend_compliance_from_material = 0;
    bad.bend_compliance = NAN;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "bend_compliance");
    bad = d;
    bad.stretch_compliance = 1e-6f; /* set, but the flag still says "from the material" */
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "`stretch_compliance_from_material` = 1");
    bad = d;
    bad.stretch_compliance = -1.0f; /* negative is never a sentinel */
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "stretch_compliance");
    bad = d;
    bad.substeps = 5000;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "substeps");
    bad = d;
    bad.enable_bending = 2;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "`enable_bending` = 2");
    bad = d;
    bad.bend_compliance_from_material = 7;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "bend_compliance_from_material");
    bad = d;
    bad.areal_density = 0.0f;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "areal_density");
    bad = d;
    bad.poisson_ratio = 0.5f;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "poisson_ratio");
    bad = d;
    bad.thickness = -1e-3f;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "thickness");
    bad = d;
    bad.tether_slack = 0.5f;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "tether_slack");
    bad = d;
    bad.weld_tolerance = -1.0f;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "weld_tolerance");
    bad = d;
    bad.external_acceleration[2] = NAN;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "external_acceleration");
    /* Collision and wind settings. */
    CHECK(d.collision_thickness == 0.005f && d.collision_mask == 0xffffffffu && d.max_depenetration_speed == 0.5f);
    CHECK(d.wind_velocity[0] == 0.0f && d.drag_coefficient == 0.0f && d.lift_coefficient == 0.0f);
    CHECK(d.air_density == 1.225f);
    bad = d;
    bad.collision_thickness = -1e-3f;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "`collision_thickness` = -0.001");
    bad.collision_thickness = 1.5f;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "collision_thickness");
    bad.collision_thickness = NAN;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "collision_thickness");
    bad = d;
    bad.max_depenetration_speed = 0.0f;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "`max_depenetration_speed` = 0");
    bad = d;
    bad.wind_velocity[0] = 3.0f, bad.wind_velocity[2] = 4.0f; /* wind without drag or lift */
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "`wind_velocity` = 5");
    bad.drag_coefficient = NAN;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "drag_coefficient");
    bad.drag_coefficient = 1.0f;
    bad.wind_velocity[1] = INFINITY;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "wind_velocity");
    bad = d;
    bad.lift_coefficient = -0.2f;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "lift_coefficient");
    bad = d;
    bad.air_density = -1.0f;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "air_density");
    float inverse_masses[9] = {1, 1, 1, 1, 1, 1, 1, -2, 1};
    bad = d;
    bad.inverse_masses = inverse_masses;
    EXPECT(xpbd_cloth_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "inverse mass of vertex 7");

    XpbdWorldId null_world = {0};
    EXPECT(xpbd_cloth_create(null_world, &d, &c), XPBD_RESULT_INVALID_ID, "world id");
    CHECK(c.id == SENTINEL_CLOTH.id);
}

static void cloth_errors(XpbdWorldId w) {
    XpbdClothDesc d = grid_desc();
    XpbdClothId c;
    EXPECT_OK(xpbd_cloth_create(w, &d, &c));

    uint32_t count = 0;
    EXPECT(xpbd_cloth_vertex_count(c, NULL), XPBD_RESULT_NULL_POINTER, "`out_count` is NULL");
    EXPECT(xpbd_cloth_particle_count(c, NULL), XPBD_RESULT_NULL_POINTER, "`out_count` is NULL");
    EXPECT_OK(xpbd_cloth_vertex_count(c, &count));
    CHECK(count == 9);
    EXPECT_OK(xpbd_cloth_particle_count(c, &count));
    CHECK(count == 9);

    /* Output buffers: NULL with a count, and counts that differ from the mesh's; untouched on error. */
    float out[3 * 10];
    for (int k = 0; k < 30; ++k) {
        out[k] = 12345.0f;
    }
    EXPECT(xpbd_cloth_read_positions(c, NULL, 9), XPBD_RESULT_NULL_POINTER, "`out` is NULL but its count is 9");
    EXPECT(xpbd_cloth_read_positions(c, out, 8), XPBD_RESULT_BUFFER_SIZE_MISMATCH, "expected 9, got 8");
    EXPECT(xpbd_cloth_read_positions(c, out, 10), XPBD_RESULT_BUFFER_SIZE_MISMATCH, "expected 9, got 10");
    EXPECT(xpbd_cloth_read_positions(c, NULL, 0), XPBD_RESULT_BUFFER_SIZE_MISMATCH, "expected 9, got 0");
    EXPECT(xpbd_cloth_read_normals(c, out, 8), XPBD_RESULT_BUFFER_SIZE_MISMATCH, "xpbd_cloth_read_normals");
    EXPECT(xpbd_cloth_read_normals(c, NULL, 9), XPBD_RESULT_NULL_POINTER, "`out`");
    CHECK(out[0] == 12345.0f && out[29] == 12345.0f);
    uint32_t map[10];
    EXPECT(xpbd_cloth_read_particle_map(c, map, 10), XPBD_RESULT_BUFFER_SIZE_MISMATCH, "expected 9, got 10");
    EXPECT(xpbd_cloth_read_particle_map(c, NULL, 9), XPBD_RESULT_NULL_POINTER, "`out`");
    EXPECT_OK(xpbd_cloth_read_particle_map(c, map, 9));
    CHECK(map[0] == 0 && map[8] == 8);
    EXPECT_OK(xpbd_cloth_read_positions(c, out, 9));
    CHECK(out[3 * 4 + 0] == 0.5f && out[3 * 4 + 2] == 0.5f);

    /* Pins: NULL arrays, indices out of range, non-finite targets, not-pinned vertices. */
    const uint32_t corner_and_bad[2] = {0, 9};
    const float finite_targets[6] = {0, 1, 0, 1, 1, 0};
    const float nan_targets[6] = {0, 1, 0, NAN, 1, 0};
    const float inf_targets[6] = {0, 1, 0, 1, INFINITY, 0};
    /* Finite but beyond the +-1e5 m every other coordinate is held to (teleport, colliders): such a
     * pin made every later step non-finite and rolled back, instead of being refused here. */
    const float far_targets[6] = {0, 1, 0, 1.0e30f, 1, 0};
    const uint32_t corners[2] = {0, 2};
    EXPECT(xpbd_cloth_set_pinned(c, NULL, 2, NULL), XPBD_RESULT_NULL_POINTER, "`vertices` is NULL but its count is 2");
    EXPECT(xpbd_cloth_set_pinned(c, corner_and_bad, 2, NULL), XPBD_RESULT_INVALID_ARGUMENT,
           "vertex index 9 at list position 1 is out of range");
    EXPECT(xpbd_cloth_set_pinned(c, corners, 2, nan_targets), XPBD_RESULT_INVALID_ARGUMENT,
           "target at list position 1");
    EXPECT(xpbd_cloth_set_pinned(c, corners, 2, inf_targets), XPBD_RESULT_INVALID_ARGUMENT,
           "target at list position 1");
    EXPECT(xpbd_cloth_set_pinned(c, corners, 2, far_targets), XPBD_RESULT_INVALID_ARGUMENT,
           "target at list position 1");
    /* None of the failed calls pinned vertex 0: moving its target says it is not pinned. */
    EXPECT(xpbd_cloth_set_pin_targets(c, corners, 1, finite_targets), XPBD_RESULT_INVALID_ARGUMENT,
           "vertex 0 is not pinned");
    EXPECT_OK(xpbd_cloth_set_pinned(c, NULL, 0, NULL)); /* an empty list is fine */
    EXPECT_OK(xpbd_cloth_set_pinned(c, corners, 2, NULL));
    EXPECT(xpbd_cloth_set_pin_targets(c, corners, 2, NULL), XPBD_RESULT_NULL_POINTER,
           "`targets` is NULL but its count is 2");
    EXPECT(xpbd_cloth_set_pin_targets(c, NULL, 2, finite_targets), XPBD_RESULT_NULL_POINTER, "`vertices`");
    EXPECT(xpbd_cloth_set_pin_targets(c, corner_and_bad, 2, finite_targets), XPBD_RESULT_INVALID_ARGUMENT,
           "vertex index 9");
    EXPECT(xpbd_cloth_set_pin_targets(c, corners, 2, nan_targets), XPBD_RESULT_INVALID_ARGUMENT, "position 1");
    EXPECT(xpbd_cloth_set_pin_targets(c, corners, 2, far_targets), XPBD_RESULT_INVALID_ARGUMENT, "position 1");
    const uint32_t unpinned[1] = {4};
    EXPECT(xpbd_cloth_set_pin_targets(c, unpinned, 1, finite_targets), XPBD_RESULT_INVALID_ARGUMENT,
           "vertex 4 is not pinned");
    EXPECT(xpbd_cloth_unpin(c, NULL, 1), XPBD_RESULT_NULL_POINTER, "`vertices`");
    EXPECT(xpbd_cloth_unpin(c, corner_and_bad, 2), XPBD_RESULT_INVALID_ARGUMENT, "vertex index 9");
    /* The failed unpin released nothing: corner 0's target can still be moved. */
    EXPECT_OK(xpbd_cloth_set_pin_targets(c, corners, 2, finite_targets));
    EXPECT_OK(xpbd_world_step(w, 1.0f / 60.0f));
    EXPECT_OK(xpbd_cloth_read_positions(c, out, 9));
    CHECK(out[1] == 1.0f && out[3 * 2 + 0] == 1.0f && out[3 * 2 + 1] == 1.0f); /* targets reached */
    EXPECT_OK(xpbd_cloth_unpin(c, corners, 2));

    /* Settings: NULL, impossible values; the settings are unchanged after each failure. */
    XpbdClothParams before, after;
    EXPECT(xpbd_cloth_get_params(c, NULL), XPBD_RESULT_NULL_POINTER, "`out_params`");
    EXPECT_OK(xpbd_cloth_get_params(c, &before));
    EXPECT(xpbd_cloth_set_params(c, NULL), XPBD_RESULT_NULL_POINTER, "`params` is NULL");
    XpbdClothParams p = before;
    p.linear_damping = -1.0f;
    EXPECT(xpbd_cloth_set_params(c, &p), XPBD_RESULT_INVALID_ARGUMENT, "linear_damping");
    p = before;
    p.enable_tethers = 0xffffffffu;
    EXPECT(xpbd_cloth_set_params(c, &p), XPBD_RESULT_INVALID_ARGUMENT, "enable_tethers");
    p = before;
    p.iterations = 1001;
    EXPECT(xpbd_cloth_set_params(c, &p), XPBD_RESULT_INVALID_ARGUMENT, "iterations");
    p = before;
    p.collision_thickness = -0.01f;
    EXPECT(xpbd_cloth_set_params(c, &p), XPBD_RESULT_INVALID_ARGUMENT, "collision_thickness");
    p = before;
    p.wind_velocity[1] = 2.0f; /* no drag or lift coefficient: the wind would do nothing */
    EXPECT(xpbd_cloth_set_params(c, &p), XPBD_RESULT_INVALID_ARGUMENT, "wind_velocity");
    p = before;
    p.max_depenetration_speed = INFINITY;
    EXPECT(xpbd_cloth_set_params(c, &p), XPBD_RESULT_INVALID_ARGUMENT, "max_depenetration_speed");
    XpbdClothMaterial m = xpbd_default_cloth_material();
    EXPECT(xpbd_cloth_set_material(c, NULL), XPBD_RESULT_NULL_POINTER, "`material` is NULL");
    m.youngs_modulus = -5.0f;
    EXPECT(xpbd_cloth_set_material(c, &m), XPBD_RESULT_INVALID_ARGUMENT, "youngs_modulus");
    m = xpbd_default_cloth_material();
    m.bend_compliance = 1e-3f;
    EXPECT(xpbd_cloth_set_material(c, &m), XPBD_RESULT_INVALID_ARGUMENT, "bend_compliance_from_material");
    EXPECT_OK(xpbd_cloth_get_params(c, &after));
    CHECK(memcmp(&before, &after, sizeof before) == 0);
    EXPECT(xpbd_cloth_get_stats(c, NULL), XPBD_RESULT_NULL_POINTER, "`out_stats`");

    /* Stale ids: destroyed twice, used after destroy, slot reused by a new cloth. */
    EXPECT_OK(xpbd_cloth_destroy(c));
    EXPECT(xpbd_cloth_destroy(c), XPBD_RESULT_INVALID_ID, "cloth id");
    EXPECT(xpbd_cloth_read_positions(c, out, 9), XPBD_RESULT_INVALID_ID, "stale");
    EXPECT(xpbd_cloth_vertex_count(c, &count), XPBD_RESULT_INVALID_ID, NULL);
    XpbdClothId reused;
    EXPECT_OK(xpbd_cloth_create(w, &d, &reused));
    CHECK((reused.id >> 32 & 0xffff) == (c.id >> 32 & 0xffff)); /* same slot... */
    CHECK(reused.id != c.id);                                   /* ...new generation */
    EXPECT(xpbd_cloth_set_pinned(c, corners, 2, NULL), XPBD_RESULT_INVALID_ID, NULL);
    EXPECT_OK(xpbd_cloth_set_pinned(reused, corners, 2, NULL));

    /* Forged and wrong-kind cloth ids. */
    XpbdClothId null_cloth = {0};
    XpbdClothId world_as_cloth = {w.id};
    XpbdClothId forged_slot = {reused.id + (5ull << 32)};
    XpbdClothId forged_generation = {reused.id + (1ull << 48)};
    XpbdClothId forged_world = {reused.id ^ 0x00000000ffff0000ull};
    XpbdWorldId cloth_as_world = {reused.id};
    EXPECT(xpbd_cloth_destroy(null_cloth), XPBD_RESULT_INVALID_ID, "cloth id 0x0000000000000000");
    EXPECT(xpbd_cloth_vertex_count(world_as_cloth, &count), XPBD_RESULT_INVALID_ID, NULL);
    EXPECT(xpbd_cloth_vertex_count(forged_slot, &count), XPBD_RESULT_INVALID_ID, NULL);
    EXPECT(xpbd_cloth_vertex_count(forged_generation, &count), XPBD_RESULT_INVALID_ID, NULL);
    EXPECT(xpbd_cloth_vertex_count(forged_world, &count), XPBD_RESULT_INVALID_ID, NULL);
    EXPECT(xpbd_world_step(cloth_as_world, 0.01f), XPBD_RESULT_INVALID_ID, NULL);

    /* Destroying the world destroys its cloths: their ids go stale. */
    EXPECT_OK(xpbd_world_destroy(w));
    EXPECT(xpbd_world_destroy(w), XPBD_RESULT_INVALID_ID, "world id");
    EXPECT(xpbd_world_step(w, 0.01f), XPBD_RESULT_INVALID_ID, NULL);
    EXPECT(xpbd_cloth_vertex_count(reused, &count), XPBD_RESULT_INVALID_ID, NULL);
    EXPECT(xpbd_cloth_destroy(reused), XPBD_RESULT_INVALID_ID, NULL);
}

static int pose_is(XpbdColliderId c, const float position[3], const float rotation[4]) {
    float p[3], r[4];
    return xpbd_collider_get_pose(c, p, r) == XPBD_RESULT_OK && memcmp(p, position, sizeof p) == 0 &&
           memcmp(r, rotation, sizeof r) == 0;
}

static void collider_errors(void) {
    XpbdWorldDesc wd = xpbd_default_world_desc();
    wd.thread_count = 1;
    XpbdWorldId w;
    EXPECT_OK(xpbd_world_create(&wd, &w));
    XpbdClothDesc cd = grid_desc();
    XpbdClothId cloth;
    EXPECT_OK(xpbd_cloth_create(w, &cd, &cloth)); /* the world's first cloth: slot 0, generation 1 */

    XpbdColliderDesc d = xpbd_default_collider_desc_for(XPBD_COLLIDER_KIND_SPHERE);
    CHECK(d.kind == XPBD_COLLIDER_KIND_SPHERE && d.radius == 0.5f && d.layers == 1u && d.half_extents[0] == 0.0f);
    CHECK(d.rotation[0] == 0.0f && d.rotation[3] == 1.0f && d.static_friction == 0.5f && d.kinetic_friction == 0.4f);
    XpbdColliderId c = SENTINEL_COLLIDER;
    /* Per-kind defaults: a box has no rounding; the plain default has no dimensions at all, so it
     * is rejected as it is, and a sphere's radius never becomes a box's rounding. */
    XpbdColliderDesc box = xpbd_default_collider_desc_for(XPBD_COLLIDER_KIND_BOX);
    CHECK(box.kind == XPBD_COLLIDER_KIND_BOX && box.radius == 0.0f && box.half_extents[0] == 0.5f && box.half_extents[2] == 0.5f);
    XpbdColliderDesc capsule = xpbd_default_collider_desc_for(XPBD_COLLIDER_KIND_CAPSULE);
    CHECK(capsule.radius == 0.5f && capsule.half_height == 0.5f);
    XpbdColliderDesc plain = xpbd_default_collider_desc();
    CHECK(plain.kind == XPBD_COLLIDER_KIND_SPHERE && plain.radius == 0.0f && plain.half_extents[1] == 0.0f && plain.layers == 1u);
    EXPECT(xpbd_collider_create(w, &plain, &c), XPBD_RESULT_INVALID_ARGUMENT, "`radius` = 0");
    XpbdColliderDesc switched = d;
    switched.kind = XPBD_COLLIDER_KIND_BOX;
    EXPECT(xpbd_collider_create(w, &switched, &c), XPBD_RESULT_INVALID_ARGUMENT, "`half_extents` = 0");
    XpbdColliderDesc unknown = xpbd_default_collider_desc_for(9);
    EXPECT(xpbd_collider_create(w, &unknown, &c), XPBD_RESULT_INVALID_ARGUMENT, "`kind` = 9");
    CHECK(c.id == SENTINEL_COLLIDER.id);
    EXPECT(xpbd_collider_create(w, NULL, &c), XPBD_RESULT_NULL_POINTER, "`desc` is NULL");
    EXPECT(xpbd_collider_create(w, &d, NULL), XPBD_RESULT_NULL_POINTER, "`out_collider` is NULL");

    /* Impossible descriptors, each naming its field. */
    XpbdColliderDesc bad = d;
    bad.kind = 5;
    EXPECT(xpbd_collider_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "`kind` = 5");
    bad.kind = XPBD_COLLIDER_KIND_MESH; /* no mesh_shape set */
    EXPECT(xpbd_collider_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "`mesh_shape`");
    bad.kind = 0xffffffffu;
    EXPECT(xpbd_collider_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "0 sphere, 1 capsule, 2 plane, 3 box");
    bad = d;
    bad.radius = -0.1f;
    EXPECT(xpbd_collider_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "`radius` = -0.1");
    bad.radius = 0.0f;
    EXPECT(xpbd_collider_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "`radius` = 0");
    bad.radius = NAN;
    EXPECT(xpbd_collider_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "`radius` = NaN");
    bad = d;
    bad.kind = XPBD_COLLIDER_KIND_CAPSULE;
    bad.half_height = -0.5f;
    EXPECT(xpbd_collider_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "`half_height` = -0.5");
    bad = box;
    bad.half_extents[1] = 0.0f;
    EXPECT(xpbd_collider_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "`half_extents` = 0");
    bad.half_extents[1] = 0.2f;
    bad.radius = 0.25f; /* rounding beyond the smallest half extent */
    EXPECT(xpbd_collider_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "box rounding");
    bad = d;
    bad.static_friction = -0.5f;
    EXPECT(xpbd_collider_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "static_friction");
    bad = d;
    bad.kinetic_friction = INFINITY;
    EXPECT(xpbd_collider_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "kinetic_friction");
    bad = d;
    bad.position[1] = NAN;
    EXPECT(xpbd_collider_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "`position` = NaN");
    bad.position[1] = 2e5f;
    EXPECT(xpbd_collider_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "position");
    bad = d;
    bad.rotation[3] = 2.0f; /* not a unit quaternion */
    EXPECT(xpbd_collider_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "`rotation` = 2");
    bad.rotation[3] = 0.0f;
    EXPECT(xpbd_collider_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "unit quaternion");
    bad.rotation[3] = 1.0f, bad.rotation[0] = NAN;
    EXPECT(xpbd_collider_create(w, &bad, &c), XPBD_RESULT_INVALID_ARGUMENT, "rotation");
    XpbdWorldId null_world = {0};
    EXPECT(xpbd_collider_create(null_world, &d, &c), XPBD_RESULT_INVALID_ID, "world id");
    CHECK(c.id == SENTINEL_COLLIDER.id); /* no failed create wrote the id */

    /* The first collider shares the first cloth's world, slot and generation: only bit 47 differs. */
    d.position[1] = -1.0f;
    EXPECT_OK(xpbd_collider_create(w, &d, &c));
    CHECK((c.id ^ cloth.id) == 1ull << 47);
    const float start_position[3] = {0.0f, -1.0f, 0.0f}, identity[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    CHECK(pose_is(c, start_position, identity));

    /* Poses: NULL arrays, NaN / out-of-range positions, non-unit rotations; the target is unchanged. */
    const float position[3] = {1.0f, 2.0f, 3.0f}, half_turn[4] = {0.0f, 1.0f, 0.0f, 0.0f};
    const float nan_position[3] = {NAN, 0.0f, 0.0f}, far_position[3] = {0.0f, 0.0f, -1e6f};
    const float long_rotation[4] = {0.0f, 0.0f, 0.0f, 1.01f}, zero_rotation[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    const float nan_rotation[4] = {0.0f, NAN, 0.0f, 1.0f};
    EXPECT(xpbd_collider_set_pose(c, NULL, identity), XPBD_RESULT_NULL_POINTER, "`position` is NULL");
    EXPECT(xpbd_collider_set_pose(c, position, NULL), XPBD_RESULT_NULL_POINTER, "`rotation` is NULL");
    EXPECT(xpbd_collider_set_pose(c, nan_position, identity), XPBD_RESULT_INVALID_ARGUMENT, "`position` = NaN");
    EXPECT(xpbd_collider_set_pose(c, far_position, identity), XPBD_RESULT_INVALID_ARGUMENT, "within");
    EXPECT(xpbd_collider_set_pose(c, position, long_rotation), XPBD_RESULT_INVALID_ARGUMENT, "unit quaternion");
    EXPECT(xpbd_collider_set_pose(c, position, zero_rotation), XPBD_RESULT_INVALID_ARGUMENT, "`rotation` = 0");
    EXPECT(xpbd_collider_set_pose(c, position, nan_rotation), XPBD_RESULT_INVALID_ARGUMENT, "rotation");
    EXPECT_OK(xpbd_world_step(w, 1.0f / 60.0f));
    CHECK(pose_is(c, start_position, identity)); /* none of the failed calls moved it */
    EXPECT_OK(xpbd_collider_set_pose(c, position, half_turn));
    CHECK(pose_is(c, start_position, identity)); /* a target, reached by the step... */
    EXPECT_OK(xpbd_world_step(w, 1.0f / 60.0f));
    CHECK(pose_is(c, position, half_turn)); /* ...exactly at its end */

    /* Read-backs: NULL out-parameters write nothing. */
    float out_position[3] = {7.0f, 7.0f, 7.0f}, out_rotation[4];
    EXPECT(xpbd_collider_get_pose(c, NULL, out_rotation), XPBD_RESULT_NULL_POINTER, "`out_position` is NULL");
    EXPECT(xpbd_collider_get_pose(c, out_position, NULL), XPBD_RESULT_NULL_POINTER, "`out_rotation` is NULL");
    CHECK(out_position[0] == 7.0f);
    EXPECT(xpbd_collider_get_desc(c, NULL), XPBD_RESULT_NULL_POINTER, "`out_desc` is NULL");
    XpbdColliderDesc read;
    EXPECT_OK(xpbd_collider_get_desc(c, &read));
    CHECK(read.kind == XPBD_COLLIDER_KIND_SPHERE && read.radius == 0.5f && read.layers == 1u);
    CHECK(memcmp(read.position, position, sizeof position) == 0 && memcmp(read.rotation, half_turn, sizeof half_turn) == 0);

    /* Fields a kind does not use are ignored, not checked: a plane has no radius. */
    XpbdColliderDesc plane = xpbd_default_collider_desc_for(XPBD_COLLIDER_KIND_PLANE);
    plane.radius = -1.0f;
    XpbdColliderId ground;
    EXPECT_OK(xpbd_collider_create(w, &plane, &ground));
    EXPECT_OK(xpbd_collider_destroy(ground));

    /* Wrong-kind and forged ids. */
    XpbdColliderId cloth_as_collider = {cloth.id}, world_as_collider = {w.id}, null_collider = {0};
    XpbdClothId collider_as_cloth = {c.id};
    XpbdWorldId collider_as_world = {c.id};
    XpbdColliderId forged_slot = {c.id + (5ull << 32)}, forged_generation = {c.id + (1ull << 48)};
    XpbdColliderId forged_world = {c.id ^ 0x00000000ffff0000ull};
    uint32_t count;
    EXPECT(xpbd_collider_set_pose(cloth_as_collider, position, identity), XPBD_RESULT_INVALID_ID, "collider id");
    EXPECT(xpbd_collider_destroy(cloth_as_collider), XPBD_RESULT_INVALID_ID, "collider id");
    EXPECT(xpbd_cloth_vertex_count(collider_as_cloth, &count), XPBD_RESULT_INVALID_ID, "cloth id");
    EXPECT(xpbd_cloth_destroy(collider_as_cloth), XPBD_RESULT_INVALID_ID, "cloth id");
    EXPECT(xpbd_world_step(collider_as_world, 0.01f), XPBD_RESULT_INVALID_ID, "world id");
    EXPECT(xpbd_collider_destroy(world_as_collider), XPBD_RESULT_INVALID_ID, NULL);
    EXPECT(xpbd_collider_destroy(null_collider), XPBD_RESULT_INVALID_ID, "collider id 0x0000000000000000");
    EXPECT(xpbd_collider_get_pose(forged_slot, out_position, out_rotation), XPBD_RESULT_INVALID_ID, "forged");
    EXPECT(xpbd_collider_get_desc(forged_generation, &read), XPBD_RESULT_INVALID_ID, NULL);
    EXPECT(xpbd_collider_destroy(forged_world), XPBD_RESULT_INVALID_ID, NULL);
    EXPECT_OK(xpbd_cloth_vertex_count(cloth, &count)); /* the cloth and collider survived all that */
    CHECK(pose_is(c, position, half_turn));

    /* Stale ids: destroyed twice, used after destroy, slot reused by a new collider. */
    EXPECT_OK(xpbd_collider_destroy(c));
    EXPECT(xpbd_collider_destroy(c), XPBD_RESULT_INVALID_ID, "stale");
    EXPECT(xpbd_collider_set_pose(c, position, identity), XPBD_RESULT_INVALID_ID, NULL);
    EXPECT(xpbd_collider_get_pose(c, out_position, out_rotation), XPBD_RESULT_INVALID_ID, NULL);
    XpbdColliderId reused;
    EXPECT_OK(xpbd_collider_create(w, &d, &reused));
    CHECK((reused.id >> 32 & 0x7fff) == (c.id >> 32 & 0x7fff) && reused.id != c.id); /* same slot, new generation */
    EXPECT(xpbd_collider_get_desc(c, &read), XPBD_RESULT_INVALID_ID, NULL);

    /* Destroying the world destroys its colliders. */
    EXPECT_OK(xpbd_world_destroy(w));
    EXPECT(xpbd_collider_set_pose(reused, position, identity), XPBD_RESULT_INVALID_ID, NULL);
    EXPECT(xpbd_collider_destroy(reused), XPBD_RESULT_INVALID_ID, NULL);
}

static void message_buffer(void) {
    XpbdWorldId null_world = {0};
    EXPECT(xpbd_world_step(null_world, 0.01f), XPBD_RESULT_INVALID_ID, "xpbd_world_step: world id");
    size_t needed = xpbd_last_error_message(NULL, 0);
    char full[512], small[8];
    CHECK(xpbd_last_error_message(full, sizeof full) == needed);
    CHECK(strlen(full) + 1 == needed);
    memset(small, 'x', sizeof small);
    CHECK(xpbd_last_error_message(small, sizeof small) == needed); /* full length even when cut */
    CHECK(strlen(small) == 7 && strncmp(small, full, 7) == 0);
    /* A successful call leaves the last message alone. */
    CHECK(xpbd_abi_version() == XPBD_ABI_VERSION);
    XpbdWorldDesc wd = xpbd_default_world_desc();
    wd.thread_count = 1;
    XpbdWorldId w;
    EXPECT_OK(xpbd_world_create(&wd, &w));
    CHECK(xpbd_last_error_message(NULL, 0) == needed);
    EXPECT_OK(xpbd_world_destroy(w));
}

/* Teleport, guard status and snapshots: argument checks, codes, messages, and nothing changed. */
static void robustness_errors(void) {
    XpbdWorldDesc wd = xpbd_default_world_desc();
    wd.thread_count = 1;
    XpbdWorldId w;
    EXPECT_OK(xpbd_world_create(&wd, &w));
    XpbdClothDesc d = grid_desc();
    XpbdClothId cloth, free_cloth;
    EXPECT_OK(xpbd_cloth_create(w, &d, &cloth));
    uint32_t corners[2] = {0, 2};
    EXPECT_OK(xpbd_cloth_set_pinned(cloth, corners, 2, NULL));
    d.unstable_recovery = 3;
    EXPECT(xpbd_cloth_create(w, &d, &free_cloth), XPBD_RESULT_INVALID_ARGUMENT, "`unstable_recovery` = 3");
    d.unstable_recovery = XPBD_UNSTABLE_RECOVERY_LAST_GOOD_STATE;
    d.inertia_scale = 1.5f;
    EXPECT(xpbd_cloth_create(w, &d, &free_cloth), XPBD_RESULT_INVALID_ARGUMENT, "inertia_scale");
    d.inertia_scale = 1.0f;
    d.external_acceleration[1] = 1.0e6f; /* a free cloth under this leaves any plausible bound */
    EXPECT_OK(xpbd_cloth_create(w, &d, &free_cloth));
    uint64_t before = 0, after = 0;

    /* Teleport. */
    const float t[3] = {1.0f, 0.0f, 0.0f}, nan_t[3] = {NAN, 0.0f, 0.0f};
    const float unit[4] = {0.0f, 0.0f, 0.0f, 1.0f}, long_q[4] = {0.0f, 0.0f, 0.0f, 1.1f};
    EXPECT_OK(xpbd_cloth_state_hash(cloth, &before));
    EXPECT(xpbd_cloth_teleport(cloth, NULL, unit), XPBD_RESULT_NULL_POINTER, "`translation` is NULL");
    EXPECT(xpbd_cloth_teleport(cloth, t, NULL), XPBD_RESULT_NULL_POINTER, "`rotation` is NULL");
    EXPECT(xpbd_cloth_teleport(cloth, nan_t, unit), XPBD_RESULT_INVALID_ARGUMENT, "translation");
    EXPECT(xpbd_cloth_teleport(cloth, t, long_q), XPBD_RESULT_INVALID_ARGUMENT, "unit quaternion");
    EXPECT(xpbd_cloth_teleport(SENTINEL_CLOTH, t, unit), XPBD_RESULT_INVALID_ID, "forged");
    EXPECT_OK(xpbd_cloth_state_hash(cloth, &after));
    CHECK(before == after);

    /* Status. */
    XpbdClothStatus status;
    memset(&status, 0x5e, sizeof status);
    EXPECT(xpbd_cloth_get_status(cloth, NULL), XPBD_RESULT_NULL_POINTER, "`out_status` is NULL");
    EXPECT(xpbd_world_step(w, 1.0f / 60.0f), XPBD_RESULT_SIMULATION_UNSTABLE, "xpbd_world_step: cloth 0x");
    EXPECT_OK(xpbd_cloth_get_status(free_cloth, &status));
    CHECK(status.unstable_steps == 1 && status.kind == XPBD_INSTABILITY_KIND_DISPLACEMENT_BOUND);
    CHECK(status.recovery == XPBD_UNSTABLE_RECOVERY_LAST_GOOD_STATE && status.displacement > status.bound);
    EXPECT_OK(xpbd_cloth_get_status(cloth, &status));
    CHECK(status.unstable_steps == 0 && status.kind == XPBD_INSTABILITY_KIND_NONE);

    /* Snapshots. */
    size_t size = 0;
    unsigned char buf[2048];
    EXPECT(xpbd_cloth_state_size(cloth, NULL), XPBD_RESULT_NULL_POINTER, "`out_size` is NULL");
    EXPECT_OK(xpbd_cloth_state_size(cloth, &size));
    CHECK(size == 48 + 24 * 9 + 28 * 2 + 40 && size <= sizeof buf);
    EXPECT(xpbd_cloth_save_state(cloth, buf, size - 1), XPBD_RESULT_BUFFER_SIZE_MISMATCH, "expected");
    EXPECT(xpbd_cloth_save_state(cloth, NULL, size), XPBD_RESULT_NULL_POINTER, "`buf` is NULL");
    EXPECT_OK(xpbd_cloth_save_state(cloth, buf, size));
    EXPECT_OK(xpbd_cloth_state_hash(cloth, &before));
    EXPECT_OK(xpbd_cloth_teleport(cloth, t, unit));
    buf[200] ^= 1;
    EXPECT(xpbd_cloth_restore_state(cloth, buf, size), XPBD_RESULT_INVALID_SNAPSHOT, "checksum");
    buf[200] ^= 1;
    EXPECT(xpbd_cloth_restore_state(cloth, buf, size - 1), XPBD_RESULT_BUFFER_SIZE_MISMATCH, "buffer passed");
    EXPECT(xpbd_cloth_restore_state(free_cloth, buf, size), XPBD_RESULT_OK, NULL); /* same mesh */
    EXPECT_OK(xpbd_cloth_restore_state(cloth, buf, size));
    EXPECT_OK(xpbd_cloth_state_hash(cloth, &after));
    CHECK(before == after);
    EXPECT_OK(xpbd_world_destroy(w));
}

int main(void) {
    make_grid();
    CHECK(xpbd_last_error_message(NULL, 0) == 1); /* no failure yet on this thread: "" */
    XpbdWorldId w;
    world_errors(&w);
    create_errors(w);
    cloth_errors(w);
    collider_errors();
    message_buffer();
    robustness_errors();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
