//! The world: gravity, solver defaults, a thread pool, colliders, and many cloths stepped together.

mod debug_lines;
mod lod;
mod mesh_shapes;
mod render_proxies;

use mesh_shapes::MeshShapeEntry;
pub use mesh_shapes::MeshShapeStatus;

use crate::cloth::{Cloth, ClothDesc, MAX_SUBSTEPS};
use crate::collision::inter_cloth::InterClothSnapshot;
use crate::collision::{Collider, ColliderHandle, ColliderStore, Pose};
use std::sync::Arc;
use crate::error::{ClothError, check_count, check_range};
pub use crate::handle::ClothHandle;
use crate::slot_map::SlotMap;
pub use crate::solver::PARALLEL_MIN_CONSTRAINTS;
use crate::fp_env::DefaultFpEnv;
use crate::solver::{StepContext, step_cloth};
use crate::cloth::LayoutThread;
use crate::worker_pool::WorkerPool;
use glam::Vec3;
use rayon::prelude::*;

/// World settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldDesc {
    /// Gravity \[m/s²\]. Default (0, −9.81, 0): Y up.
    pub gravity: [f32; 3],
    /// Substeps per step n (h = dt/n) for cloths that do not set their own. Default 10.
    pub substeps: u32,
    /// Gauss–Seidel iterations per substep. Default 1 (Small Steps: substeps beat iterations).
    pub iterations: u32,
    /// Worker threads for stepping cloths in parallel; 0 = all cores, 1 = the calling thread only.
    pub thread_count: u32,
}

impl Default for WorldDesc {
    fn default() -> Self {
        WorldDesc { gravity: [0.0, -9.81, 0.0], substeps: 10, iterations: 1, thread_count: 0 }
    }
}

impl WorldDesc {
    /// Errors: `InvalidParameter` for gravity not finite or beyond ±1e6 m/s² per component,
    /// substeps or iterations outside 1..=1000, thread_count above 256.
    pub fn validate(&self) -> Result<(), ClothError> {
        for g in self.gravity {
            check_range("gravity", g, -1.0e6, 1.0e6, "finite m/s² within ±1e6 per component")?;
        }
        check_count("substeps", self.substeps, 1, MAX_SUBSTEPS, "1..=1000")?;
        check_count("iterations", self.iterations, 1, MAX_SUBSTEPS, "1..=1000")?;
        check_count("thread_count", self.thread_count, 0, 256, "0..=256 (0 = all cores)")?;
        Ok(())
    }
}

/// Largest step accepted by [`World::step`] \[s\].
pub const MAX_TIME_STEP: f32 = 1.0;

/// Smallest step accepted by [`World::step`] \[s\] (10 µs). Below it the substep h = dt/n makes
/// α/h² and 1/h overflow f32 (a step of 1e-30 s turned every cloth into NaN); no engine steps
/// physics faster than 100 kHz.
pub const MIN_TIME_STEP: f32 = 1.0e-5;

/// Largest frame time [`World::advance`] accepts \[s\] (an hour: a debugger pause, not a frame).
pub const MAX_FRAME_TIME: f32 = 3600.0;

/// Largest `max_steps` [`World::advance`] accepts.
pub const MAX_ADVANCE_STEPS: u32 = 1000;

/// What one [`World::advance`] did.
#[derive(Clone, Debug, PartialEq)]
pub struct Advance {
    /// Fixed steps taken (≤ `max_steps`; equal to it when time was dropped).
    pub steps: u32,
    /// Where the frame lies between the last two step states, in [0, 1): the `alpha` of the
    /// interpolated reads.
    pub alpha: f32,
    /// Time dropped because `max_steps` was reached \[s\] (whole fixed steps; 0 normally).
    pub dropped: f32,
    /// `SimulationUnstable` from the first step in which a cloth failed its guard, if any: the
    /// steps still all ran (see [`World::step`]).
    pub unstable: Option<ClothError>,
}

/// A set of cloths sharing gravity, solver defaults, colliders and a thread pool. Dropping it
/// frees its cloths and colliders and joins the pool's threads: when the drop returns, they have
/// ended.
pub struct World {
    desc: WorldDesc,
    cloths: SlotMap<Cloth>,
    colliders: ColliderStore,
    /// Mesh shapes, shared by the mesh colliders that instance them; built, building or failed.
    mesh_shapes: SlotMap<MeshShapeEntry>,
    /// Joined when the world is dropped (`crate::worker_pool`).
    pool: Option<Arc<WorkerPool>>,
    /// Builds the layouts of pin changes; its thread is joined when the world is dropped.
    layout_thread: Arc<LayoutThread>,
    /// Particles of the cloths with inter-cloth collision, taken before each step (reused).
    inter_cloth: InterClothSnapshot,
    /// Frame time not yet stepped by [`World::advance`] \[s\] (f64: no drift over hours).
    accumulator: f64,
    /// [`Advance::dropped`] of the last `advance` \[s\].
    last_dropped: f32,
    /// Which cloths step when, at their `step_interval` (`lod`).
    lod: lod::LodSchedule,
    /// Render proxies, each bound to one cloth (`render_proxies`).
    proxies: SlotMap<render_proxies::ProxyEntry>,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("desc", &self.desc)
            .field("cloths", &self.cloth_count())
            .field("colliders", &self.collider_count())
            .finish()
    }
}

impl World {
    /// Create a world. Errors: `InvalidParameter` (see [`WorldDesc::validate`]).
    pub fn new(desc: WorldDesc) -> Result<World, ClothError> {
        desc.validate()?;
        let pool = if desc.thread_count == 1 {
            None
        } else {
            WorkerPool::new(desc.thread_count as usize).map(Arc::new)
        };
        Ok(World {
            desc,
            cloths: SlotMap::default(),
            colliders: ColliderStore::default(),
            mesh_shapes: SlotMap::with_max_generation(crate::slot_map::MAX_MESH_SHAPE_GENERATION),
            pool,
            layout_thread: Arc::default(),
            inter_cloth: InterClothSnapshot::default(),
            accumulator: 0.0,
            last_dropped: 0.0,
            lod: lod::LodSchedule::default(),
            proxies: SlotMap::default(),
        })
    }

    /// The settings this world was created with.
    pub fn desc(&self) -> &WorldDesc {
        &self.desc
    }

    /// Change gravity \[m/s²\]. Errors: `InvalidParameter` for a component not finite or beyond
    /// ±1e6 m/s².
    pub fn set_gravity(&mut self, gravity: [f32; 3]) -> Result<(), ClothError> {
        WorldDesc { gravity, ..self.desc }.validate()?;
        if gravity != self.desc.gravity {
            self.cloths.values_mut().for_each(Cloth::wake); // every cloth feels gravity
        }
        self.desc.gravity = gravity;
        Ok(())
    }

    /// Create a cloth from a render mesh. Validates everything first: on error nothing is added.
    pub fn add_cloth(&mut self, desc: &ClothDesc) -> Result<ClothHandle, ClothError> {
        let _fp = DefaultFpEnv::enter();
        let (index, generation) = self.cloths.insert(Cloth::new(desc)?);
        if let Some(cloth) = self.cloths.get_mut(index, generation) {
            cloth.world_key = index;
            cloth.pending.builder = Arc::downgrade(&self.layout_thread);
        }
        Ok(ClothHandle { index, generation })
    }

    /// Create an instance of the cloth `source`: a new cloth of this world that shares its immutable
    /// model (welded mesh, rest values, constraints) and its current constraint layout, and starts
    /// with copies of its settings, pins, state (positions, velocities, the previous step state of
    /// the interpolated reads) and solver buffers, so it steps bit for bit as the source would from
    /// here. Costs a copy of the per-particle state instead of building the model; the shared parts
    /// live until the last cloth using them is removed. Changing the instance's pins or colouring
    /// gives it a layout of its own. Its guard status starts clear. Errors: `InvalidHandle`.
    pub fn add_instance(&mut self, source: ClothHandle) -> Result<ClothHandle, ClothError> {
        let source = self.cloth_mut(source)?;
        source.wake(); // an instance is usually placed elsewhere next; both start counting again
        let mut instance = source.clone();
        instance.guard.clear_status();
        if instance.can_tear() {
            // A tearable cloth's mesh and layout change with its cuts: the instance gets its own,
            // with the room its cuts need.
            instance.model = Arc::new((*instance.model).clone());
            instance.layout = Arc::new((*instance.layout).clone());
            instance.reserve_for_tearing();
        }
        let (index, generation) = self.cloths.insert(instance);
        if let Some(cloth) = self.cloths.get_mut(index, generation) {
            cloth.world_key = index;
        }
        Ok(ClothHandle { index, generation })
    }

    /// Read and clear a cloth's guard status (see [`Cloth::take_status`]). Errors: `InvalidHandle`.
    pub fn take_cloth_status(&mut self, handle: ClothHandle) -> Result<crate::ClothStatus, ClothError> {
        Ok(self.cloth_mut(handle)?.take_status())
    }

    /// Remove a cloth and its render proxies (their handles become stale). Errors:
    /// `InvalidHandle` for a stale or unknown handle.
    pub fn remove_cloth(&mut self, handle: ClothHandle) -> Result<Cloth, ClothError> {
        let cloth = self.cloths.remove(handle.index, handle.generation).ok_or(ClothError::InvalidHandle)?;
        self.remove_proxies_of(handle);
        Ok(cloth)
    }

    /// The cloth behind `handle`. Errors: `InvalidHandle`.
    pub fn cloth(&self, handle: ClothHandle) -> Result<&Cloth, ClothError> {
        self.cloths.get(handle.index, handle.generation).ok_or(ClothError::InvalidHandle)
    }

    /// Mutable access to the cloth behind `handle`. Errors: `InvalidHandle`.
    pub fn cloth_mut(&mut self, handle: ClothHandle) -> Result<&mut Cloth, ClothError> {
        self.cloths.get_mut(handle.index, handle.generation).ok_or(ClothError::InvalidHandle)
    }

    /// The handle of the live cloth in slot `index`, if any. Lets a caller that stores a shortened
    /// generation (the C ABI packs ids into 64 bits) recover the full handle and compare.
    pub fn live_handle(&self, index: u32) -> Option<ClothHandle> {
        self.cloths.live_generation(index).map(|generation| ClothHandle { index, generation })
    }

    /// Every live cloth with its handle, in slot order.
    pub fn cloths(&self) -> impl Iterator<Item = (ClothHandle, &Cloth)> {
        let cloths = &self.cloths;
        cloths.iter().filter_map(move |(index, c)| cloths.live_generation(index).map(|generation| (ClothHandle { index, generation }, c)))
    }

    /// Number of live cloths.
    pub fn cloth_count(&self) -> usize {
        self.cloths.len()
    }

    /// Set the pose a collider reaches by the end of the next step. Every substep of that step
    /// sees it interpolated (position linearly, rotation by slerp) from its pose at the end of
    /// the last step, and friction acts relative to that motion. Calling it again before the
    /// step replaces the target. Errors: `InvalidHandle`; `InvalidParameter` (`position` not
    /// finite or beyond ±1e5 m, `rotation` not a unit quaternion); unchanged on error.
    pub fn set_collider_pose(&mut self, handle: ColliderHandle, pose: &Pose) -> Result<(), ClothError> {
        let _fp = DefaultFpEnv::enter(); // normalises the rotation (`crate::fp_env`)
        self.colliders.set_pose(handle, pose)
    }

    /// Move a collider to `pose` at once (a respawn, a cut): its current pose and its target both
    /// become `pose`, so the next step sees it resting there. Unlike [`World::set_collider_pose`]
    /// nothing is swept between the old and the new pose, friction carries nothing, and the
    /// explosion guard does not count the jump. A cloth it lands on is pushed out by the bounded
    /// push-out (docs/design.md, "Bounded push-out"); teleport the cloth with it
    /// ([`Cloth::teleport`]) to keep them together. Errors: `InvalidHandle`; `InvalidParameter`
    /// (`position` not finite or beyond ±1e5 m, `rotation` not a unit quaternion); unchanged on
    /// error.
    pub fn teleport_collider(&mut self, handle: ColliderHandle, pose: &Pose) -> Result<(), ClothError> {
        let _fp = DefaultFpEnv::enter(); // normalises the rotation (`crate::fp_env`)
        let c = self.colliders.get(handle)?;
        let left = [c.pose(), c.target_pose()];
        self.colliders.teleport(handle, pose)?;
        // Where it left (a cloth lying on it) and where it lands; shape and layers are unchanged.
        wake_sleepers_touched_by(&mut self.cloths, self.colliders.get(handle)?, &[left[0], left[1], *pose]);
        Ok(())
    }

    /// Teleport a character: every cloth of `cloths` as [`Cloth::teleport`] and every collider of
    /// `colliders` to its pose moved by the same rigid transform x ← R·x + t (its current pose and
    /// target both, as [`World::teleport_collider`]), all or nothing. Pass the relative transform
    /// of the character's root, B·A⁻¹. Errors: `InvalidHandle` (any handle), `InvalidParameter`
    /// (`translation`, `rotation`, or a collider or particle moved beyond ±1e5 m), `InvalidValue`
    /// (a handle listed twice, which would move it twice; named by its second list position);
    /// nothing moves on error.
    pub fn teleport(&mut self, cloths: &[ClothHandle], colliders: &[ColliderHandle], translation: [f32; 3], rotation: [f32; 4]) -> Result<(), ClothError> {
        let _fp = DefaultFpEnv::enter();
        check_listed_once("cloths", cloths)?;
        check_listed_once("colliders", colliders)?;
        let mut q = glam::Quat::IDENTITY;
        for &c in cloths {
            q = self.cloth(c)?.check_teleport(translation, rotation)?;
        }
        let q = if cloths.is_empty() { crate::cloth::Cloth::check_teleport_args(translation, rotation)? } else { q };
        let t = Vec3::from_array(translation);
        let mut poses = Vec::with_capacity(colliders.len());
        for &c in colliders {
            let pose = self.colliders.get(c)?.pose();
            let position = q * Vec3::from_array(pose.position) + t;
            let rotation = (q * glam::Quat::from_array(pose.rotation)).normalize();
            let moved = Pose { position: position.to_array(), rotation: rotation.to_array() };
            moved.validated()?;
            poses.push(moved);
        }
        for &c in cloths {
            let _change = self.cloth(c)?.begin_change();
            self.cloth_mut(c)?.apply_teleport(t, q);
        }
        for (&c, pose) in colliders.iter().zip(&poses) {
            self.teleport_collider(c, pose)?;
        }
        Ok(())
    }

    /// Remove a collider; cloths stop colliding with it from the next step.
    /// Errors: `InvalidHandle` for a stale or unknown handle.
    pub fn remove_collider(&mut self, handle: ColliderHandle) -> Result<Collider, ClothError> {
        let collider = self.colliders.remove(handle)?;
        // What lay on it falls.
        wake_sleepers_touched_by(&mut self.cloths, &collider, &[collider.pose(), collider.target_pose()]);
        Ok(collider)
    }

    /// The collider behind `handle`. Errors: `InvalidHandle`.
    pub fn collider(&self, handle: ColliderHandle) -> Result<&Collider, ClothError> {
        self.colliders.get(handle)
    }

    /// The handle of the live collider in slot `index`, if any (as [`World::live_handle`] for
    /// cloths).
    pub fn live_collider_handle(&self, index: u32) -> Option<ColliderHandle> {
        self.colliders.live_handle(index)
    }

    /// Number of live colliders.
    pub fn collider_count(&self) -> usize {
        self.colliders.len()
    }

    /// Advance every cloth by one fixed step `dt` \[s\], each with its own (or the world's) substeps,
    /// against the colliders moving to their targets. Cloths are independent (colliders are only
    /// read), so they run in parallel on the world's thread pool and the result does not depend
    /// on the thread count. Coloured cloths (the default, [`Cloth::set_constraint_colouring`])
    /// also split each colour over the pool, with the same bits. Before its step each cloth is
    /// carried rigidly by the share of its pins' translation its inertia scale leaves out
    /// ([`crate::cloth::inertia`]); after it each cloth is checked by its explosion guard
    /// ([`crate::cloth::guard`]).
    ///
    /// A cloth at `step_interval` N > 1 steps in about one world step of N, over up to N world
    /// steps of time (`cloth/lod.rs`, `world/lod.rs`): its inputs and the colliders are carried on
    /// over its long step, and its reads show the world's time in between. Sleeping cloths are
    /// skipped whatever their N.
    ///
    /// Errors: `InvalidTimeStep` unless 1e-5 s ≤ dt ≤ 1 s (nothing moves); `SimulationUnstable` when
    /// one or more cloths failed their guard: every cloth has stepped, the failed ones were put
    /// back as their [`crate::UnstableRecovery`] says and their status records it
    /// ([`Cloth::take_status`]); the error names the first of them.
    pub fn step(&mut self, dt: f32) -> Result<(), ClothError> {
        let result = self.fixed_step(dt);
        if !matches!(result, Err(ClothError::InvalidTimeStep { .. })) {
            // Every target was reached: the next frame of `advance` starts from there.
            self.cloths.values_mut().for_each(Cloth::drive_forget);
            self.colliders.drive_forget();
        }
        result
    }

    /// [`World::step`] inside or outside a frame of [`World::advance`].
    fn fixed_step(&mut self, dt: f32) -> Result<(), ClothError> {
        // In the default floating-point mode on this thread (`crate::fp_env`); the pool's threads
        // are in it from their start.
        let fp = DefaultFpEnv::enter();
        if !(MIN_TIME_STEP..=MAX_TIME_STEP).contains(&dt) {
            return Err(ClothError::InvalidTimeStep { dt });
        }
        // Shapes whose build ended since the last step: their colliders collide from this one.
        self.publish_mesh_shapes();
        // A collider that moves within reach of a sleeping cloth wakes it (`cloth::sleep`).
        let colliders = &self.colliders;
        for cloth in self.cloths.values_mut().filter(|c| c.is_sleeping()) {
            if colliders.iter().any(|(_, k)| cloth.reached_by(k)) {
                cloth.wake();
            }
        }
        // Level of detail: who steps in this world step, and over how many (`lod`).
        let spans = self.schedule_lod();
        self.extrapolate_colliders(spans);
        let pool_threads = self.pool.as_ref().map_or(1, |p| p.current_num_threads());
        let gravity = Vec3::from_array(self.desc.gravity);
        let inter_cloth = self.snapshot_inter_cloth(dt * spans.longest() as f32);
        let ctx = StepContext {
            gravity,
            substeps: self.desc.substeps,
            iterations: self.desc.iterations,
            colliders: &self.colliders,
            parallel: pool_threads > 1,
            inter_cloth: inter_cloth.then_some(&self.inter_cloth),
        };
        // The guard and the inertia scale wrap the solver's step (see `cloth::guard`,
        // `cloth::inertia`): bound, shift, step, check.
        // How far any collider moves in this step [m]: a cloth it pushes may follow that far.
        let collider_motion = self
            .colliders
            .iter()
            .map(|(_, c)| Vec3::from_array(c.pose().position).distance(Vec3::from_array(c.target_pose().position)))
            .fold(0.0f32, f32::max);
        let lod = &self.lod;
        let step_one = |cloth: &mut Cloth| {
            if cloth.is_sleeping() {
                cloth.skip_sleeping_step();
                return;
            }
            // A cloth at a `step_interval` above 1 steps over `span` world steps, or not at all.
            let span = cloth.lod.stepping;
            if span == 0 {
                cloth.idle_world_step();
                return;
            }
            let (dt, ctx) = (dt * span as f32, StepContext { colliders: lod.colliders(span, &self.colliders), ..ctx });
            cloth.record_previous();
            cloth.record_previous_velocities(span);
            cloth.extrapolate_inputs(span);
            cloth.guard_begin_step(dt, collider_motion * span as f32);
            cloth.apply_inertia_scale();
            step_cloth(cloth, dt, &ctx);
            cloth.stepped(span, dt);
            cloth.guard_end_step();
            cloth.restore_given_inputs(span);
            cloth.count_towards_sleep(dt);
        };
        let coloured = self.cloths.iter().any(|(_, c)| c.constraint_colouring());
        match &self.pool {
            Some(pool) if self.cloths.len() > 1 || coloured => {
                // This thread only waits for the pool, in its own mode: a caller that is itself a
                // worker of another rayon pool runs that pool's jobs while it waits, and they
                // must not see ours.
                drop(fp);
                // Every worker woken by this thread before the step, when the step has work for
                // more than one (two cloths that step, or one split over the pool): the fork
                // inside the step would wake only one at a time, from a worker that is already
                // busy, and on the 2-core VM a pool idle since the last frame then gave a second
                // thread nothing (docs/dev/performance-log.md, "2026-12-06 — A pool idle between
                // frames; the worn pair").
                let (mut stepping, mut split) = (0, false);
                for (_, c) in self.cloths.iter().filter(|(_, c)| !c.is_sleeping() && c.lod.stepping > 0) {
                    stepping += 1;
                    split |= c.splits_over_pool();
                }
                if stepping > 1 || split {
                    pool.spawn_broadcast(|_| {});
                }
                pool.install(|| self.cloths.par_values_mut().for_each(step_one))
            }
            _ => {
                self.cloths.values_mut().for_each(step_one);
                drop(fp);
            }
        }
        // Every collider has reached its target: it is the start of the next step's motion.
        self.colliders.finish_step();
        self.unstable_cloths()
    }

    /// Advance by one rendered frame of `frame_dt` \[s\] in fixed steps of `fixed_dt` \[s\]: the
    /// frame time is added to the world's accumulator, and while it holds a whole step (at most
    /// `max_steps` times) [`World::step`]`(fixed_dt)` runs and takes `fixed_dt` out. If whole steps
    /// remain after `max_steps` (a hitch), they are dropped ([`Advance::dropped`]) so the
    /// simulation does not spiral behind. The remainder gives [`Advance::alpha`] = accumulator /
    /// fixed_dt ∈ [0, 1) for the interpolated reads ([`Cloth::read_positions_interpolated`]).
    /// `fixed_dt` may change between calls (the accumulator is in seconds).
    ///
    /// Per-step drive: the targets set since the last `advance` (pin and grab targets, the
    /// animated pose or joint matrices, the reference frame, collider poses) are the values at
    /// this frame's time. The frame's k-th of n steps ends `left + (n − k)·fixed_dt` before it
    /// (`left`: what the accumulator keeps), so it is given the targets at the fraction
    /// u = 1 − (left + (n − k)·fixed_dt)/frame_dt ∈ (0, 1] of the way from the previous frame's
    /// values (positions lerped, rotations slerped, joints as the skin interpolates them): a
    /// target moved once per frame moves the cloth at an even speed at any frame rate. After the
    /// frame the targets are the given values again. Time dropped by a hitch is taken from the
    /// frame's start. A [`World::step`] between frames, a teleport or a snapshot restore starts
    /// the next frame from where the last step ended instead (docs/c-cpp.md, "The frame loop").
    ///
    /// Errors: `InvalidParameter` (`frame_dt` NaN, negative or above [`MAX_FRAME_TIME`];
    /// `max_steps` outside 1..=[`MAX_ADVANCE_STEPS`]), `InvalidTimeStep` (`fixed_dt` outside
    /// 1e-5..=1 s); nothing changes on error. A cloth failing its guard is not an error here: it
    /// is reported in [`Advance::unstable`] after all steps ran.
    pub fn advance(&mut self, frame_dt: f32, fixed_dt: f32, max_steps: u32) -> Result<Advance, ClothError> {
        let (steps, left, dropped) = self.plan_frame(frame_dt, fixed_dt, max_steps)?;
        let fixed = fixed_dt as f64;
        let mut report = Advance { steps, alpha: 0.0, dropped, unstable: None };
        let moving = self.drive_begin_frame();
        for k in 1..=report.steps {
            if moving {
                // How long before the frame's time step k ends [s], and where its targets are.
                let before = left + (report.steps - k) as f64 * fixed;
                let u = if frame_dt > 0.0 { (1.0 - before / frame_dt as f64).clamp(0.0, 1.0) as f32 } else { 1.0 };
                self.drive_to(u);
            }
            if let Err(e) = self.fixed_step(fixed_dt) {
                report.unstable.get_or_insert(e);
            }
        }
        self.drive_end_frame();
        self.accumulator = left;
        self.last_dropped = report.dropped;
        // Below 1 also when the f32 rounding of a remainder just under fixed_dt reaches it.
        report.alpha = ((self.accumulator / fixed) as f32).min(1.0 - f32::EPSILON / 2.0);
        Ok(report)
    }

    /// The steps [`World::advance`] would take for these arguments. Errors: those of
    /// [`World::advance`]'s checks; nothing changes.
    pub(crate) fn advance_steps(&self, frame_dt: f32, fixed_dt: f32, max_steps: u32) -> Result<u32, ClothError> {
        Ok(self.plan_frame(frame_dt, fixed_dt, max_steps)?.0)
    }

    /// [`World::advance`]'s checks, then its steps, what the accumulator keeps after them \[s\]
    /// and the time dropped \[s\].
    fn plan_frame(&self, frame_dt: f32, fixed_dt: f32, max_steps: u32) -> Result<(u32, f64, f32), ClothError> {
        check_range("frame_dt", frame_dt, 0.0, MAX_FRAME_TIME, "0 <= frame_dt <= 3600 s")?;
        if !(MIN_TIME_STEP..=MAX_TIME_STEP).contains(&fixed_dt) {
            return Err(ClothError::InvalidTimeStep { dt: fixed_dt });
        }
        check_count("max_steps", max_steps, 1, MAX_ADVANCE_STEPS, "1..=1000")?;
        let fixed = fixed_dt as f64;
        let (mut left, mut steps, mut dropped) = (self.accumulator + frame_dt as f64, 0, 0.0);
        while left >= fixed && steps < max_steps {
            left -= fixed;
            steps += 1;
        }
        if left >= fixed {
            let whole = (left / fixed).floor();
            left -= whole * fixed;
            let mut whole_steps = whole * fixed;
            if left >= fixed {
                left -= fixed;
                whole_steps += fixed;
            }
            left = left.max(0.0);
            dropped = whole_steps as f32;
        }
        Ok((steps, left, dropped))
    }

    /// Frame time the accumulator of [`World::advance`] holds, not yet stepped \[s\].
    pub fn accumulated_time(&self) -> f64 {
        self.accumulator
    }

    /// [`Advance::dropped`] of the last [`World::advance`] \[s\] (0 before the first).
    pub fn last_dropped_time(&self) -> f32 {
        self.last_dropped
    }

    /// Empty the accumulator of [`World::advance`] (a level load or a pause: the next frame
    /// starts from a whole step).
    pub fn reset_accumulator(&mut self) {
        self.accumulator = 0.0;
    }

    /// Start a frame of `advance` on every cloth and collider (`crate::cloth::drive`); whether any
    /// target moves in it.
    fn drive_begin_frame(&mut self) -> bool {
        let mut moving = self.colliders.drive_begin_frame();
        for cloth in self.cloths.values_mut() {
            moving |= cloth.drive_begin_frame();
        }
        moving
    }

    /// The targets of a frame's next step, at fraction `u` of the frame.
    fn drive_to(&mut self, u: f32) {
        self.colliders.drive_to(u);
        self.cloths.values_mut().for_each(|c| c.drive_to(u));
    }

    /// End a frame of `advance`: the given targets back in place.
    fn drive_end_frame(&mut self) {
        self.colliders.drive_end_frame();
        self.cloths.values_mut().for_each(Cloth::drive_end_frame);
    }

    /// `SimulationUnstable` naming the first cloth (in slot order) that failed its guard in the
    /// last step, or `Ok`.
    fn unstable_cloths(&self) -> Result<(), ClothError> {
        let mut failed = self.cloths.iter().filter_map(|(index, c)| c.guard.failed.map(|f| (index, f)));
        let Some((index, instability)) = failed.next() else {
            return Ok(());
        };
        let generation = self.cloths.live_generation(index).expect("a live cloth's slot");
        Err(ClothError::SimulationUnstable {
            cloth: ClothHandle { index, generation },
            instability,
            unstable_cloths: 1 + failed.count() as u32,
        })
    }

    /// Snapshot the particles of the cloths with inter-cloth collision for a step of `dt` \[s\],
    /// in slot order (one thread). Returns false, taking none, unless at least two take part.
    /// The snapshot's buffers grow when cloths are added, at their first step.
    fn snapshot_inter_cloth(&mut self, dt: f32) -> bool {
        let taking_part = self.cloths.iter().filter(|(_, c)| c.config.params.inter_cloth_collision).count();
        if taking_part < 2 {
            return false;
        }
        let snapshot = &mut self.inter_cloth;
        snapshot.clear();
        for (index, c) in self.cloths.iter() {
            if c.config.params.inter_cloth_collision {
                let p = &c.state;
                snapshot.push_cloth(index, &p.x, &p.v, c.config.self_collision_radius);
            }
        }
        snapshot.build(dt);
        true
    }
}

/// Wake the sleeping cloths of `cloths` that `collider` resting at any of `poses` reaches
/// ([`Cloth::touched_by`]).
pub(crate) fn wake_sleepers_touched_by(cloths: &mut SlotMap<Cloth>, collider: &Collider, poses: &[Pose]) {
    for cloth in cloths.values_mut().filter(|c| c.is_sleeping()) {
        if cloth.touched_by(collider, poses) {
            cloth.wake();
        }
    }
}

/// `InvalidValue` naming the list position of the first handle of `list` that is listed earlier too.
fn check_listed_once<H: Eq + std::hash::Hash>(name: &'static str, list: &[H]) -> Result<(), ClothError> {
    let mut seen = std::collections::HashSet::with_capacity(list.len());
    match list.iter().position(|h| !seen.insert(h)) {
        Some(k) => Err(ClothError::InvalidValue { name, position: k as u32, expected: "each object once (this one is listed earlier too)" }),
        None => Ok(()),
    }
}
