//! The world: gravity, solver defaults, a thread pool, and many cloths stepped together.

use crate::cloth::{Cloth, ClothDesc, MAX_SUBSTEPS};
use crate::error::{ClothError, check_range};
use crate::solver::{StepContext, step_cloth};
use glam::Vec3;
use rayon::prelude::*;

/// World settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldDesc {
    /// Gravity [m/s²]. Default (0, −9.81, 0): Y up.
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
        check_range("substeps", self.substeps as f32, 1.0, MAX_SUBSTEPS as f32, "1..=1000")?;
        check_range("iterations", self.iterations as f32, 1.0, MAX_SUBSTEPS as f32, "1..=1000")?;
        check_range("thread_count", self.thread_count as f32, 0.0, 256.0, "0..=256 (0 = all cores)")?;
        Ok(())
    }
}

/// Identifies a cloth in a [`World`]: slot index + generation, so a handle to a removed cloth is
/// detected instead of reaching whatever reuses its slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClothHandle {
    /// Slot index.
    pub index: u32,
    /// Generation of the slot when the cloth was created (starts at 1; 0 is never valid).
    pub generation: u32,
}

#[derive(Debug)]
struct Slot {
    generation: u32,
    cloth: Option<Cloth>,
}

/// Largest step accepted by [`World::step`] [s].
pub const MAX_TIME_STEP: f32 = 1.0;

/// A set of cloths sharing gravity, solver defaults and a thread pool.
pub struct World {
    desc: WorldDesc,
    slots: Vec<Slot>,
    free_slots: Vec<u32>,
    pool: Option<rayon::ThreadPool>,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World").field("desc", &self.desc).field("cloths", &self.cloth_count()).finish()
    }
}

impl World {
    /// Create a world. Errors: `InvalidParameter` (see [`WorldDesc::validate`]).
    pub fn new(desc: WorldDesc) -> Result<World, ClothError> {
        desc.validate()?;
        let pool = if desc.thread_count == 1 {
            None
        } else {
            rayon::ThreadPoolBuilder::new()
                .num_threads(desc.thread_count as usize)
                .thread_name(|i| format!("xpbd-cloth-{i}"))
                .build()
                .ok()
        };
        Ok(World { desc, slots: Vec::new(), free_slots: Vec::new(), pool })
    }

    /// The settings this world was created with.
    pub fn desc(&self) -> &WorldDesc {
        &self.desc
    }

    /// Change gravity [m/s²]. Errors: `InvalidParameter` for non-finite values.
    pub fn set_gravity(&mut self, gravity: [f32; 3]) -> Result<(), ClothError> {
        WorldDesc { gravity, ..self.desc }.validate()?;
        self.desc.gravity = gravity;
        Ok(())
    }

    /// Create a cloth from a render mesh. Validates everything first: on error nothing is added.
    pub fn add_cloth(&mut self, desc: &ClothDesc) -> Result<ClothHandle, ClothError> {
        let cloth = Cloth::new(desc)?;
        let index = match self.free_slots.pop() {
            Some(i) => i,
            None => {
                self.slots.push(Slot { generation: 0, cloth: None });
                (self.slots.len() - 1) as u32
            }
        };
        let slot = &mut self.slots[index as usize];
        slot.generation = slot.generation.wrapping_add(1).max(1);
        slot.cloth = Some(cloth);
        Ok(ClothHandle { index, generation: slot.generation })
    }

    /// Remove a cloth. Errors: `InvalidHandle` for a stale or unknown handle.
    pub fn remove_cloth(&mut self, handle: ClothHandle) -> Result<Cloth, ClothError> {
        self.cloth(handle)?;
        self.free_slots.push(handle.index);
        Ok(self.slots[handle.index as usize].cloth.take().expect("checked above"))
    }

    /// The cloth behind `handle`. Errors: `InvalidHandle`.
    pub fn cloth(&self, handle: ClothHandle) -> Result<&Cloth, ClothError> {
        match self.slots.get(handle.index as usize) {
            Some(Slot { generation, cloth: Some(c) }) if *generation == handle.generation => Ok(c),
            _ => Err(ClothError::InvalidHandle),
        }
    }

    /// Mutable access to the cloth behind `handle`. Errors: `InvalidHandle`.
    pub fn cloth_mut(&mut self, handle: ClothHandle) -> Result<&mut Cloth, ClothError> {
        match self.slots.get_mut(handle.index as usize) {
            Some(Slot { generation, cloth: Some(c) }) if *generation == handle.generation => Ok(c),
            _ => Err(ClothError::InvalidHandle),
        }
    }

    /// The handle of the live cloth in slot `index`, if any. Lets a caller that stores a shortened
    /// generation (the C ABI packs ids into 64 bits) recover the full handle and compare.
    pub fn live_handle(&self, index: u32) -> Option<ClothHandle> {
        match self.slots.get(index as usize) {
            Some(Slot { generation, cloth: Some(_) }) => Some(ClothHandle { index, generation: *generation }),
            _ => None,
        }
    }

    /// Number of live cloths.
    pub fn cloth_count(&self) -> usize {
        self.slots.iter().filter(|s| s.cloth.is_some()).count()
    }

    /// Advance every cloth by one fixed step `dt` [s], each with its own (or the world's) substeps.
    /// Cloths are independent, so they run in parallel on the world's thread pool and the result
    /// does not depend on the thread count. Errors: `InvalidTimeStep` unless 0 < dt ≤ 1 s.
    pub fn step(&mut self, dt: f32) -> Result<(), ClothError> {
        if !(dt > 0.0 && dt <= MAX_TIME_STEP) {
            return Err(ClothError::InvalidTimeStep { dt });
        }
        let ctx = StepContext {
            gravity: Vec3::from_array(self.desc.gravity),
            substeps: self.desc.substeps,
            iterations: self.desc.iterations,
        };
        let live = self.slots.iter().filter(|s| s.cloth.is_some()).count();
        let step_one = |slot: &mut Slot| {
            if let Some(cloth) = slot.cloth.as_mut() {
                step_cloth(cloth, dt, &ctx);
            }
        };
        match &self.pool {
            Some(pool) if live > 1 => pool.install(|| self.slots.par_iter_mut().for_each(step_one)),
            _ => self.slots.iter_mut().for_each(step_one),
        }
        Ok(())
    }
}
