//! A model-checking driver for the C ABI, shared by the property tests (`tests/abi_properties.rs`)
//! and the fuzz targets (`fuzz/fuzz_targets/*.rs` include this folder by path), so both explore the
//! same calls with the same checks.
//!
//! A byte string is read as a program: each operation picks one ABI call and its arguments —
//! ids that are live, stale (destroyed), null or forged; buffers of the right size, one too many
//! or too few, NULL or misaligned; values that are valid, just outside their range, NaN, infinite
//! or denormal. The harness keeps a model of what is alive and checks after every call:
//! - the result is exactly the code the documentation predicts (never `XPBD_RESULT_PANIC`);
//! - a failed call left a message starting with the function's name;
//! - a failed call, and every read, changed nothing: live object counts, every live cloth's state
//!   hash and every collider's pose are the same before and after;
//! - the live counts (`xpbd_live_*_count`) always equal the model's; after the program, destroying
//!   every world brings them back to zero and every id it ever handed out is rejected.
//!
//! To add a call: write a method `fn op_name(&mut self, r: &mut Input)` that reads its arguments
//! from `r`, predicts the result with [`outcome`], calls the function and reports with
//! [`Harness::expect`] (plus [`Harness::unchanged_since`] when it must not change state), then add a
//! row to [`OPS`]. A new row changes which operation each input byte selects, so an old fuzz
//! corpus is still valid input but means other programs: start a fresh one.
//!
//! Live counts are process-wide: a process (or a test binary whose tests hold [`SERIAL`]) must run
//! one harness at a time.
#![allow(dead_code)] // the fuzz targets and the tests each use a part

mod cloth_state;
mod frame_loop;
mod grab;
pub mod input;
pub mod mesh;

use input::Input;
use mesh::{MeshCase, small_mesh};
use std::ffi::c_char;
use std::sync::Mutex;
use xpbd_cloth::ffi::XpbdClothStats;
use xpbd_cloth::ffi::*;

use XpbdResult::{BufferSizeMismatch, InvalidArgument, InvalidId, InvalidMesh, NullPointer};
/// Short for `XpbdResult::Ok` (patterns and comparisons read better).
const OK: XpbdResult = XpbdResult::Ok;

/// Taken by every test in a binary that uses the harness or creates objects, so that the
/// process-wide live counts are the model's.
pub static SERIAL: Mutex<()> = Mutex::new(());

/// One operation: reads its arguments from the input, makes its call(s) and checks them.
pub type Op = fn(&mut Harness, &mut Input);

/// The calls the harness makes, by operation number (`input byte % OPS.len()`).
pub const OPS: &[(&str, Op)] = &[
    ("world_create", Harness::op_world_create),
    ("world_destroy", Harness::op_world_destroy),
    ("world_step", Harness::op_world_step),
    ("world_set_gravity", Harness::op_world_set_gravity),
    ("cloth_create", Harness::op_cloth_create),
    ("cloth_destroy", Harness::op_cloth_destroy),
    ("cloth_counts", Harness::op_cloth_counts),
    ("cloth_read", Harness::op_cloth_read),
    ("cloth_set_pinned", Harness::op_cloth_set_pinned),
    ("cloth_set_pin_targets", Harness::op_cloth_set_pin_targets),
    ("cloth_unpin", Harness::op_cloth_unpin),
    ("cloth_params", Harness::op_cloth_params),
    ("cloth_set_material", Harness::op_cloth_set_material),
    ("cloth_stats_and_hash", Harness::op_cloth_stats_and_hash),
    ("collider_create", Harness::op_collider_create),
    ("collider_set_pose", Harness::op_collider_set_pose),
    ("collider_read", Harness::op_collider_read),
    ("collider_destroy", Harness::op_collider_destroy),
    ("last_error_message", Harness::op_last_error_message),
    ("live_counts", Harness::op_live_counts),
    ("cloth_teleport", Harness::op_cloth_teleport),
    ("cloth_get_status", Harness::op_cloth_get_status),
    ("cloth_save_state", Harness::op_cloth_save_state),
    ("cloth_restore_state", Harness::op_cloth_restore_state),
    ("world_advance", Harness::op_world_advance),
    ("cloth_frame_read", Harness::op_cloth_frame_read),
    ("cloth_set_particles", Harness::op_cloth_set_particles),
    ("cloth_create_instance", Harness::op_cloth_create_instance),
    ("world_step_async", Harness::op_world_step_async),
    ("world_advance_async", Harness::op_world_advance_async),
    ("cloth_grab", Harness::op_cloth_grab),
    // Second rows: creating keeps objects alive to work on; stepping is where state changes.
    ("world_step", Harness::op_world_step),
    ("world_create", Harness::op_world_create),
    ("cloth_create", Harness::op_cloth_create),
    ("cloth_create", Harness::op_cloth_create),
];

/// Inertia scale, explosion guard and self-collision settings (the fields `XpbdClothDesc` and
/// `XpbdClothParams` share since ABI version 2) on `$s`: one field out of range or an invalid
/// flag, or (1 case in 8) all of them valid and not the defaults. Evaluates to
/// `(flag_error, range_error)`: flags are checked on the C side before the id, ranges by the core.
macro_rules! newer_settings_case {
    ($s:ident, $r:ident) => {
        match $r.below(8) {
            0 => {
                $s.inertia_scale = $r.pick(&[-0.1, 1.01, f32::NAN]);
                (false, true)
            }
            1 => {
                $s.max_particle_speed = $r.pick(&[0.0, 9e-4, 2e6, f32::INFINITY]);
                (false, true)
            }
            2 => {
                $s.unstable_recovery = $r.pick(&[3, u32::MAX]);
                (true, false)
            }
            3 => {
                $s.enable_self_collision = $r.pick(&[2, u32::MAX]);
                (true, false)
            }
            4 => {
                $s.enable_inter_cloth_collision = 2;
                (true, false)
            }
            5 => {
                $s.self_collision_radius = $r.pick(&[-0.01, 1e-7, 1.5, f32::NAN]);
                (false, true)
            }
            6 => {
                let friction = $r.pick(&[-0.1, 100.5, f32::NAN]);
                match $r.chance(50) {
                    true => $s.self_static_friction = friction,
                    false => $s.self_kinetic_friction = friction,
                }
                (false, true)
            }
            _ => {
                // Valid. The guard only as "last good state" or "rest pose", which keep every
                // cloth finite (a disabled guard could save a NaN state, which restore rejects).
                $s.inertia_scale = $r.pick(&[0.0, 0.5]);
                $s.max_particle_speed = $r.pick(&[1e-3, 1e6]);
                $s.unstable_recovery = $r.pick(&[0, 1]);
                $s.enable_self_collision = $r.below(2);
                $s.enable_inter_cloth_collision = $r.below(2);
                $s.self_collision_radius = $r.pick(&[0.0, 1e-6, 0.05, 1.0]);
                (false, false)
            }
        }
    };
}

/// The result the ABI must return: the first check that applies, in the order every export
/// checks its arguments (pointers, then the id, then the values); `XPBD_RESULT_OK` if none does.
pub fn outcome(checks: &[(bool, XpbdResult)]) -> XpbdResult {
    checks.iter().find(|(applies, _)| *applies).map_or(OK, |&(_, code)| code)
}

struct ClothModel {
    id: XpbdClothId,
    vertex_count: u32,
    /// Render vertex → particle (read once after creation; fixed for the cloth's lifetime).
    particle_of: Vec<u32>,
    /// Per particle: pinned by `set_pinned` (or a restored snapshot) and not released since.
    pinned: Vec<bool>,
    /// Per particle: grabbed by `xpbd_cloth_grab` and not released since.
    grabbed: Vec<bool>,
    /// What a snapshot's mesh fingerprint covers: the positions' bits and the triangles as
    /// created (with `particle_of`), not the lines. Two cloths with equal keys accept each other's
    /// snapshots.
    mesh_key: (Vec<[u32; 3]>, Vec<u32>),
}

/// A snapshot saved by `xpbd_cloth_save_state`, kept to restore later (into any cloth).
struct SavedState {
    bytes: Vec<u8>,
    /// The saving cloth's state hash, pinned particles and mesh key at the time of the save.
    hash: u64,
    pinned: Vec<bool>,
    particle_of: Vec<u32>,
    mesh_key: (Vec<[u32; 3]>, Vec<u32>),
}

/// Snapshots the harness keeps for later restores (the oldest is dropped).
const SAVED_STATES: usize = 6;

impl ClothModel {
    fn is_pinned(&self, vertex: u32) -> bool {
        self.particle_of.get(vertex as usize).is_some_and(|&p| self.pinned[p as usize])
    }
}

struct WorldModel {
    id: XpbdWorldId,
    cloths: Vec<ClothModel>,
    colliders: Vec<XpbdColliderId>,
}

/// Everything a failed call or a read must leave as it was.
#[derive(Clone, Debug, PartialEq)]
struct Snapshot {
    counts: [u32; 3],
    /// (cloth id, state hash) of every live cloth.
    cloth_hashes: Vec<(u64, u64)>,
    /// (collider id, position and rotation bits) of every live collider.
    collider_poses: Vec<(u64, [u32; 7])>,
}

/// The driver: a model of the live objects, the ids that must be rejected, and a trace of the
/// calls made (printed when a check fails).
pub struct Harness {
    worlds: Vec<WorldModel>,
    dead_worlds: Vec<XpbdWorldId>,
    dead_cloths: Vec<XpbdClothId>,
    dead_colliders: Vec<XpbdColliderId>,
    saved: Vec<SavedState>,
    trace: Vec<String>,
    /// ABI calls checked so far.
    pub calls: u64,
    /// Calls that returned `XPBD_RESULT_OK`.
    pub successes: u64,
    /// How often each row of [`OPS`] ran.
    pub ops_run: Vec<u64>,
    /// The last snapshot [`Harness::unchanged_since`] took, while no call has been checked since:
    /// the state is still that, so the next [`Harness::snapshot`] is it (the snapshot is a share
    /// of the harness's own cost per call).
    last: std::cell::RefCell<Option<Snapshot>>,
}

impl Default for Harness {
    fn default() -> Self {
        Harness {
            worlds: Vec::new(),
            dead_worlds: Vec::new(),
            dead_cloths: Vec::new(),
            dead_colliders: Vec::new(),
            saved: Vec::new(),
            trace: Vec::new(),
            calls: 0,
            successes: 0,
            ops_run: vec![0; OPS.len()],
            last: Default::default(),
        }
    }
}

/// How many calls of the trace a failure prints.
const TRACE_LEN: usize = 40;

impl Harness {
    /// Run the program `bytes` (at most `max_ops` operations), then destroy everything and check
    /// that nothing is left. Panics with the call trace when a check fails.
    pub fn run(bytes: &[u8], max_ops: usize) -> Harness {
        Harness::run_from(&mut Input::new(bytes), max_ops)
    }

    /// Run `bytes` as programs of at most `ops_each` operations, one after the other, each from
    /// nothing and checked to its end as [`Harness::run`] checks one; returns how many ran.
    pub fn run_sequences(bytes: &[u8], ops_each: usize) -> usize {
        let mut r = Input::new(bytes);
        let mut sequences = 0;
        while !r.is_empty() {
            Harness::run_from(&mut r, ops_each);
            sequences += 1;
        }
        sequences
    }

    /// [`Harness::run`] of the program that `r` holds from where it is.
    fn run_from(r: &mut Input, max_ops: usize) -> Harness {
        let mut h = Harness::default();
        h.check_counts();
        for _ in 0..max_ops {
            if r.is_empty() {
                break;
            }
            let op = r.below(OPS.len() as u32) as usize;
            h.ops_run[op] += 1;
            (OPS[op].1)(&mut h, r);
        }
        h.finish();
        h
    }

    // ---- checking -------------------------------------------------------------------------

    fn fail(&self, what: String) -> ! {
        let start = self.trace.len().saturating_sub(TRACE_LEN);
        panic!("{what}\nlast calls (oldest first):\n  {}", self.trace[start..].join("\n  "));
    }

    /// Record the call and check its result against the prediction, and that a failure left a
    /// message naming the function.
    pub fn expect(&mut self, function: &str, args: std::fmt::Arguments, got: XpbdResult, want: XpbdResult) {
        self.calls += 1;
        self.last.borrow_mut().take(); // the call may have changed the state
        self.trace.push(format!("{function}({args}) -> {got:?}"));
        if self.trace.len() > 4 * TRACE_LEN {
            self.trace.drain(..2 * TRACE_LEN);
        }
        if got != want {
            self.fail(format!("{function} returned {got:?}, expected {want:?}: {}", last_error()));
        }
        if got == OK {
            self.successes += 1;
        } else if !last_error().starts_with(function) {
            self.fail(format!("{function} failed with a message not naming it: {:?}", last_error()));
        }
    }

    /// (worlds, cloths, colliders) in the model.
    fn model_counts(&self) -> [u32; 3] {
        let cloths = self.worlds.iter().map(|w| w.cloths.len()).sum::<usize>();
        let colliders = self.worlds.iter().map(|w| w.colliders.len()).sum::<usize>();
        [self.worlds.len() as u32, cloths as u32, colliders as u32]
    }

    fn check_counts(&self) -> [u32; 3] {
        let counts = live_counts();
        if counts != self.model_counts() {
            self.fail(format!("live counts {counts:?}, model {:?}", self.model_counts()));
        }
        counts
    }

    fn snapshot(&self) -> Snapshot {
        if let Some(last) = self.last.borrow().as_ref() {
            return last.clone();
        }
        self.fresh_snapshot()
    }

    /// The observable state, read now.
    fn fresh_snapshot(&self) -> Snapshot {
        let counts = self.check_counts();
        let mut cloth_hashes = Vec::new();
        let mut collider_poses = Vec::new();
        for w in &self.worlds {
            for c in &w.cloths {
                let mut hash = 0;
                // SAFETY: valid out-parameter.
                let code = unsafe { xpbd_cloth_state_hash(c.id, &mut hash) };
                if code != OK {
                    self.fail(format!("state hash of live cloth {:#x}: {code:?} {}", c.id.id, last_error()));
                }
                cloth_hashes.push((c.id.id, hash));
            }
            for &k in &w.colliders {
                let (mut p, mut q) = ([0f32; 3], [0f32; 4]);
                // SAFETY: 3 and 4 writable floats.
                let code = unsafe { xpbd_collider_get_pose(k, p.as_mut_ptr(), q.as_mut_ptr()) };
                if code != OK {
                    self.fail(format!("pose of live collider {:#x}: {code:?} {}", k.id, last_error()));
                }
                let mut bits = [0u32; 7];
                for (b, v) in bits.iter_mut().zip(p.iter().chain(&q)) {
                    *b = v.to_bits();
                }
                collider_poses.push((k.id, bits));
            }
        }
        Snapshot { counts, cloth_hashes, collider_poses }
    }

    /// Fail unless the observable state is `before`.
    fn unchanged_since(&self, before: &Snapshot, what: &str) {
        let after = self.fresh_snapshot();
        if after != *before {
            self.fail(format!("{what} changed the state:\nbefore {before:?}\nafter  {after:?}"));
        }
        *self.last.borrow_mut() = Some(after);
    }

    /// Destroy every world (each must succeed), then check that the live counts are zero and
    /// that no id handed out during the run is accepted any more.
    fn finish(&mut self) {
        while let Some(w) = self.worlds.last() {
            let id = w.id;
            let got = xpbd_world_destroy(id);
            self.expect("xpbd_world_destroy", format_args!("{:#x} (cleanup)", id.id), got, OK);
            self.forget_world(self.worlds.len() - 1);
        }
        if live_counts() != [0; 3] {
            self.fail(format!("objects left after destroying every world: {:?}", live_counts()));
        }
        for i in 0..self.dead_worlds.len() {
            let id = self.dead_worlds[i];
            self.expect("xpbd_world_step", format_args!("{:#x} (dead)", id.id), xpbd_world_step(id, 0.01), InvalidId);
        }
        for i in 0..self.dead_cloths.len() {
            let id = self.dead_cloths[i];
            self.expect("xpbd_cloth_destroy", format_args!("{:#x} (dead)", id.id), xpbd_cloth_destroy(id), InvalidId);
        }
        for i in 0..self.dead_colliders.len() {
            let id = self.dead_colliders[i];
            let got = xpbd_collider_destroy(id);
            self.expect("xpbd_collider_destroy", format_args!("{:#x} (dead)", id.id), got, InvalidId);
        }
    }

    fn forget_world(&mut self, index: usize) {
        let w = self.worlds.swap_remove(index);
        self.dead_worlds.push(w.id);
        self.dead_cloths.extend(w.cloths.iter().map(|c| c.id));
        self.dead_colliders.extend(w.colliders);
    }

    // ---- choosing ids ----------------------------------------------------------------------

    fn world_index(&self, id: XpbdWorldId) -> Option<usize> {
        self.worlds.iter().position(|w| w.id == id)
    }

    fn cloth(&self, id: XpbdClothId) -> Option<&ClothModel> {
        self.worlds.iter().flat_map(|w| &w.cloths).find(|c| c.id == id)
    }

    fn cloth_mut(&mut self, id: XpbdClothId) -> Option<&mut ClothModel> {
        self.worlds.iter_mut().flat_map(|w| &mut w.cloths).find(|c| c.id == id)
    }

    fn collider_live(&self, id: XpbdColliderId) -> bool {
        self.worlds.iter().any(|w| w.colliders.contains(&id))
    }

    /// Bits that look like an id: a live one with a field changed, one of another kind, or noise.
    /// Whether the result is live is decided by the model, not by how it was made.
    fn forged(&self, r: &mut Input, live: Option<u64>) -> u64 {
        let base = live.unwrap_or(0);
        match r.below(6) {
            0 => base ^ 1 << (16 + r.below(48)), // another generation, slot or kind
            1 => base & 0xFFFF_FFFF,             // the world part of a cloth/collider id
            2 => base.wrapping_add(1 << 32),     // the next slot in the same world
            3 => u64::MAX,
            4 => self.any_id(r), // an id of any kind, maybe the wrong one
            _ => r.u64(),
        }
    }

    fn any_id(&self, r: &mut Input) -> u64 {
        let mut all: Vec<u64> = Vec::new();
        for w in &self.worlds {
            all.push(w.id.id);
            all.extend(w.cloths.iter().map(|c| c.id.id));
            all.extend(w.colliders.iter().map(|k| k.id));
        }
        match all.is_empty() {
            true => 0,
            false => all[r.below(all.len() as u32) as usize],
        }
    }

    /// Live (most often), stale, null or forged.
    fn pick_id(&self, r: &mut Input, live: &[u64], dead: &[u64]) -> u64 {
        match r.below(16) {
            0..=10 if !live.is_empty() => live[r.below(live.len() as u32) as usize],
            11 | 12 if !dead.is_empty() => dead[r.below(dead.len() as u32) as usize],
            13 => 0,
            _ => {
                let base = (!live.is_empty()).then(|| live[r.below(live.len() as u32) as usize]);
                self.forged(r, base)
            }
        }
    }

    fn pick_world(&self, r: &mut Input) -> XpbdWorldId {
        let live: Vec<u64> = self.worlds.iter().map(|w| w.id.id).collect();
        let dead: Vec<u64> = self.dead_worlds.iter().map(|w| w.id).collect();
        XpbdWorldId { id: self.pick_id(r, &live, &dead) }
    }

    fn pick_cloth(&self, r: &mut Input) -> XpbdClothId {
        let live: Vec<u64> = self.worlds.iter().flat_map(|w| &w.cloths).map(|c| c.id.id).collect();
        let dead: Vec<u64> = self.dead_cloths.iter().map(|c| c.id).collect();
        XpbdClothId { id: self.pick_id(r, &live, &dead) }
    }

    fn pick_collider(&self, r: &mut Input) -> XpbdColliderId {
        let live: Vec<u64> = self.worlds.iter().flat_map(|w| &w.colliders).map(|k| k.id).collect();
        let dead: Vec<u64> = self.dead_colliders.iter().map(|k| k.id).collect();
        XpbdColliderId { id: self.pick_id(r, &live, &dead) }
    }

    // ---- world -----------------------------------------------------------------------------

    pub fn op_world_create(&mut self, r: &mut Input) {
        let mut desc = xpbd_default_world_desc();
        // Mostly one thread: a pool's threads cost their start and join under the sanitizers, and
        // 1 in 4 worlds still steps on one.
        desc.thread_count = r.pick(&[1, 1, 1, 1, 1, 1, 2, 0]);
        desc.substeps = r.pick(&[1, 2, 3, 4]);
        desc.iterations = r.pick(&[1, 1, 2]);
        // At most one field out of range (or wild: a wild gravity may be valid).
        match r.below(10) {
            0 => desc.thread_count = r.pick(&[257, u32::MAX]),
            1 => desc.substeps = r.pick(&[0, 1001]),
            2 => desc.iterations = r.pick(&[0, 1001]),
            3 => desc.gravity[r.below(3) as usize] = r.wild_f32(),
            _ => {}
        }
        let valid = desc.gravity.iter().all(|g| g.abs() <= 1e6) // false for NaN
            && (1..=1000).contains(&desc.substeps)
            && (1..=1000).contains(&desc.iterations)
            && desc.thread_count <= 256;
        let (null_desc, null_out) = (r.chance(3), r.chance(3));
        let want = outcome(&[(null_desc || null_out, NullPointer), (!valid, InvalidArgument)]);
        let before = self.snapshot();
        let mut id = XpbdWorldId { id: 0xDEAD };
        let desc_ptr = if null_desc { std::ptr::null() } else { &desc as *const _ };
        let out_ptr = if null_out { std::ptr::null_mut() } else { &mut id as *mut _ };
        // SAFETY: each pointer is NULL or valid.
        let got = unsafe { xpbd_world_create(desc_ptr, out_ptr) };
        self.expect(
            "xpbd_world_create",
            format_args!("{desc:?}, null desc {null_desc}, null out {null_out}"),
            got,
            want,
        );
        if got == OK {
            self.worlds.push(WorldModel { id, cloths: Vec::new(), colliders: Vec::new() });
            self.check_counts();
        } else {
            if id.id != 0xDEAD {
                self.fail("xpbd_world_create wrote its out-parameter on error".into());
            }
            self.unchanged_since(&before, "failed xpbd_world_create");
        }
    }

    pub fn op_world_destroy(&mut self, r: &mut Input) {
        let id = self.pick_world(r);
        let live = self.world_index(id);
        let before = self.snapshot();
        let got = xpbd_world_destroy(id);
        self.expect("xpbd_world_destroy", format_args!("{:#x}", id.id), got, outcome(&[(live.is_none(), InvalidId)]));
        match live {
            Some(i) => {
                self.forget_world(i);
                self.check_counts();
            }
            None => self.unchanged_since(&before, "failed xpbd_world_destroy"),
        }
    }

    pub fn op_world_step(&mut self, r: &mut Input) {
        let id = self.pick_world(r);
        let dt = r.pick(&[
            1.0 / 60.0,
            1.0 / 60.0,
            1.0 / 30.0,
            1e-3,
            0.0,
            -1.0 / 60.0,
            f32::NAN,
            1.0,
            1.5,
            f32::INFINITY,
            1e-30,
        ]);
        let valid_dt = (1.0e-5..=1.0).contains(&dt);
        let want = outcome(&[(self.world_index(id).is_none(), InvalidId), (!valid_dt, InvalidArgument)]);
        let before = self.snapshot();
        let got = xpbd_world_step(id, dt);
        // Random settings (gravity, external acceleration, pin targets up to 1e5 m) can make a
        // cloth leave its explosion guard's bound: that step reports SIMULATION_UNSTABLE after
        // stepping every cloth, and the offending cloth was put back. Then at least one cloth of
        // the world must say so in its status, and every cloth must read back finite.
        let want = if want == OK && got == XpbdResult::SimulationUnstable { got } else { want };
        self.expect("xpbd_world_step", format_args!("{:#x}, {dt}", id.id), got, want);
        if got == XpbdResult::SimulationUnstable {
            self.check_unstable_step_was_recovered(id);
        } else if got != OK {
            self.unchanged_since(&before, "failed xpbd_world_step");
        }
    }

    /// After a step that returned SIMULATION_UNSTABLE: some cloth of `world` reports a failed step
    /// (reading clears it) and every cloth reads back finite positions.
    fn check_unstable_step_was_recovered(&mut self, world: XpbdWorldId) {
        let cloths: Vec<(XpbdClothId, u32)> =
            self.worlds[self.world_index(world).expect("stepped world is live")].cloths.iter().map(|c| (c.id, c.vertex_count)).collect();
        let mut reported = 0;
        for (id, vertex_count) in cloths {
            let mut status = XpbdClothStatus::default();
            // SAFETY: a live cloth id and a valid out-parameter.
            let got = unsafe { xpbd_cloth_get_status(id, &mut status) };
            self.expect("xpbd_cloth_get_status", format_args!("{:#x}", id.id), got, OK);
            reported += (status.unstable_steps > 0) as u32;
            let mut read = vec![[f32::NAN; 3]; vertex_count as usize];
            // SAFETY: `read` holds `vertex_count` × 3 floats.
            let got = unsafe { xpbd_cloth_read_positions(id, read.as_mut_ptr().cast(), vertex_count) };
            self.expect("xpbd_cloth_read_positions", format_args!("{:#x} (after recovery)", id.id), got, OK);
            if let Some(v) = read.iter().position(|p| !p.iter().all(|c| c.is_finite())) {
                self.fail(format!("vertex {v} of cloth {:#x} is not finite after a recovered step", id.id));
            }
        }
        if reported == 0 {
            self.fail("SIMULATION_UNSTABLE but no cloth of the world reports a failed step".into());
        }
    }

    pub fn op_world_set_gravity(&mut self, r: &mut Input) {
        let id = self.pick_world(r);
        let g = match r.chance(50) {
            true => [r.tame_f32(), r.tame_f32() * 10.0, r.tame_f32()],
            false => [r.wild_f32(), r.wild_f32(), r.wild_f32()],
        };
        let valid = g.iter().all(|c| c.abs() <= 1e6);
        let want = outcome(&[(self.world_index(id).is_none(), InvalidId), (!valid, InvalidArgument)]);
        let before = self.snapshot();
        let got = xpbd_world_set_gravity(id, g[0], g[1], g[2]);
        self.expect("xpbd_world_set_gravity", format_args!("{:#x}, {g:?}", id.id), got, want);
        // Gravity is not part of the snapshot; a successful call must not move anything either.
        self.unchanged_since(&before, "xpbd_world_set_gravity");
    }

    // ---- cloth -----------------------------------------------------------------------------

    pub fn op_cloth_create(&mut self, r: &mut Input) {
        let world = self.pick_world(r);
        let MeshCase { positions, indices, lines, mesh_error } = small_mesh(r);
        let mut desc = xpbd_default_cloth_desc();
        desc.vertex_count = positions.len() as u32;
        desc.positions = positions.as_ptr().cast();
        desc.triangle_count = (indices.len() / 3) as u32;
        desc.indices = if indices.is_empty() && r.chance(50) { std::ptr::null() } else { indices.as_ptr() };
        desc.line_count = (lines.len() / 2) as u32;
        desc.lines = if lines.is_empty() { std::ptr::null() } else { lines.as_ptr() };
        desc.weld_tolerance = r.pick(&[1e-6, 1e-6, 0.0, 0.01, 1.0e-30]);
        desc.substeps = r.pick(&[0, 0, 1, 2, 4]);
        // Optional per-vertex inverse masses, maybe with one bad value.
        let mut inverse_masses: Vec<f32> = (0..positions.len()).map(|_| r.pick(&[1.0, 2.5, 0.0, 40.0])).collect();
        let masses_mode = r.below(8);
        if masses_mode >= 2 {
            desc.inverse_masses = std::ptr::null();
        } else {
            // The core checks masses between out-of-range indices and degenerate triangles: one
            // defect at a time keeps the prediction exact.
            if masses_mode == 1 && !inverse_masses.is_empty() && !mesh_error {
                let k = r.below(inverse_masses.len() as u32) as usize;
                inverse_masses[k] = r.pick(&[-1.0, f32::NAN, f32::INFINITY, -0.0]);
            }
            desc.inverse_masses = inverse_masses.as_ptr();
        }
        // -0.0 is a valid zero inverse mass.
        let bad_mass = !desc.inverse_masses.is_null() && inverse_masses.iter().any(|&w| !(w >= 0.0 && w.is_finite()));
        // At most one settings defect: the C side checks flags first, the core the ranges after
        // finding the world.
        let (mut flag_error, mut range_error) = (false, false);
        match r.below(32) {
            0 => (desc.enable_bending, flag_error) = (2, true),
            1 => (desc.stretch_compliance, flag_error) = (1e-6, true), // set while from_material = 1
            2 => (desc.tether_slack, range_error) = (r.pick(&[0.5, f32::NAN, 1001.0]), true),
            3 => (desc.substeps, range_error) = (1001, true),
            4 => (desc.weld_tolerance, range_error) = (r.pick(&[-1.0, f32::NAN, 1.5]), true),
            5 => (desc.areal_density, range_error) = (r.pick(&[0.0, -0.15, f32::NAN]), true),
            6 => (desc.stretch_compliance_from_material, desc.stretch_compliance) = (0, r.pick(&[0.0, 1e-7, 1e-3])),
            7 => (desc.enable_tethers, desc.enable_bending) = (0, 0),
            8..=15 => (flag_error, range_error) = newer_settings_case!(desc, r),
            _ => {}
        }
        let null_positions = !positions.is_empty() && r.chance(3);
        if null_positions {
            desc.positions = std::ptr::null();
        }
        let null_indices = !indices.is_empty() && r.chance(3);
        if null_indices {
            desc.indices = std::ptr::null();
        }
        let (null_desc, null_out) = (r.chance(3), r.chance(3));
        let want = outcome(&[
            (null_desc || null_out, NullPointer),
            (flag_error, InvalidArgument),
            (null_positions || null_indices, NullPointer),
            (self.world_index(world).is_none(), InvalidId),
            (range_error, InvalidArgument),
            (mesh_error, InvalidMesh),
            (bad_mass, InvalidArgument),
        ]);
        let before = self.snapshot();
        let mut id = XpbdClothId { id: 0xDEAD };
        let desc_ptr = if null_desc { std::ptr::null() } else { &desc as *const _ };
        let out_ptr = if null_out { std::ptr::null_mut() } else { &mut id as *mut _ };
        // SAFETY: each pointer is NULL or valid for the counts in `desc`.
        let got = unsafe { xpbd_cloth_create(world, desc_ptr, out_ptr) };
        let args = format_args!(
            "{:#x}, {} vertices, {} triangles, {} lines, weld {}, masses {masses_mode}, mesh error {mesh_error}, \
             flag error {flag_error}, range error {range_error}, null positions {null_positions} indices {null_indices} \
             desc {null_desc} out {null_out}",
            world.id, desc.vertex_count, desc.triangle_count, desc.line_count, desc.weld_tolerance
        );
        self.expect("xpbd_cloth_create", args, got, want);
        if got != OK {
            if id.id != 0xDEAD {
                self.fail("xpbd_cloth_create wrote its out-parameter on error".into());
            }
            self.unchanged_since(&before, "failed xpbd_cloth_create");
            return;
        }
        let vertex_count = positions.len() as u32;
        let mut particle_of = vec![u32::MAX; positions.len()];
        // SAFETY: `particle_of` holds vertex_count uint32_t.
        let got = unsafe { xpbd_cloth_read_particle_map(id, particle_of.as_mut_ptr(), vertex_count) };
        self.expect("xpbd_cloth_read_particle_map", format_args!("{:#x} (new)", id.id), got, OK);
        let mut particles = 0;
        // SAFETY: valid out-parameter.
        let got = unsafe { xpbd_cloth_particle_count(id, &mut particles) };
        self.expect("xpbd_cloth_particle_count", format_args!("{:#x} (new)", id.id), got, OK);
        if particles == 0 || particles > vertex_count || particle_of.iter().any(|&p| p >= particles) {
            self.fail(format!("{particles} particles for {vertex_count} vertices, map {particle_of:?}"));
        }
        // A new cloth reads back exactly the positions it was given (welded copies of the
        // harness meshes are exact duplicates).
        let mut read = vec![[f32::NAN; 3]; positions.len()];
        // SAFETY: `read` holds 3*vertex_count floats.
        let got = unsafe { xpbd_cloth_read_positions(id, read.as_mut_ptr().cast(), vertex_count) };
        self.expect("xpbd_cloth_read_positions", format_args!("{:#x} (new)", id.id), got, OK);
        let bits = |p: &[[f32; 3]]| p.iter().map(|v| v.map(f32::to_bits)).collect::<Vec<_>>();
        if bits(&read) != bits(&positions) {
            self.fail(format!("new cloth reads {read:?}, created from {positions:?}"));
        }
        let w = self.world_index(world).expect("created in a live world");
        let (pinned, grabbed) = (vec![false; particles as usize], vec![false; particles as usize]);
        let mesh_key = (bits(&positions), indices.clone());
        self.worlds[w].cloths.push(ClothModel { id, vertex_count, particle_of, pinned, grabbed, mesh_key });
        self.check_counts();
    }

    pub fn op_cloth_destroy(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let live = self.cloth(id).is_some();
        let before = self.snapshot();
        let got = xpbd_cloth_destroy(id);
        self.expect("xpbd_cloth_destroy", format_args!("{:#x}", id.id), got, outcome(&[(!live, InvalidId)]));
        if live {
            for w in &mut self.worlds {
                w.cloths.retain(|c| c.id != id);
            }
            self.dead_cloths.push(id);
            self.check_counts();
        } else {
            self.unchanged_since(&before, "failed xpbd_cloth_destroy");
        }
    }

    pub fn op_cloth_counts(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let expected = self.cloth(id).map(|c| (c.vertex_count, c.pinned.len() as u32));
        let null_out = r.chance(10);
        let want = outcome(&[(null_out, NullPointer), (expected.is_none(), InvalidId)]);
        let before = self.snapshot();
        let (mut vertices, mut particles) = (u32::MAX, u32::MAX);
        let (pv, pp) = match null_out {
            true => (std::ptr::null_mut(), std::ptr::null_mut()),
            false => (&mut vertices as *mut u32, &mut particles as *mut u32),
        };
        // SAFETY: NULL or valid out-parameters.
        let gv = unsafe { xpbd_cloth_vertex_count(id, pv) };
        self.expect("xpbd_cloth_vertex_count", format_args!("{:#x}, null {null_out}", id.id), gv, want);
        // SAFETY: as above.
        let gp = unsafe { xpbd_cloth_particle_count(id, pp) };
        self.expect("xpbd_cloth_particle_count", format_args!("{:#x}, null {null_out}", id.id), gp, want);
        if want == OK && Some((vertices, particles)) != expected {
            self.fail(format!("counts ({vertices}, {particles}), model {expected:?}"));
        }
        self.unchanged_since(&before, "reading counts");
    }

    /// `read_positions`, `read_normals` or `read_particle_map` into a buffer of a random size:
    /// exact, one off, empty, NULL or misaligned.
    pub fn op_cloth_read(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let live_count = self.cloth(id).map(|c| c.vertex_count);
        let vc = live_count.unwrap_or(r.below(16));
        let count = match r.below(8) {
            0 => vc.saturating_sub(1),
            1 => vc + 1,
            2 => 0,
            3 => 2 * vc + 3,
            _ => vc,
        };
        let what = r.below(3); // 0 positions, 1 normals, 2 particle map
        let floats_per = if what == 2 { 1 } else { 3 };
        let pointer = r.below(16); // 0 NULL, 1 misaligned, else a good buffer
        let len = count as usize * floats_per;
        let mut buf = vec![0x7FC0_1234u32; len + 1]; // a NaN payload never written by the library
        let ptr: *mut u32 = match pointer {
            0 => std::ptr::null_mut(),
            1 => buf.as_mut_ptr().cast::<u8>().wrapping_add(1).cast(),
            _ => buf.as_mut_ptr(),
        };
        let want = outcome(&[
            (count > 0 && pointer == 0, NullPointer),
            (count > 0 && pointer == 1, InvalidArgument),
            (live_count.is_none(), InvalidId),
            (Some(count) != live_count, BufferSizeMismatch),
        ]);
        let before = self.snapshot();
        // SAFETY: `ptr` is NULL, or points to `len` (+1 spare) elements; a misaligned pointer is
        // rejected before any access.
        let (name, got) = unsafe {
            match what {
                0 => ("xpbd_cloth_read_positions", xpbd_cloth_read_positions(id, ptr.cast(), count)),
                1 => ("xpbd_cloth_read_normals", xpbd_cloth_read_normals(id, ptr.cast(), count)),
                _ => ("xpbd_cloth_read_particle_map", xpbd_cloth_read_particle_map(id, ptr, count)),
            }
        };
        self.expect(name, format_args!("{:#x}, pointer mode {pointer}, count {count}", id.id), got, want);
        self.unchanged_since(&before, name);
        let untouched = buf.iter().all(|&b| b == 0x7FC0_1234);
        match got {
            OK if buf[..len].contains(&0x7FC0_1234) => self.fail(format!("{name} left part of the buffer unwritten")),
            OK if buf[len] != 0x7FC0_1234 => self.fail(format!("{name} wrote past {count} elements")),
            OK if what == 1 => self.check_normals(&buf[..len]),
            OK if what == 2 => {
                let map = &self.cloth(id).expect("live").particle_of;
                if buf[..len] != map[..] {
                    self.fail(format!("particle map {:?} changed from {map:?}", &buf[..len]));
                }
            }
            OK => {}
            _ if !untouched => self.fail(format!("failed {name} wrote into the buffer")),
            _ => {}
        }
    }

    /// Normals are unit length or zero (particles without triangles, collapsed triangles), as
    /// long as the cloth has not diverged.
    fn check_normals(&self, bits: &[u32]) {
        for n in bits.chunks(3) {
            let n = n.iter().map(|&b| f32::from_bits(b) as f64).collect::<Vec<_>>();
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            if len.is_finite() && len != 0.0 && (len - 1.0).abs() > 1e-3 {
                self.fail(format!("normal {n:?} has length {len}"));
            }
        }
    }

    /// Render vertex indices for a pin call: in range (often pinned ones), or out of range.
    fn pin_vertices(&self, r: &mut Input, cloth: Option<&ClothModel>, prefer_pinned: bool) -> (Vec<u32>, bool) {
        let vc = cloth.map_or(r.below(8) + 1, |c| c.vertex_count);
        let pinned: Vec<u32> = cloth.map_or(Vec::new(), |c| (0..vc).filter(|&v| c.is_pinned(v)).collect());
        let k = r.below(5);
        let mut out_of_range = false;
        let vertices = (0..k)
            .map(|_| match r.below(12) {
                0 => {
                    out_of_range = true;
                    r.pick(&[vc, vc + 1, u32::MAX])
                }
                1..=6 if prefer_pinned && !pinned.is_empty() => pinned[r.below(pinned.len() as u32) as usize],
                _ => r.below(vc),
            })
            .collect();
        (vertices, out_of_range)
    }

    /// Targets for `count` pins: NULL (only where allowed), tame, or wild; and whether one is
    /// not finite.
    fn pin_targets(r: &mut Input, count: usize) -> (Option<Vec<[f32; 3]>>, bool) {
        match r.below(4) {
            0 => (None, false),
            3 => {
                let t: Vec<[f32; 3]> = (0..count).map(|_| [r.wild_f32(), r.wild_f32(), r.wild_f32()]).collect();
                let bad = t.iter().flatten().any(|c| !(c.abs() <= 1.0e5));
                (Some(t), bad)
            }
            _ => (Some((0..count).map(|_| [r.tame_f32(), r.tame_f32(), r.tame_f32()]).collect()), false),
        }
    }

    pub fn op_cloth_set_pinned(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let live = self.cloth(id).is_some();
        let (vertices, out_of_range) = self.pin_vertices(r, self.cloth(id), false);
        let (targets, bad_target) = Self::pin_targets(r, vertices.len());
        let null_vertices = !vertices.is_empty() && r.chance(5);
        let vptr = if null_vertices { std::ptr::null() } else { vertices.as_ptr() };
        let tptr = targets.as_ref().map_or(std::ptr::null(), |t| t.as_ptr().cast::<f32>());
        let want =
            outcome(&[(null_vertices, NullPointer), (!live, InvalidId), (bad_target || out_of_range, InvalidArgument)]);
        let before = self.snapshot();
        // SAFETY: `vptr` NULL or `count` u32s; `tptr` NULL or 3*count floats.
        let got = unsafe { xpbd_cloth_set_pinned(id, vptr, vertices.len() as u32, tptr) };
        self.expect("xpbd_cloth_set_pinned", format_args!("{:#x}, {vertices:?}, {targets:?}", id.id), got, want);
        if got == OK {
            let c = self.cloth_mut(id).expect("live");
            for &v in &vertices {
                c.pinned[c.particle_of[v as usize] as usize] = true;
            }
            // Pinning moves nothing before the next step.
            self.unchanged_since(&before, "xpbd_cloth_set_pinned");
        } else {
            self.unchanged_since(&before, "failed xpbd_cloth_set_pinned");
        }
    }

    pub fn op_cloth_set_pin_targets(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let cloth = self.cloth(id);
        let (vertices, out_of_range) = self.pin_vertices(r, cloth, true);
        let not_pinned = !out_of_range && cloth.is_some_and(|c| vertices.iter().any(|&v| !c.is_pinned(v)));
        let (targets, bad_target) = Self::pin_targets(r, vertices.len());
        let null_vertices = !vertices.is_empty() && r.chance(5);
        let vptr = if null_vertices { std::ptr::null() } else { vertices.as_ptr() };
        let tptr = targets.as_ref().map_or(std::ptr::null(), |t| t.as_ptr().cast::<f32>());
        let null_targets = !vertices.is_empty() && targets.is_none();
        let want = outcome(&[
            (null_vertices || null_targets, NullPointer),
            (cloth.is_none(), InvalidId),
            (bad_target || out_of_range || not_pinned, InvalidArgument),
        ]);
        let before = self.snapshot();
        // SAFETY: `vptr` NULL or `count` u32s; `tptr` NULL or 3*count floats.
        let got = unsafe { xpbd_cloth_set_pin_targets(id, vptr, vertices.len() as u32, tptr) };
        self.expect("xpbd_cloth_set_pin_targets", format_args!("{:#x}, {vertices:?}, {targets:?}", id.id), got, want);
        // Targets are reached during the next step: nothing moves now either way.
        self.unchanged_since(&before, "xpbd_cloth_set_pin_targets");
    }

    pub fn op_cloth_unpin(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let live = self.cloth(id).is_some();
        let (vertices, out_of_range) = self.pin_vertices(r, self.cloth(id), true);
        let null_vertices = !vertices.is_empty() && r.chance(5);
        let vptr = if null_vertices { std::ptr::null() } else { vertices.as_ptr() };
        let want = outcome(&[(null_vertices, NullPointer), (!live, InvalidId), (out_of_range, InvalidArgument)]);
        let before = self.snapshot();
        // SAFETY: `vptr` NULL or `count` u32s.
        let got = unsafe { xpbd_cloth_unpin(id, vptr, vertices.len() as u32) };
        self.expect("xpbd_cloth_unpin", format_args!("{:#x}, {vertices:?}", id.id), got, want);
        if got == OK {
            let c = self.cloth_mut(id).expect("live");
            for &v in &vertices {
                c.pinned[c.particle_of[v as usize] as usize] = false;
            }
        }
        self.unchanged_since(&before, "xpbd_cloth_unpin");
    }

    /// `get_params`, then `set_params` with at most one field changed (valid or not).
    pub fn op_cloth_params(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let live = self.cloth(id).is_some();
        let null_get = r.chance(5);
        let mut params = xpbd_default_cloth_params();
        let before = self.snapshot();
        let out: *mut XpbdClothParams = if null_get { std::ptr::null_mut() } else { &mut params };
        // SAFETY: NULL or a valid out-parameter.
        let got = unsafe { xpbd_cloth_get_params(id, out) };
        let want = outcome(&[(null_get, NullPointer), (!live, InvalidId)]);
        self.expect("xpbd_cloth_get_params", format_args!("{:#x}, null {null_get}", id.id), got, want);
        self.unchanged_since(&before, "xpbd_cloth_get_params");
        // At most one defect: flags are checked on the C side before the id, ranges by the core.
        let (mut flag_error, mut range_error) = (false, false);
        match r.below(28) {
            0 => params.substeps = r.pick(&[0, 1, 2, 4]),
            1 => params.iterations = r.pick(&[0, 1, 2]),
            2 => params.enable_stretch ^= 1,
            3 => params.enable_bending ^= 1,
            4 => params.enable_tethers ^= 1,
            5 => (params.stretch_compliance_from_material, params.stretch_compliance) = (0, r.pick(&[0.0, 1e-6])),
            6 => params.linear_damping = r.pick(&[0.0, 0.5, 10.0]),
            7 => (params.drag_coefficient, params.wind_velocity) = (1.0, [r.tame_f32(), 0.0, r.tame_f32()]),
            8 => (params.enable_bending, flag_error) = (r.pick(&[2, u32::MAX]), true),
            9 => (params.tether_slack, range_error) = (r.pick(&[0.0, 0.99, f32::NAN, f32::INFINITY]), true),
            10 => (params.substeps, range_error) = (r.pick(&[1001, u32::MAX]), true),
            11 => (params.bend_compliance, flag_error) = (1e-3, true), // set while from_material = 1
            12 => {
                (params.wind_velocity, params.drag_coefficient, params.lift_coefficient) = ([1.0, 0.0, 0.0], 0.0, 0.0);
                range_error = true;
            }
            13 => (params.collision_thickness, range_error) = (r.pick(&[-0.1, 1.5, f32::NAN]), true),
            14..=21 => (flag_error, range_error) = newer_settings_case!(params, r),
            _ => {}
        }
        let null_set = r.chance(5);
        let want = outcome(&[
            (null_set, NullPointer),
            (flag_error, InvalidArgument),
            (!live, InvalidId),
            (range_error, InvalidArgument),
        ]);
        let before = self.snapshot();
        let ptr: *const XpbdClothParams = if null_set { std::ptr::null() } else { &params };
        // SAFETY: NULL or a valid descriptor.
        let got = unsafe { xpbd_cloth_set_params(id, ptr) };
        self.expect("xpbd_cloth_set_params", format_args!("{:#x}, {params:?}, null {null_set}", id.id), got, want);
        // New settings apply from the next step: nothing moves now.
        self.unchanged_since(&before, "xpbd_cloth_set_params");
    }

    pub fn op_cloth_set_material(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let live = self.cloth(id).is_some();
        let mut m = xpbd_default_cloth_material();
        let mut range_error = false;
        match r.below(8) {
            0 => m.youngs_modulus = r.pick(&[1e5, 1e7, 2e8]),
            1 => m.areal_density = r.pick(&[0.05, 0.5]),
            2 => (m.youngs_modulus, range_error) = (r.pick(&[0.0, -1.0, f32::NAN, f32::INFINITY]), true),
            3 => (m.poisson_ratio, range_error) = (r.pick(&[0.5, -0.1, f32::NAN]), true),
            4 => (m.thickness, range_error) = (r.pick(&[0.0, f32::NAN]), true),
            _ => {}
        }
        let null = r.chance(5);
        let want = outcome(&[(null, NullPointer), (!live, InvalidId), (range_error, InvalidArgument)]);
        let before = self.snapshot();
        let ptr: *const XpbdClothMaterial = if null { std::ptr::null() } else { &m };
        // SAFETY: NULL or a valid material.
        let got = unsafe { xpbd_cloth_set_material(id, ptr) };
        self.expect("xpbd_cloth_set_material", format_args!("{:#x}, {m:?}, null {null}", id.id), got, want);
        self.unchanged_since(&before, "xpbd_cloth_set_material");
    }

    pub fn op_cloth_stats_and_hash(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let live = self.cloth(id).is_some();
        let null = r.chance(10);
        let want = outcome(&[(null, NullPointer), (!live, InvalidId)]);
        let before = self.snapshot();
        // SAFETY: every field of the plain-data struct is valid as zero bits.
        let mut stats: XpbdClothStats = unsafe { std::mem::zeroed() };
        let mut hash = 0u64;
        let (stats_ptr, hash_ptr): (*mut XpbdClothStats, *mut u64) = match null {
            true => (std::ptr::null_mut(), std::ptr::null_mut()),
            false => (&mut stats, &mut hash),
        };
        // SAFETY: NULL or a valid out-parameter.
        let gs = unsafe { xpbd_cloth_get_stats(id, stats_ptr) };
        self.expect("xpbd_cloth_get_stats", format_args!("{:#x}, null {null}", id.id), gs, want);
        // SAFETY: NULL or a valid out-parameter.
        let gh = unsafe { xpbd_cloth_state_hash(id, hash_ptr) };
        self.expect("xpbd_cloth_state_hash", format_args!("{:#x}, null {null}", id.id), gh, want);
        self.unchanged_since(&before, "reading stats and hash");
        if gh == OK && !before.cloth_hashes.contains(&(id.id, hash)) {
            self.fail(format!("state hash {hash:#x} of {:#x} differs from the snapshot's", id.id));
        }
    }

    // ---- collider --------------------------------------------------------------------------

    /// A unit rotation, or (when `defect`) one that is not a unit quaternion.
    fn rotation(r: &mut Input, defect: bool) -> [f32; 4] {
        let s = std::f32::consts::FRAC_1_SQRT_2;
        match defect {
            false => r.pick(&[[0.0, 0.0, 0.0, 1.0], [0.0, s, 0.0, s], [1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.5, 0.5]]),
            true => {
                r.pick(&[[0.0; 4], [0.0, 0.0, 0.0, 1.01], [f32::NAN, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, f32::INFINITY]])
            }
        }
    }

    pub fn op_collider_create(&mut self, r: &mut Input) {
        let world = self.pick_world(r);
        // Each kind's own defaults (a box's half extents 0.5 m), then the dimensions varied.
        let mut desc = xpbd_default_collider_desc_for(r.below(4));
        desc.radius = r.pick(&[0.5, 0.1, 0.25]);
        desc.half_height = r.pick(&[0.0, 0.3]);
        desc.position = [r.tame_f32(), r.tame_f32(), r.tame_f32()];
        desc.rotation = Self::rotation(r, false);
        let (mut kind_error, mut range_error) = (false, false);
        match r.below(12) {
            // An unknown kind, from the per-kind default that keeps it for creation to report, or a
            // mesh (4) without its shape: both a bad field, before the world is looked up.
            0 => (desc, kind_error) = (xpbd_default_collider_desc_for(r.pick(&[4, 5, 99, u32::MAX])), true),
            1 => {
                (desc.position[r.below(3) as usize], range_error) =
                    (r.pick(&[f32::NAN, 1.5e5, f32::NEG_INFINITY]), true)
            }
            2 => (desc.rotation, range_error) = (Self::rotation(r, true), true),
            3 => (desc.static_friction, range_error) = (r.pick(&[-1.0, 101.0, f32::NAN]), true),
            4 if desc.kind != XpbdColliderKind::Plane as u32 => {
                // Sphere and capsule need a radius > 0; a box's rounding must fit its half extents.
                (desc.radius, range_error) = (r.pick(&[f32::NAN, 2e4, -0.5]), true)
            }
            _ => {}
        }
        let (null_desc, null_out) = (r.chance(3), r.chance(3));
        let want = outcome(&[
            (null_desc || null_out, NullPointer),
            (kind_error, InvalidArgument),
            (self.world_index(world).is_none(), InvalidId),
            (range_error, InvalidArgument),
        ]);
        let before = self.snapshot();
        let mut id = XpbdColliderId { id: 0xDEAD };
        let desc_ptr = if null_desc { std::ptr::null() } else { &desc as *const _ };
        let out_ptr = if null_out { std::ptr::null_mut() } else { &mut id as *mut _ };
        // SAFETY: NULL or valid pointers.
        let got = unsafe { xpbd_collider_create(world, desc_ptr, out_ptr) };
        let args = format_args!("{:#x}, {desc:?}, null desc {null_desc} out {null_out}", world.id);
        self.expect("xpbd_collider_create", args, got, want);
        if got == OK {
            let w = self.world_index(world).expect("created in a live world");
            self.worlds[w].colliders.push(id);
            self.check_counts();
        } else {
            if id.id != 0xDEAD {
                self.fail("xpbd_collider_create wrote its out-parameter on error".into());
            }
            self.unchanged_since(&before, "failed xpbd_collider_create");
        }
    }

    pub fn op_collider_set_pose(&mut self, r: &mut Input) {
        let id = self.pick_collider(r);
        let live = self.collider_live(id);
        let mut position = [r.tame_f32(), r.tame_f32(), r.tame_f32()];
        let bad_position = r.chance(10);
        if bad_position {
            position[r.below(3) as usize] = r.pick(&[f32::NAN, 1.5e5, f32::INFINITY, -2e5]);
        }
        let bad_rotation = r.chance(10);
        let rotation = Self::rotation(r, bad_rotation);
        let (null_p, null_q) = (r.chance(4), r.chance(4));
        let want = outcome(&[
            (null_p || null_q, NullPointer),
            (!live, InvalidId),
            (bad_position || bad_rotation, InvalidArgument),
        ]);
        let before = self.snapshot();
        let pp = if null_p { std::ptr::null() } else { position.as_ptr() };
        let qp = if null_q { std::ptr::null() } else { rotation.as_ptr() };
        // SAFETY: NULL or 3 / 4 readable floats.
        let got = unsafe { xpbd_collider_set_pose(id, pp, qp) };
        self.expect("xpbd_collider_set_pose", format_args!("{:#x}, {position:?}, {rotation:?}", id.id), got, want);
        // The pose is a target for the next step: the current pose is unchanged either way.
        self.unchanged_since(&before, "xpbd_collider_set_pose");
    }

    pub fn op_collider_read(&mut self, r: &mut Input) {
        let id = self.pick_collider(r);
        let live = self.collider_live(id);
        let null = r.chance(10);
        let want = outcome(&[(null, NullPointer), (!live, InvalidId)]);
        let before = self.snapshot();
        let (mut p, mut q) = ([f32::NAN; 3], [f32::NAN; 4]);
        let mut desc = xpbd_default_collider_desc();
        let (pp, dp): (*mut f32, *mut XpbdColliderDesc) = match null {
            true => (std::ptr::null_mut(), std::ptr::null_mut()),
            false => (p.as_mut_ptr(), &mut desc),
        };
        // SAFETY: NULL or 3 writable floats; 4 writable floats.
        let gp = unsafe { xpbd_collider_get_pose(id, pp, q.as_mut_ptr()) };
        self.expect("xpbd_collider_get_pose", format_args!("{:#x}, null {null}", id.id), gp, want);
        // SAFETY: NULL or a valid out-parameter.
        let gd = unsafe { xpbd_collider_get_desc(id, dp) };
        self.expect("xpbd_collider_get_desc", format_args!("{:#x}, null {null}", id.id), gd, want);
        self.unchanged_since(&before, "reading a collider");
        if gp == OK && (desc.position != p || desc.rotation != q) {
            self.fail(format!(
                "get_desc pose {:?} {:?} differs from get_pose {p:?} {q:?}",
                desc.position, desc.rotation
            ));
        }
    }

    pub fn op_collider_destroy(&mut self, r: &mut Input) {
        let id = self.pick_collider(r);
        let live = self.collider_live(id);
        let before = self.snapshot();
        let got = xpbd_collider_destroy(id);
        self.expect("xpbd_collider_destroy", format_args!("{:#x}", id.id), got, outcome(&[(!live, InvalidId)]));
        if live {
            for w in &mut self.worlds {
                w.colliders.retain(|&k| k != id);
            }
            self.dead_colliders.push(id);
            self.check_counts();
        } else {
            self.unchanged_since(&before, "failed xpbd_collider_destroy");
        }
    }

    // ---- process-wide ----------------------------------------------------------------------

    /// The last error message into a buffer of random capacity: NUL-terminated inside it, the
    /// returned length is the whole message's, and a truncated copy is a prefix of it.
    pub fn op_last_error_message(&mut self, r: &mut Input) {
        let full = last_error();
        let capacity = r.below(full.len() as u32 + 8) as usize;
        let null = r.chance(10);
        let mut buf = vec![0x55 as c_char; capacity + 1];
        let ptr = if null { std::ptr::null_mut() } else { buf.as_mut_ptr() };
        // SAFETY: NULL or `capacity` writable bytes.
        let needed = unsafe { xpbd_last_error_message(ptr, capacity) };
        self.calls += 1;
        if needed != full.len() + 1 {
            self.fail(format!("xpbd_last_error_message needs {needed}, message is {} bytes", full.len()));
        }
        if buf[capacity] != 0x55 {
            self.fail("xpbd_last_error_message wrote past its capacity".into());
        }
        if !null && capacity > 0 {
            let copied: Vec<u8> = buf.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
            if copied.len() >= capacity || !full.as_bytes().starts_with(&copied) {
                self.fail(format!("xpbd_last_error_message copied {copied:?} of {full:?} into {capacity} bytes"));
            }
        }
    }

    pub fn op_live_counts(&mut self, r: &mut Input) {
        let null = r.chance(20);
        let mut n = [u32::MAX; 3];
        let functions: [(&str, unsafe extern "C" fn(*mut u32) -> XpbdResult); 3] = [
            ("xpbd_live_world_count", xpbd_live_world_count),
            ("xpbd_live_cloth_count", xpbd_live_cloth_count),
            ("xpbd_live_collider_count", xpbd_live_collider_count),
        ];
        for ((name, f), out) in functions.into_iter().zip(&mut n) {
            let ptr: *mut u32 = if null { std::ptr::null_mut() } else { out };
            // SAFETY: NULL or a valid out-parameter.
            let got = unsafe { f(ptr) };
            self.expect(name, format_args!("null {null}"), got, if null { NullPointer } else { OK });
        }
        if !null && n != self.model_counts() {
            self.fail(format!("live counts {n:?}, model {:?}", self.model_counts()));
        }
    }
}

/// A failed check unwinds through here: destroy what the model knows of, so that the next test
/// (or proptest's next shrinking attempt) starts from an empty process.
impl Drop for Harness {
    fn drop(&mut self) {
        for w in &self.worlds {
            xpbd_world_destroy(w.id);
        }
    }
}

/// (worlds, cloths, colliders) alive in the process.
pub fn live_counts() -> [u32; 3] {
    let mut n = [u32::MAX; 3];
    let [a, b, c] = &mut n;
    // SAFETY: valid out-parameters.
    let codes = unsafe { [xpbd_live_world_count(a), xpbd_live_cloth_count(b), xpbd_live_collider_count(c)] };
    assert_eq!(codes, [OK; 3], "live counts");
    n
}

/// The calling thread's last error message.
pub fn last_error() -> String {
    // SAFETY: NULL with capacity 0 asks for the length only; then a buffer of that length.
    unsafe {
        let needed = xpbd_last_error_message(std::ptr::null_mut(), 0);
        let mut buf = vec![0 as c_char; needed];
        xpbd_last_error_message(buf.as_mut_ptr(), needed);
        std::ffi::CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned()
    }
}
