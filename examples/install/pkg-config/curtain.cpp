// A curtain through the installed library from C++17: a 24 x 24 sheet (1 m) pinned along its top
// row hangs for 1 s at 60 Hz. Checks what a hanging cloth must satisfy (every vertex finite and no
// higher than the rail, edges stretched less than 10 %) and prints the state hash, equal for the
// shared and the static build. Exit status 0 when the checks hold.
#include "xpbd_cloth.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// Throws with the library's own message when a call fails.
void check(XpbdResult result, const char *call) {
    if (result != XPBD_RESULT_OK) {
        char message[512];
        xpbd_last_error_message(message, sizeof message);
        throw std::runtime_error(std::string(call) + ": " + message);
    }
}

// Owns a world; destroying it frees its cloths.
class World {
  public:
    World() {
        XpbdWorldDesc desc = xpbd_default_world_desc();
        check(xpbd_world_create(&desc, &id_), "xpbd_world_create");
    }
    ~World() { xpbd_world_destroy(id_); }
    World(const World &) = delete;
    World &operator=(const World &) = delete;
    XpbdWorldId id() const { return id_; }

  private:
    XpbdWorldId id_{};
};

constexpr uint32_t kSide = 24;

}  // namespace

int main() {
    try {
        if (xpbd_abi_version() != XPBD_ABI_VERSION) {
            throw std::runtime_error("library and header ABI versions differ");
        }
        std::vector<float> positions;  // float[3 * vertex_count], metres, vertical sheet, top at y = 2
        for (uint32_t j = 0; j < kSide; ++j) {
            for (uint32_t i = 0; i < kSide; ++i) {
                positions.insert(positions.end(), {float(i) / (kSide - 1), 2.0f - float(j) / (kSide - 1), 0.0f});
            }
        }
        std::vector<uint32_t> indices;  // uint32_t[3 * triangle_count]
        for (uint32_t j = 0; j + 1 < kSide; ++j) {
            for (uint32_t i = 0; i + 1 < kSide; ++i) {
                const uint32_t a = j * kSide + i;
                indices.insert(indices.end(), {a, a + kSide, a + 1, a + 1, a + kSide, a + kSide + 1});
            }
        }
        World world;
        XpbdClothDesc desc = xpbd_default_cloth_desc();
        desc.positions = positions.data();
        desc.vertex_count = kSide * kSide;
        desc.indices = indices.data();
        desc.triangle_count = uint32_t(indices.size() / 3);
        XpbdClothId cloth;
        check(xpbd_cloth_create(world.id(), &desc, &cloth), "xpbd_cloth_create");
        std::vector<uint32_t> rail(kSide);  // the top row
        for (uint32_t i = 0; i < kSide; ++i) rail[i] = i;
        check(xpbd_cloth_set_pinned(cloth, rail.data(), kSide, nullptr), "xpbd_cloth_set_pinned");
        for (int frame = 0; frame < 60; ++frame) check(xpbd_world_step(world.id(), 1.0f / 60.0f), "xpbd_world_step");

        std::vector<float> out(positions.size());
        check(xpbd_cloth_read_positions(cloth, out.data(), kSide * kSide), "xpbd_cloth_read_positions");
        XpbdClothStats stats;
        check(xpbd_cloth_get_stats(cloth, &stats), "xpbd_cloth_get_stats");
        uint64_t hash = 0;
        check(xpbd_cloth_state_hash(cloth, &hash), "xpbd_cloth_state_hash");

        bool hangs = true;
        for (float x : out) hangs = hangs && std::isfinite(x);
        for (size_t v = 0; v < out.size() / 3; ++v) hangs = hangs && out[3 * v + 1] <= 2.0f + 1e-6f;
        std::printf("curtain after 1 s: lowest point %.4f m, max edge strain %.3f %%\n", out[3 * (kSide * kSide - 1) + 1],
                    100.0 * stats.max_edge_strain);
        std::printf("state hash: %016" PRIx64 "\n", hash);
        return hangs && stats.max_edge_strain < 0.1f ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "curtain: %s\n", e.what());
        return 1;
    }
}
