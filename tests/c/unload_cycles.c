/*
 * The library unloads after use: N cycles (default 50) of dlopen -> create a world with 2 worker
 * threads -> build a mesh shape in it and in a world of one thread (neither starts a thread) ->
 * add a cloth, step (once asynchronously), fail a call (so the calling thread has a last error
 * message) -> destroy -> dlclose. After every create the process has exactly 2 threads more than before the
 * first dlopen, after every destroy exactly as many as before (destroy joined its workers), and
 * after every dlclose no mapping of the library is left in /proc/self/maps (nothing pinned it:
 * no thread-local destructor, no thread, no registration). Linux only.
 *
 * Usage: unload_cycles /path/to/libxpbd_cloth.so [cycles]. Run by tests/c_abi_unload.rs and by
 * .ci/valgrind-c-api.sh. Prints one summary line and exits non-zero on the first failed cycle.
 */
#define _DEFAULT_SOURCE /* realpath, dirent */
#include "xpbd_cloth.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Threads of this process: the entries of /proc/self/task. -1 if it cannot be read. */
static int thread_count(void) {
    DIR *dir = opendir("/proc/self/task");
    if (!dir) {
        return -1;
    }
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        n += e->d_name[0] != '.';
    }
    closedir(dir);
    return n;
}

/* Lines of /proc/self/maps that name `path` (a canonical path). -1 if maps cannot be read. */
static int mappings_of(const char *path) {
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) {
        return -1;
    }
    char line[PATH_MAX + 256];
    int n = 0;
    while (fgets(line, sizeof line, maps)) {
        n += strstr(line, path) != NULL;
    }
    fclose(maps);
    return n;
}

/* The exports this program calls, looked up in each fresh load of the library. */
struct api {
    uint32_t (*abi_version)(void);
    struct XpbdWorldDesc (*default_world_desc)(void);
    XpbdResult (*world_create)(const struct XpbdWorldDesc *, struct XpbdWorldId *);
    XpbdResult (*world_step)(struct XpbdWorldId, float);
    XpbdResult (*world_step_begin)(struct XpbdWorldId, float);
    XpbdResult (*world_step_end)(struct XpbdWorldId);
    XpbdResult (*world_destroy)(struct XpbdWorldId);
    struct XpbdClothDesc (*default_cloth_desc)(void);
    XpbdResult (*cloth_create)(struct XpbdWorldId, const struct XpbdClothDesc *, struct XpbdClothId *);
    size_t (*last_error_message)(char *, size_t);
    XpbdResult (*live_world_count)(uint32_t *);
    struct XpbdMeshShapeDesc (*default_mesh_shape_desc)(void);
    XpbdResult (*mesh_shape_create)(struct XpbdWorldId, const struct XpbdMeshShapeDesc *, struct XpbdMeshShapeId *);
};

/* Look up `name`; a data pointer becomes a function pointer through memcpy (ISO C has no cast). */
static int lookup(void *lib, const char *name, void *fn, size_t size) {
    void *sym = dlsym(lib, name);
    if (!sym) {
        fprintf(stderr, "dlsym(%s): %s\n", name, dlerror());
        return 0;
    }
    memcpy(fn, &sym, size);
    return 1;
}
#define LOOKUP(lib, api, field) lookup((lib), "xpbd_" #field, &(api)->field, sizeof (api)->field)

static int load_api(void *lib, struct api *api) {
    return LOOKUP(lib, api, abi_version) && LOOKUP(lib, api, default_world_desc) && LOOKUP(lib, api, world_create)
        && LOOKUP(lib, api, world_step) && LOOKUP(lib, api, world_step_begin) && LOOKUP(lib, api, world_step_end)
        && LOOKUP(lib, api, world_destroy) && LOOKUP(lib, api, default_cloth_desc)
        && LOOKUP(lib, api, cloth_create) && LOOKUP(lib, api, last_error_message)
        && LOOKUP(lib, api, live_world_count) && LOOKUP(lib, api, default_mesh_shape_desc)
        && LOOKUP(lib, api, mesh_shape_create);
}

/* Build a mesh shape (a tetrahedron) in `world`: it runs on the world's own threads, or on the
 * calling thread in a world of one thread, so it must start no thread. 1 on success. */
static int build_mesh_shape(const struct api *api, struct XpbdWorldId world, int threads, int cycle) {
    static const float corners[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const uint32_t faces[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    struct XpbdMeshShapeDesc desc = api->default_mesh_shape_desc();
    desc.positions = corners, desc.vertex_count = 4, desc.indices = faces, desc.triangle_count = 4;
    desc.cell_size = 0.02f;
    struct XpbdMeshShapeId shape;
    if (api->mesh_shape_create(world, &desc, &shape) != XPBD_RESULT_OK) {
        fprintf(stderr, "cycle %d: xpbd_mesh_shape_create failed\n", cycle);
        return 0;
    }
    if (thread_count() != threads) {
        fprintf(stderr, "cycle %d: %d threads after a mesh shape build, %d before\n", cycle, thread_count(), threads);
        return 0;
    }
    return 1;
}

/* Cloth vertices per side: 64 x 64 has more constraints than the solver's threshold for splitting
 * a cloth's colour sweeps over the pool, so the steps run that code on the worker threads too. */
enum { N = 64 };

/* One cycle after dlopen: world, cloth, steps, one failing call, destroy, checks. 1 on success. */
static int use_library(const struct api *api, int baseline, int cycle) {
    if (api->abi_version() != XPBD_ABI_VERSION) {
        fprintf(stderr, "cycle %d: library ABI %u, header ABI %u\n", cycle, api->abi_version(),
                (unsigned)XPBD_ABI_VERSION);
        return 0;
    }
    struct XpbdWorldDesc wd = api->default_world_desc();
    wd.thread_count = 2;
    struct XpbdWorldId world = {0};
    if (api->world_create(&wd, &world) != XPBD_RESULT_OK) {
        fprintf(stderr, "cycle %d: xpbd_world_create failed\n", cycle);
        return 0;
    }
    int with_world = thread_count();
    if (!build_mesh_shape(api, world, with_world, cycle)) {
        return 0;
    }
    struct XpbdWorldDesc single = api->default_world_desc();
    single.thread_count = 1;
    struct XpbdWorldId alone = {0};
    if (api->world_create(&single, &alone) != XPBD_RESULT_OK || thread_count() != with_world
        || !build_mesh_shape(api, alone, with_world, cycle) || api->world_destroy(alone) != XPBD_RESULT_OK) {
        fprintf(stderr, "cycle %d: a world of one thread started a thread (or failed)\n", cycle);
        return 0;
    }

    /* A 1 m square of N x N vertices, horizontal, two triangles per quad. */
    static float positions[3 * N * N];
    static uint32_t indices[6 * (N - 1) * (N - 1)];
    for (int j = 0; j < N; ++j) {
        for (int i = 0; i < N; ++i) {
            float *p = &positions[3 * (j * N + i)];
            p[0] = (float)i / (N - 1), p[1] = 1.0f, p[2] = (float)j / (N - 1);
        }
    }
    uint32_t *t = indices;
    for (uint32_t j = 0; j < N - 1; ++j) {
        for (uint32_t i = 0; i < N - 1; ++i) {
            uint32_t a = j * N + i, b = a + 1, c = a + N, d = c + 1;
            *t++ = a, *t++ = c, *t++ = b, *t++ = b, *t++ = c, *t++ = d;
        }
    }
    struct XpbdClothDesc cd = api->default_cloth_desc();
    cd.positions = positions, cd.vertex_count = N * N;
    cd.indices = indices, cd.triangle_count = 2 * (N - 1) * (N - 1);
    struct XpbdClothId cloth;
    int ok = api->cloth_create(world, &cd, &cloth) == XPBD_RESULT_OK;
    for (int s = 0; ok && s < 3; ++s) {
        ok = api->world_step(world, 1.0f / 60.0f) == XPBD_RESULT_OK;
    }
    /* An asynchronous step starts the world's stepping thread, which destroy must join too. */
    ok = ok && api->world_step_begin(world, 1.0f / 60.0f) == XPBD_RESULT_OK
        && api->world_step_end(world) == XPBD_RESULT_OK;
    if (!ok) {
        fprintf(stderr, "cycle %d: creating or stepping the cloth failed\n", cycle);
    }
    /* A failing call stores this thread's last error message inside the library. */
    char message[128];
    int rejected = api->world_step(world, 0.0f) == XPBD_RESULT_INVALID_ARGUMENT;
    size_t needed = api->last_error_message(message, sizeof message);
    if (!rejected || needed < 2 || strncmp(message, "xpbd_world_step", 15) != 0) {
        fprintf(stderr, "cycle %d: dt = 0 gave message \"%s\" (%zu bytes)\n", cycle, message, needed);
        ok = 0;
    }

    XpbdResult destroyed = api->world_destroy(world);
    int after_destroy = thread_count();
    uint32_t live = 1;
    api->live_world_count(&live);
    if (destroyed != XPBD_RESULT_OK || live != 0) {
        fprintf(stderr, "cycle %d: destroy returned %d, %u worlds alive\n", cycle, (int)destroyed, live);
        ok = 0;
    }
    if (with_world != baseline + 2 || after_destroy != baseline) {
        fprintf(stderr, "cycle %d: %d threads before, %d with the world, %d after destroy\n", cycle, baseline,
                with_world, after_destroy);
        ok = 0;
    }
    return ok;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s /path/to/libxpbd_cloth.so [cycles]\n", argv[0]);
        return 2;
    }
    char path[PATH_MAX];
    if (!realpath(argv[1], path)) {
        perror(argv[1]);
        return 2;
    }
    int cycles = argc > 2 ? atoi(argv[2]) : 50;
    int baseline = thread_count();
    if (baseline < 1 || mappings_of(path) != 0) {
        fprintf(stderr, "%d threads, %d mappings of %s before the first dlopen\n", baseline, mappings_of(path), path);
        return 1;
    }
    for (int cycle = 0; cycle < cycles; ++cycle) {
        void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            fprintf(stderr, "cycle %d: dlopen: %s\n", cycle, dlerror());
            return 1;
        }
        struct api api;
        int mapped = mappings_of(path);
        int ok = mapped > 0 && load_api(lib, &api) && use_library(&api, baseline, cycle);
        if (dlclose(lib) != 0) {
            fprintf(stderr, "cycle %d: dlclose: %s\n", cycle, dlerror());
            ok = 0;
        }
        int left = mappings_of(path);
        if (left != 0) {
            fprintf(stderr, "cycle %d: %d mappings of the library left after dlclose (%d while loaded)\n", cycle,
                    left, mapped);
            ok = 0;
        }
        if (!ok) {
            return 1;
        }
    }
    printf("%d cycles: %d threads before, %d with each world, %d after each destroy; unmapped after each dlclose\n",
           cycles, baseline, baseline + 2, baseline);
    return 0;
}
