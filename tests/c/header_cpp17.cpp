// The C header used from C++17: it must compile warning-free with -pedantic, link (extern "C"), and
// give C++ the same layout and values as C. Run by tests/c_abi_programs.rs.
#include "xpbd_cloth.h"

#include <cstdio>
#include <type_traits>

static_assert(sizeof(XpbdWorldId) == 8 && sizeof(XpbdClothId) == 8 && sizeof(XpbdColliderId) == 8,
              "ids are one uint64_t");
static_assert(std::is_standard_layout<XpbdClothDesc>::value && std::is_trivially_copyable<XpbdClothDesc>::value,
              "descriptors are plain C structs");
static_assert(sizeof(XpbdResult) == 4 && std::is_same<std::underlying_type<XpbdResult>::type, int32_t>::value,
              "XpbdResult is an int32_t enum");
static_assert(XPBD_RESULT_OK == 0, "success is zero");
static_assert(std::is_standard_layout<XpbdColliderDesc>::value && std::is_trivially_copyable<XpbdColliderDesc>::value,
              "descriptors are plain C structs");
static_assert(std::is_same<std::underlying_type<XpbdColliderKind>::type, uint32_t>::value &&
                  XPBD_COLLIDER_KIND_SPHERE == 0 && XPBD_COLLIDER_KIND_BOX == 3,
              "XpbdColliderKind is a uint32_t enum with the values of XpbdColliderDesc.kind");

int main() {
    if (xpbd_abi_version() != XPBD_ABI_VERSION) {
        return 1;
    }
    XpbdWorldDesc desc = xpbd_default_world_desc();
    desc.thread_count = 1;
    XpbdWorldId world{};
    if (xpbd_world_create(&desc, &world) != XPBD_RESULT_OK) {
        return 2;
    }
    // One free triangle falling for 6 steps of 1/60 s, 10 substeps each. Symplectic Euler moves
    // it down by g*h^2*n(n+1)/2 after n substeps of length h (rigid motion: no constraint acts).
    const float positions[9] = {0, 0, 0, 1, 0, 0, 0, 0, 1};
    const uint32_t indices[3] = {0, 2, 1};
    XpbdClothDesc cloth_desc = xpbd_default_cloth_desc();
    cloth_desc.positions = positions;
    cloth_desc.vertex_count = 3;
    cloth_desc.indices = indices;
    cloth_desc.triangle_count = 1;
    cloth_desc.linear_damping = 0.0f; // undamped, to compare with the integrator's free fall
    XpbdClothId cloth{};
    float out[9] = {};
    XpbdResult r = xpbd_cloth_create(world, &cloth_desc, &cloth);
    // A box 10 m below: the triangle does not reach it in 0.1 s, so the fall stays free.
    XpbdColliderDesc ground_desc = xpbd_default_collider_desc_for(XPBD_COLLIDER_KIND_BOX);
    ground_desc.position[1] = -10.0f;
    XpbdColliderId ground{};
    if (r == XPBD_RESULT_OK) {
        r = xpbd_collider_create(world, &ground_desc, &ground);
    }
    for (int i = 0; r == XPBD_RESULT_OK && i < 6; ++i) {
        r = xpbd_world_step(world, 1.0f / 60.0f);
    }
    if (r == XPBD_RESULT_OK) {
        r = xpbd_cloth_read_positions(cloth, out, 3);
    }
    XpbdResult destroyed = xpbd_world_destroy(world);
    const double n = 60.0, h = 1.0 / 600.0, expected = -9.81 * h * h * n * (n + 1.0) / 2.0;
    std::printf("C++17: result %d, vertex 0 y after 0.1 s = %.6f m (expected %.6f)\n", static_cast<int>(r), out[1],
                expected);
    const double error = out[1] - expected;
    return r == XPBD_RESULT_OK && destroyed == XPBD_RESULT_OK && error < 1e-5 && error > -1e-5 ? 0 : 3;
}
