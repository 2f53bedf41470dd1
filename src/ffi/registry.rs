//! The process-wide table of worlds behind the ids.
//!
//! Locking: one `Mutex` around the table, held only to find, insert or remove a slot (never while
//! a world runs), and per world a [`SharedWorld`]: its lock is held exclusively for the whole of a
//! call on that world or its cloths, except for steps, which run with the world moved out of the
//! lock, and the render reads, which share it. So different worlds step in parallel, calls on one
//! world are serialised (a call waits while that world steps), the render reads (`read_frame`)
//! answer from the copy taken before the step instead of waiting, and destroy works from any
//! thread.
//!
//! Destroy takes the world out of the table (new calls see `XPBD_RESULT_INVALID_ID`), then closes
//! it, which waits for a call or step in flight to finish, and drops the world there: when
//! `xpbd_world_destroy` returns, the world's memory and threads are released. A call that found the
//! world just before it was destroyed and locks it afterwards finds it closed and reports
//! `XPBD_RESULT_INVALID_ID` too.
//!
//! Unloading: when the last world is destroyed the table's vectors are freed (only a generation
//! is kept, in place), so a library unloaded with `dlclose` after its worlds are destroyed leaves
//! no heap block behind that nothing points to any more.

use super::error::{FfiError, XpbdResult};
use super::ids::{MAX_WORLDS, XpbdClothId, XpbdColliderId, XpbdRenderProxyId, XpbdWorldId, invalid, short_generation};
use crate::cloth::{Cloth, ClothReads};
use crate::render_proxy::{RenderProxy, RenderProxyHandle};
use crate::collision::ColliderHandle;
use crate::error::ClothError;
use crate::shared_world::SharedWorld;
use crate::world::{ClothHandle, World};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// A world and its lock; closed once destroyed.
type WorldCell = Arc<SharedWorld>;

struct Slot {
    /// Generation of the slot's current (or last) world; 0 before first use.
    generation: u16,
    world: Option<WorldCell>,
}

struct Registry {
    slots: Vec<Slot>,
    free: Vec<u16>,
    /// Generation a new slot starts from: the highest one the slots had when the table was last
    /// emptied and freed, so that an id handed out before stays rejected (it would only match
    /// after 65 535 more generations, as for a slot that is reused).
    first_generation: u16,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry::new());

/// The table's lock. A panic cannot happen while it is held except on allocation failure inside
/// `Vec::push`, which leaves the table consistent, so a poisoned table lock is simply taken over.
fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Registry {
    /// An empty table, allocating nothing.
    const fn new() -> Registry {
        Registry { slots: Vec::new(), free: Vec::new(), first_generation: 0 }
    }

    /// Put `cell` in a free slot and return its id. Errors: `CapacityExceeded`.
    fn insert(&mut self, cell: WorldCell) -> Result<XpbdWorldId, FfiError> {
        let index = match self.free.pop() {
            Some(i) => i,
            None if self.slots.len() < MAX_WORLDS => {
                self.slots.push(Slot { generation: self.first_generation, world: None });
                (self.slots.len() - 1) as u16
            }
            None => {
                return Err(FfiError::new(
                    XpbdResult::CapacityExceeded,
                    format!("{MAX_WORLDS} worlds are alive; destroy one first"),
                ));
            }
        };
        let slot = &mut self.slots[index as usize];
        slot.generation += 1; // below u16::MAX: slots at it are retired (`take`)
        slot.world = Some(cell);
        Ok(XpbdWorldId::pack(index, slot.generation))
    }

    /// The live world cell behind `id`. Errors: `InvalidId`.
    fn find(&self, id: XpbdWorldId) -> Result<WorldCell, FfiError> {
        let (index, generation) = id.unpack()?;
        match self.slots.get(index as usize) {
            Some(Slot { generation: g, world: Some(cell) }) if *g == generation => Ok(Arc::clone(cell)),
            _ => Err(invalid("world", id.id)),
        }
    }

    /// Take the world cell behind `id` out of the table; its id is invalid from now on. When no
    /// world is left the vectors are freed (see the module comment). Errors: `InvalidId`.
    fn take(&mut self, id: XpbdWorldId) -> Result<WorldCell, FfiError> {
        let (index, generation) = id.unpack()?;
        let cell = match self.slots.get_mut(index as usize) {
            Some(slot) if slot.generation == generation => slot.world.take(),
            _ => None,
        };
        let cell = cell.ok_or_else(|| invalid("world", id.id))?;
        // A slot that had the last generation is retired, never reused: a generation never wraps,
        // so no kept id names a later world.
        if generation < u16::MAX {
            self.free.push(index);
        }
        if self.slots.iter().all(|s| s.world.is_none()) {
            let highest = self.slots.iter().map(|s| s.generation).max().unwrap_or(0);
            // Freed only while new slots can start above every generation handed out.
            if highest < u16::MAX {
                self.first_generation = highest;
                self.slots = Vec::new();
                self.free = Vec::new();
            }
        }
        Ok(cell)
    }
}

/// Add `world` to the table and return its id. Errors: `CapacityExceeded` (the world is dropped,
/// after the table's lock is released: dropping joins its threads).
pub(crate) fn insert_world(world: World) -> Result<XpbdWorldId, FfiError> {
    let cell = Arc::new(SharedWorld::new(world));
    let id = registry().insert(Arc::clone(&cell));
    drop(cell); // on error the last reference: the world is dropped here, outside the lock
    id
}

/// The live world cell behind `id`, found under the table lock and returned without holding it.
fn find(id: XpbdWorldId) -> Result<WorldCell, FfiError> {
    registry().find(id)
}

/// Remove the world behind `id` and drop it once no call is using it (see the module comment).
/// Works on a poisoned world. Errors: `InvalidId`.
pub(crate) fn remove_world(id: XpbdWorldId) -> Result<(), FfiError> {
    let cell = registry().take(id)?;
    // Waits for a call or step in flight on this world. A poisoned world is dropped all the same:
    // dropping releases memory and threads and needs no consistent simulation state.
    drop(cell.close());
    Ok(())
}

/// Live objects in the whole process, for leak checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LiveCounts {
    pub worlds: u32,
    /// Cloths in the live worlds.
    pub cloths: u32,
    /// Colliders in the live worlds.
    pub colliders: u32,
    /// Mesh shapes in the live worlds.
    pub mesh_shapes: u32,
    /// Render proxies in the live worlds.
    pub render_proxies: u32,
}

/// The live objects in the whole process. Worlds are counted under the table lock; their cloths
/// and colliders after it is released, each world under its own lock (so this waits while a
/// world steps). A poisoned world's objects are still counted: they hold memory until destroyed.
pub(crate) fn live_counts() -> LiveCounts {
    let cells: Vec<WorldCell> = registry().slots.iter().filter_map(|s| s.world.clone()).collect();
    let mut counts = LiveCounts { worlds: cells.len() as u32, ..LiveCounts::default() };
    for cell in cells {
        let inner = cell.inspect(|world| (world.cloth_count(), world.collider_count(), world.mesh_shape_count(), world.render_proxy_count()));
        if let Some((cloths, colliders, mesh_shapes, render_proxies)) = inner {
            // At most 65 536 worlds × 32 768 = 2^31 of each kind: the sums fit a u32.
            counts.cloths += cloths as u32;
            counts.colliders += colliders as u32;
            counts.mesh_shapes += mesh_shapes as u32;
            counts.render_proxies += render_proxies as u32;
        }
    }
    counts
}

/// A `SharedWorld` error as C sees it: a closed world is an invalid id.
pub(crate) fn world_error(id: XpbdWorldId, error: ClothError) -> FfiError {
    match error {
        ClothError::InvalidHandle => invalid("world", id.id),
        other => other.into(),
    }
}

/// Run `f` on the world behind `id`, holding its lock (waiting while it steps). Errors:
/// `InvalidId`, `WorldPoisoned`, or what `f` returns.
pub(crate) fn with_world<T>(id: XpbdWorldId, f: impl FnOnce(&mut World) -> Result<T, FfiError>) -> Result<T, FfiError> {
    find(id)?.with(f).map_err(|e| world_error(id, e))?
}

/// `XPBD_RESULT_INVALID_ID` for an object id (`kind` "cloth", "collider", "mesh shape") whose world
/// is gone: names the object the caller passed, not its world.
pub(crate) fn world_gone(kind: &str, raw: u64) -> FfiError {
    let world = raw & 0xFFFF_FFFF;
    FfiError::new(
        XpbdResult::InvalidId,
        format!("{kind} id {raw:#018x} is stale: its world (id {world:#x}) was destroyed (or the id is forged)"),
    )
}

/// [`with_world`] for a call on an object (`kind`, id bits `raw`) of world `id`: a destroyed
/// world is reported as the object's id being stale.
pub(crate) fn with_world_of<T>(
    id: XpbdWorldId,
    kind: &str,
    raw: u64,
    f: impl FnOnce(&mut World) -> Result<T, FfiError>,
) -> Result<T, FfiError> {
    let cell = find(id).map_err(|_| world_gone(kind, raw))?;
    cell.with(f).map_err(|e| match e {
        ClothError::InvalidHandle => world_gone(kind, raw),
        other => other.into(),
    })?
}

/// Run `f` on the shared world behind `id` (the steps, which release its lock while they run).
/// Errors: `InvalidId` (outer); `f`'s own result is passed on for the caller to map
/// (`ClothError::InvalidHandle` there: the world was destroyed meanwhile).
pub(crate) fn with_shared<T>(id: XpbdWorldId, f: impl FnOnce(&SharedWorld) -> T) -> Result<T, FfiError> {
    Ok(f(&*find(id)?))
}

/// Run `f` on the render reads of the cloth behind `id` without waiting for a step: the live
/// cloth when its world is idle, the copy taken before the step while it steps (see
/// [`SharedWorld::read`]). Errors: `InvalidId`, `WorldPoisoned`, or `f`'s error.
pub(crate) fn read_frame<T, E>(id: XpbdClothId, f: impl FnOnce(ClothReads<'_>) -> Result<T, E>) -> Result<T, FfiError>
where
    FfiError: From<E>,
{
    let (world_id, index, generation) = id.unpack()?;
    let read = find(world_id).map_err(|_| world_gone("cloth", id.id))?.read_where(index as u32, |g| short_generation(g) == generation, f);
    match read {
        Ok(result) => Ok(result?),
        Err(ClothError::InvalidHandle) => Err(invalid("cloth", id.id)),
        Err(other) => Err(other.into()),
    }
}

/// The core handle of the live cloth that `index`/`generation` name in `world`.
pub(crate) fn cloth_handle(
    world: &World,
    id: XpbdClothId,
    index: u16,
    generation: u16,
) -> Result<ClothHandle, FfiError> {
    match world.live_handle(index as u32) {
        Some(h) if short_generation(h.generation) == generation => Ok(h),
        _ => Err(invalid("cloth", id.id)),
    }
}

/// The core handle of the live render proxy that `index`/`generation` name in `world`.
pub(crate) fn proxy_handle(world: &World, id: XpbdRenderProxyId, index: u16, generation: u16) -> Result<RenderProxyHandle, FfiError> {
    match world.live_render_proxy_handle(index as u32) {
        Some(h) if short_generation(h.generation) == generation => Ok(h),
        _ => Err(invalid("render proxy", id.id)),
    }
}

/// Run `f` on the world of the render proxy behind `id` with the proxy's core handle, holding the
/// world's lock. Errors: `InvalidId`, `WorldPoisoned`, or what `f` returns.
pub(crate) fn with_proxy<T>(id: XpbdRenderProxyId, f: impl FnOnce(&mut World, RenderProxyHandle) -> Result<T, FfiError>) -> Result<T, FfiError> {
    let (world_id, index, generation) = id.unpack()?;
    with_world_of(world_id, "render proxy", id.id, |world| {
        let handle = proxy_handle(world, id, index, generation)?;
        f(world, handle)
    })
}

/// Run `f` on the render proxy behind `id` and its cloth's render reads without waiting for a
/// step (as [`read_frame`]), with the world's pool when idle. Errors: `InvalidId`,
/// `WorldPoisoned`, or `f`'s error.
pub(crate) fn read_proxy_frame<T, E>(
    id: XpbdRenderProxyId,
    f: impl FnOnce(&RenderProxy, ClothReads<'_>, Option<&rayon::ThreadPool>) -> Result<T, E>,
) -> Result<T, FfiError>
where
    FfiError: From<E>,
{
    let (world_id, index, generation) = id.unpack()?;
    let cell = find(world_id).map_err(|_| world_gone("render proxy", id.id))?;
    match cell.read_proxy_where(index as u32, |g| short_generation(g) == generation, f) {
        Ok(result) => Ok(result?),
        Err(ClothError::InvalidHandle) => Err(invalid("render proxy", id.id)),
        Err(other) => Err(other.into()),
    }
}

/// The core handle of the live collider that `index`/`generation` name in `world`.
pub(crate) fn collider_handle(world: &World, id: XpbdColliderId, index: u16, generation: u16) -> Result<ColliderHandle, FfiError> {
    match world.live_collider_handle(index as u32) {
        Some(h) if short_generation(h.generation) == generation => Ok(h),
        _ => Err(invalid("collider", id.id)),
    }
}

/// Run `f` on the world of the collider behind `id` with the collider's core handle, holding the
/// world's lock. Errors: `InvalidId`, `WorldPoisoned`, or what `f` returns.
pub(crate) fn with_collider<T>(
    id: XpbdColliderId,
    f: impl FnOnce(&mut World, ColliderHandle) -> Result<T, FfiError>,
) -> Result<T, FfiError> {
    let (world_id, index, generation) = id.unpack()?;
    with_world_of(world_id, "collider", id.id, |world| {
        let handle = collider_handle(world, id, index, generation)?;
        f(world, handle)
    })
}

/// Run `f` on the cloth behind `id`, holding its world's lock. Errors: `InvalidId`,
/// `WorldPoisoned`, or `f`'s error mapped to its code.
pub(crate) fn with_cloth<T, E>(id: XpbdClothId, f: impl FnOnce(&mut Cloth) -> Result<T, E>) -> Result<T, FfiError>
where
    FfiError: From<E>,
{
    let (world_id, index, generation) = id.unpack()?;
    with_world_of(world_id, "cloth", id.id, |world| {
        let handle = cloth_handle(world, id, index, generation)?;
        Ok(f(world.cloth_mut(handle)?)?)
    })
}

/// Read a value from the cloth behind `id` (infallible reads: counts, settings, statistics).
pub(crate) fn read_cloth<T>(id: XpbdClothId, f: impl FnOnce(&Cloth) -> T) -> Result<T, FfiError> {
    with_cloth(id, |c| Ok::<T, FfiError>(f(c)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::boundary::ffi_boundary;
    use crate::world::WorldDesc;

    fn single_threaded_world() -> XpbdWorldId {
        insert_world(World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap()).unwrap()
    }

    #[test]
    fn panic_inside_a_world_poisons_only_that_world() {
        let (a, b) = (single_threaded_world(), single_threaded_world());
        let code = ffi_boundary("xpbd_test", || with_world(a, |_| panic!("solver bug")));
        assert_eq!(code, XpbdResult::Panic);
        let step = |id| ffi_boundary("xpbd_test", || with_world(id, |w| Ok(w.step(1.0 / 60.0)?)));
        assert_eq!(step(a), XpbdResult::WorldPoisoned);
        assert_eq!(step(b), XpbdResult::Ok);
        // Destroy still works on the poisoned world, and its id is then invalid.
        assert_eq!(remove_world(a), Ok(()));
        assert_eq!(step(a), XpbdResult::InvalidId);
        assert_eq!(remove_world(b), Ok(()));
    }

    #[test]
    fn an_emptied_table_is_freed_and_its_ids_stay_rejected() {
        let cell = || Arc::new(SharedWorld::new(World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap()));
        let mut reg = Registry::new();
        let (a, b) = (reg.insert(cell()).unwrap(), reg.insert(cell()).unwrap());
        assert_eq!((a.unpack(), b.unpack()), (Ok((0, 1)), Ok((1, 1))));
        reg.take(b).unwrap();
        assert_eq!(reg.take(b).unwrap_err().code, XpbdResult::InvalidId);
        let c = reg.insert(cell()).unwrap(); // slot 1 again, next generation
        assert_eq!(c.unpack(), Ok((1, 2)));
        reg.take(a).unwrap();
        reg.take(c).unwrap();
        // Empty: nothing allocated any more.
        assert_eq!((reg.slots.capacity(), reg.free.capacity()), (0, 0));
        // New slots start after every generation handed out: none of the old ids is valid.
        let d = reg.insert(cell()).unwrap();
        assert_eq!(d.unpack(), Ok((0, 3)));
        for old in [a, b, c] {
            assert_eq!(reg.find(old).unwrap_err().code, XpbdResult::InvalidId);
        }
        assert!(reg.find(d).is_ok());
    }

    /// A world slot that had generation 65 535 is retired when freed: its ids stay rejected, the
    /// next world takes a new slot, and the table is kept (new slots could not start above it).
    #[test]
    fn a_slot_at_the_last_generation_is_retired() {
        let cell = || Arc::new(SharedWorld::new(World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap()));
        let mut reg = Registry { first_generation: u16::MAX - 2, ..Registry::new() };
        let a = reg.insert(cell()).unwrap();
        reg.take(a).unwrap();
        let b = reg.insert(cell()).unwrap();
        assert_eq!((a.unpack(), b.unpack()), (Ok((0, u16::MAX - 1)), Ok((0, u16::MAX))));
        reg.take(b).unwrap();
        assert_eq!(reg.slots.len(), 1, "a retired slot keeps the table");
        // A new slot starts above the generation handed out when the table was last emptied (a's).
        let c = reg.insert(cell()).unwrap();
        assert_eq!(c.unpack(), Ok((1, u16::MAX)));
        for old in [a, b] {
            assert_eq!(reg.find(old).unwrap_err().code, XpbdResult::InvalidId);
        }
        reg.take(c).unwrap();
    }

    #[test]
    fn destroyed_slot_is_reused_with_a_new_generation() {
        let a = single_threaded_world();
        remove_world(a).unwrap();
        assert_eq!(remove_world(a).unwrap_err().code, XpbdResult::InvalidId);
        let b = single_threaded_world();
        // Other tests run in parallel and may take the freed slot; if b reused it, the ids differ.
        if b.unpack().unwrap().0 == a.unpack().unwrap().0 {
            assert_ne!(a, b);
        }
        assert_eq!(with_world(a, |_| Ok(())).unwrap_err().code, XpbdResult::InvalidId);
        assert_eq!(with_world(b, |_| Ok(())), Ok(()));
        remove_world(b).unwrap();
    }
}
