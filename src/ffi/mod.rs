//! The C ABI (docs/c-cpp.md; its thread contract: docs/design.md, "Thread contract"):
//! handle-based, after Box2D v3's C API, with rustls-ffi's panic boundary.
//! `include/xpbd_cloth.h` is generated from this module by `build.rs` (cbindgen); every doc
//! comment here is the C documentation too, so it is written for C programmers.
//!
//! Every export has one shape: check arguments (`args`) → find the id (`registry`) → lock the
//! world (or, for the steps and the render reads, go through its `SharedWorld`, which steps it
//! outside the lock and answers reads from a copy meanwhile) → call the core → map the error
//! (`error`), all inside `ffi_boundary` (`boundary`), so no panic crosses into C. No simulation
//! logic lives here.
//!
//! - `ids`: `XpbdWorldId`, `XpbdClothId`, `XpbdColliderId` and their bit packing.
//! - `registry`: the global world table and the per-world `SharedWorld`s (the thread contract).
//! - `world`, `cloth`, `collider`: the exports; `cloth_desc`, `collider_desc`: the descriptors and
//!   their translation to the core.
//! - `live`: live-object counts for leak checks (the C# finalizer tests use them).
//!
//! The `xpbd_default_*` functions and `xpbd_abi_version` only build constants and cannot panic,
//! so they are the exports that do not go through the boundary.

mod args;
mod boundary;
mod registry;
#[cfg(test)]
mod out_tests;
#[cfg(test)]
mod test_cloth;

// Declared in the order the header should read (cbindgen follows it): errors, ids, world, cloth,
// collider.
pub mod error;

pub mod ids;

pub mod world;

pub mod cloth_desc;

pub mod cloth;

pub mod stats;

pub mod collider_desc;

pub mod collider;

pub mod mesh_shape;
pub mod mesh_shape_build;

pub mod state;

pub mod status;

pub mod teleport;

pub mod frame;
pub mod grab;
pub mod animation;

pub mod render_proxy;

pub mod debug_lines;

pub mod snapshot;

pub mod tear;

pub mod live;

pub mod mesh_report;

pub use cloth::*;
pub use cloth_desc::*;
pub use stats::*;
pub use collider::*;
pub use collider_desc::*;
pub use debug_lines::*;
pub use error::*;
pub use frame::*;
pub use grab::*;
pub use ids::*;
pub use live::*;
pub use mesh_report::*;
pub use mesh_shape::*;
pub use mesh_shape_build::*;
pub use render_proxy::*;
pub use snapshot::*;
pub use state::*;
pub use status::*;
pub use tear::*;
pub use teleport::*;
pub use animation::*;
pub use world::*;

/// Version of the C ABI described by this header. It changes whenever a function, struct layout
/// or meaning changes incompatibly; bindings compare it with `xpbd_abi_version()` at start-up and
/// refuse to run on a mismatch.
///
/// 2: `XpbdClothDesc`, `XpbdClothParams` and `XpbdClothStats` grew the explosion-guard, inertia-scale
/// and self-collision fields; `XPBD_RESULT_INVALID_SNAPSHOT` was added.
/// 3: `xpbd_default_collider_desc()` has no dimensions (a sphere of radius 0, rejected until one is
/// set); `xpbd_default_collider_desc_for(kind)` gives each kind's default shape.
/// 4: `XpbdClothDesc` and `XpbdClothParams` grew `max_stretch`, `XpbdClothStats` the edge strain
/// percentiles; `linear_damping` defaults to 3/s; `self_collision_radius` 0 means half the mesh's
/// median edge; creation drops duplicate triangles and makes the winding consistent
/// (`xpbd_cloth_get_mesh_report` says what it changed); `xpbd_cloth_read_vertex_masses`.
/// 5: the frame loop (`xpbd_world_advance`, interpolated reads, `xpbd_cloth_write_vertices`,
/// `xpbd_cloth_get_bounds`, particle writes, instances, sleeping: `XpbdClothDesc`/`XpbdClothParams`
/// grew `sleep_speed`, `sleep_time`), mesh shapes and `XPBD_COLLIDER_KIND_MESH` (`XpbdColliderDesc`
/// grew `mesh_shape`: 72 bytes, 8-byte aligned), character cloth (animated pose, skin, max distance,
/// backstop, anim drive, reference frame, teleports; `XpbdClothDesc`/`XpbdClothParams` grew
/// `simulation_blend`, `linear_inertia`, `angular_inertia`).
/// 6: the asynchronous step (`xpbd_world_step_begin`, `xpbd_world_step_end`,
/// `XPBD_RESULT_STEP_NOT_BEGUN`, `XPBD_RESULT_STEP_IN_PROGRESS`; render reads answer during a step
/// with the state before it); a pin change on a large cloth in a world with threads returns before
/// its layout is built (the next step puts it in place); a skinned pose moves each vertex with its
/// dominant joint between the step's ends; a worn cloth is put on its first pose; joint matrices
/// are range-checked; `simulation_blend` applies to every render read; a wrong array length is
/// `XPBD_RESULT_BUFFER_SIZE_MISMATCH` in the character calls too; `xpbd_world_teleport` refuses an
/// id listed twice; ids are never handed out twice.
/// 7: `linear_damping` defaults to 0 (nothing damps rigid motion); `XpbdClothDesc`/`XpbdClothParams`
/// grew `deformation_damping` (default 3/s), which damps only the motion relative to the cloth's
/// rigid motion.
/// 8: mesh shapes build off the calling thread (`xpbd_mesh_shape_create_async`,
/// `xpbd_mesh_shape_is_ready`, `xpbd_mesh_shape_progress`, `XPBD_RESULT_NOT_READY`) and report what
/// they found (`xpbd_mesh_shape_get_report`); a mesh the shape cannot use is
/// `XPBD_RESULT_INVALID_MESH` (was `XPBD_RESULT_INVALID_ARGUMENT`), as for cloth; the sign of a
/// closed mesh survives inner faces, duplicate and flipped triangles.
/// 9: render proxies (`XpbdRenderProxyId`, `XpbdRenderProxyDesc`, `xpbd_render_proxy_*`), debug
/// lines (`xpbd_world_debug_lines`, `XPBD_DEBUG_*`) and level of detail (`XpbdClothDesc` and
/// `XpbdClothParams` grew `step_interval`); a world holds at most 16 384 cloths (was 32 768: cloth
/// ids give bit 46 to render proxies). The frame loop under a real game: `xpbd_world_advance`
/// gives each of a frame's steps its targets interpolated to the step's end time;
/// `xpbd_world_advance_begin`/`_end` (the render-overlap loop); soft grabs (`xpbd_cloth_grab`,
/// `xpbd_cloth_grab_move`, `xpbd_cloth_release`, `XPBD_MAX_GRAB_STIFFNESS`,
/// `XPBD_RESULT_NOT_GRABBED`); `XpbdClothStats` grew `pin_strain`; a pin change after the first
/// step puts its layout in place at the fourth step after it (`xpbd_cloth_set_pinned` and
/// `xpbd_cloth_unpin` return in microseconds and the next step does not wait); a simulation blend
/// below 1 blends each step state with the pose it reached.
/// Tearing and pressure: `XpbdClothDesc` grew `max_extra_vertices` and, with `XpbdClothParams`,
/// `tear_strain`, `tear_max_per_step`, `pressure`, `volume_compliance`; `xpbd_cloth_tear`,
/// `xpbd_cloth_get_render_counts`, `xpbd_cloth_read_indices`, `xpbd_cloth_read_vertex_sources`,
/// `xpbd_cloth_get_volume`; `XpbdClothStats` grew `torn_edges_last_step`, `XpbdMeshReport` grew
/// `closed` and follows cuts; a torn cloth's vertex count grows (every per-vertex call takes the
/// current one); snapshots are format 2 (they carry the cuts; format 1 is still read).
pub const XPBD_ABI_VERSION: u32 = 9;

/// The ABI version the loaded library implements; compare with `XPBD_ABI_VERSION` from the
/// header you compiled against. Never fails. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn xpbd_abi_version() -> u32 {
    XPBD_ABI_VERSION
}

#[cfg(test)]
mod tests {
    /// The header that `build.rs` generated for this build, from the current sources.
    const GENERATED: &str = include_str!(concat!(env!("OUT_DIR"), "/xpbd_cloth.h"));

    #[test]
    fn committed_header_matches_cbindgen_output() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/include/xpbd_cloth.h");
        let committed = std::fs::read_to_string(path).expect("include/xpbd_cloth.h is missing");
        assert!(
            committed == GENERATED,
            "include/xpbd_cloth.h is stale: the C ABI changed. Run `cargo build` outside CI (build.rs \
             rewrites it) and commit the result."
        );
    }

    /// The raw C# layer that `build.rs` generated with csbindgen for this build.
    const GENERATED_CSHARP: &str = include_str!(concat!(env!("OUT_DIR"), "/NativeMethods.g.cs"));

    #[test]
    fn committed_csharp_matches_csbindgen_output() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/bindings/csharp/NativeMethods.g.cs");
        let committed = std::fs::read_to_string(path).expect("bindings/csharp/NativeMethods.g.cs is missing");
        assert!(
            committed == GENERATED_CSHARP,
            "bindings/csharp/NativeMethods.g.cs is stale: the C ABI changed. Run `cargo build` outside CI \
             (build.rs rewrites it) and commit the result."
        );
        // The Unity-safe settings the bindings rely on (docs/unity.md, "The C# bindings")
        // survived the generation.
        assert!(GENERATED_CSHARP.contains(
            "#if (UNITY_IOS || UNITY_WEBGL) && !UNITY_EDITOR\n        const string __DllName = \"__Internal\";"
        ));
        assert!(!GENERATED_CSHARP.contains("nint") && !GENERATED_CSHARP.contains("delegate*"));
        let imports = GENERATED_CSHARP.matches("[DllImport(__DllName,").count();
        assert_eq!(imports, GENERATED_CSHARP.matches("CallingConvention = CallingConvention.Cdecl").count());
        assert!(imports >= 20, "only {imports} functions were generated");
    }
}
