//! The world: gravity, solver defaults, a thread pool, colliders, and many cloths stepped together.

use crate::cloth::{Cloth, ClothDesc, MAX_SUBSTEPS};
use crate::collision::inter_cloth::InterClothSnapshot;
use crate::collision::{Collider, ColliderDesc, ColliderHandle, ColliderStore, Pose};
use crate::error::{ClothError, check_count, check_range};
pub use crate::handle::ClothHandle;
use crate::slot_map::SlotMap;
pub use crate::solver::PARALLEL_MIN_CONSTRAINTS;
use crate::fp_env::DefaultFpEnv;
use crate::solver::{StepContext, step_cloth};
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
    /// Errors: `InvalidParameter` for non-finite gravity, substeps or iterations outside
    /// 1..=1000, thread_count above 256.
    pub fn validate(&self) -> Result<(), ClothError> {
        for g in self.gravity {
            check_range("gravity", g, -1.0e6, 1.0e6, "finite m/s²")?;
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

/// A set of cloths sharing gravity, solver defaults, colliders and a thread pool. Dropping it
/// frees its cloths and colliders and joins the pool's threads: when the drop returns, they have
/// ended.
pub struct World {
    desc: WorldDesc,
    cloths: SlotMap<Cloth>,
    colliders: ColliderStore,
    /// Joined when the world is dropped (`crate::worker_pool`).
    pool: Option<WorkerPool>,
    /// Particles of the cloths with inter-cloth collision, taken before each step (reused).
    inter_cloth: InterClothSnapshot,
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
            WorkerPool::new(desc.thread_count as usize)
        };
        Ok(World {
            desc,
            cloths: SlotMap::default(),
            colliders: ColliderStore::default(),
            pool,
            inter_cloth: InterClothSnapshot::default(),
        })
    }

    /// The settings this world was created with.
    pub fn desc(&self) -> &WorldDesc {
        &self.desc
    }

    /// Change gravity \[m/s²\]. Errors: `InvalidParameter` for non-finite values.
    pub fn set_gravity(&mut self, gravity: [f32; 3]) -> Result<(), ClothError> {
        WorldDesc { gravity, ..self.desc }.validate()?;
        self.desc.gravity = gravity;
        Ok(())
    }

    /// Create a cloth from a render mesh. Validates everything first: on error nothing is added.
    pub fn add_cloth(&mut self, desc: &ClothDesc) -> Result<ClothHandle, ClothError> {
        let _fp = DefaultFpEnv::enter();
        let (index, generation) = self.cloths.insert(Cloth::new(desc)?);
        if let Some(cloth) = self.cloths.get_mut(index, generation) {
            cloth.world_key = index;
        }
        Ok(ClothHandle { index, generation })
    }

    /// Read and clear a cloth's guard status (see [`Cloth::take_status`]). Errors: `InvalidHandle`.
    pub fn take_cloth_status(&mut self, handle: ClothHandle) -> Result<crate::ClothStatus, ClothError> {
        Ok(self.cloth_mut(handle)?.take_status())
    }

    /// Remove a cloth. Errors: `InvalidHandle` for a stale or unknown handle.
    pub fn remove_cloth(&mut self, handle: ClothHandle) -> Result<Cloth, ClothError> {
        self.cloths.remove(handle.index, handle.generation).ok_or(ClothError::InvalidHandle)
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

    /// Number of live cloths.
    pub fn cloth_count(&self) -> usize {
        self.cloths.len()
    }

    /// Add a collider, shared by every cloth of the world whose `collision_mask` intersects its
    /// `layers`. It rests at `desc.pose` until moved. Errors: `InvalidParameter` naming the field
    /// (dimensions, pose, friction); nothing is added on error.
    pub fn add_collider(&mut self, desc: &ColliderDesc) -> Result<ColliderHandle, ClothError> {
        let _fp = DefaultFpEnv::enter(); // normalises the rotation (`crate::fp_env`)
        self.colliders.add(desc)
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
        self.colliders.teleport(handle, pose)
    }

    /// Teleport a character: every cloth of `cloths` as [`Cloth::teleport`] and every collider of
    /// `colliders` to its pose moved by the same rigid transform x ← R·x + t (its current pose and
    /// target both, as [`World::teleport_collider`]), all or nothing. Pass the relative transform
    /// of the character's root, B·A⁻¹. Errors: `InvalidHandle` (any handle), `InvalidParameter`
    /// (`translation`, `rotation`, or a collider or particle moved beyond ±1e5 m); nothing moves
    /// on error.
    pub fn teleport(&mut self, cloths: &[ClothHandle], colliders: &[ColliderHandle], translation: [f32; 3], rotation: [f32; 4]) -> Result<(), ClothError> {
        let _fp = DefaultFpEnv::enter();
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
            self.colliders.teleport(c, pose)?;
        }
        Ok(())
    }

    /// Remove a collider; cloths stop colliding with it from the next step.
    /// Errors: `InvalidHandle` for a stale or unknown handle.
    pub fn remove_collider(&mut self, handle: ColliderHandle) -> Result<Collider, ClothError> {
        self.colliders.remove(handle)
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
    /// Errors: `InvalidTimeStep` unless 1e-5 s ≤ dt ≤ 1 s (nothing moves); `SimulationUnstable` when
    /// one or more cloths failed their guard: every cloth has stepped, the failed ones were put
    /// back as their [`crate::UnstableRecovery`] says and their status records it
    /// ([`Cloth::take_status`]); the error names the first of them.
    pub fn step(&mut self, dt: f32) -> Result<(), ClothError> {
        // In the default floating-point mode on this thread (`crate::fp_env`); the pool's threads
        // are in it from their start.
        let fp = DefaultFpEnv::enter();
        if !(MIN_TIME_STEP..=MAX_TIME_STEP).contains(&dt) {
            return Err(ClothError::InvalidTimeStep { dt });
        }
        let pool_threads = self.pool.as_ref().map_or(1, |p| p.current_num_threads());
        let gravity = Vec3::from_array(self.desc.gravity);
        let inter_cloth = self.snapshot_inter_cloth(dt);
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
        let step_one = |cloth: &mut Cloth| {
            cloth.guard_begin_step(dt, collider_motion);
            cloth.apply_inertia_scale();
            step_cloth(cloth, dt, &ctx);
            cloth.guard_end_step();
        };
        let coloured = self.cloths.iter().any(|(_, c)| c.constraint_colouring());
        match &self.pool {
            Some(pool) if self.cloths.len() > 1 || coloured => {
                // This thread only waits for the pool, in its own mode: a caller that is itself a
                // worker of another rayon pool runs that pool's jobs while it waits, and they
                // must not see ours.
                drop(fp);
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
                snapshot.push_cloth(index, &p.x, &p.v, c.config.params.effective_self_collision_radius());
            }
        }
        snapshot.build(dt);
        true
    }
}
