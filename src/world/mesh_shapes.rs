//! A world's mesh shapes: built at once or on a thread of their own, shared by the mesh colliders
//! that instance them.

use super::{World, wake_sleepers_touched_by};
use crate::collision::{ColliderDesc, ColliderHandle, ColliderKind, MeshShape, MeshShapeBuild, MeshShapeDesc, MeshShapeHandle, Shape};
use crate::error::ClothError;
use crate::fp_env::DefaultFpEnv;
use crate::worker_pool::WorkerPool;
use std::sync::Arc;

/// A mesh shape slot of the world.
pub(crate) enum MeshShapeEntry {
    Ready(Arc<MeshShape>),
    Building(MeshShapeBuild),
    /// The build's error, kept until the shape is removed so that its status can say it.
    Failed(ClothError),
}

/// Where a mesh shape's build stands ([`World::mesh_shape_status`]).
#[derive(Clone, Debug, PartialEq)]
pub enum MeshShapeStatus {
    /// Still building.
    Building {
        /// Fraction done in 0..=1, for a loading bar.
        progress: f32,
    },
    /// Built: its colliders collide in every step that starts from now on.
    Ready,
    /// The build found the mesh unusable (the error [`MeshShape::build`] would have returned);
    /// its colliders never collide. Remove them and the shape.
    Failed(ClothError),
}

impl World {
    /// Add a collider, shared by every cloth of the world whose `collision_mask` intersects its
    /// `layers`. It rests at `desc.pose` until moved. A mesh collider on a shape still building
    /// touches nothing until the first step after the build ends. Errors: `InvalidParameter`
    /// naming the field (dimensions, pose, friction; `mesh_shape` for a mesh collider whose shape
    /// is not a shape of this world, or one whose build failed); nothing is added on error.
    pub fn add_collider(&mut self, desc: &ColliderDesc) -> Result<ColliderHandle, ClothError> {
        let _fp = DefaultFpEnv::enter(); // normalises the rotation (`crate::fp_env`)
        let shape = match desc.kind {
            ColliderKind::Mesh => match self.mesh_shapes.get(desc.mesh_shape.index, desc.mesh_shape.generation) {
                Some(MeshShapeEntry::Ready(shape)) => Some(Shape::Mesh(shape.clone())),
                Some(MeshShapeEntry::Building(_)) => Some(Shape::PendingMesh),
                Some(MeshShapeEntry::Failed(_)) | None => None,
            },
            _ => None,
        };
        let handle = self.colliders.add_with(desc, shape)?;
        let added = self.colliders.get(handle)?;
        wake_sleepers_touched_by(&mut self.cloths, added, &[added.pose()]);
        Ok(handle)
    }

    /// Build a mesh shape from `desc` ([`MeshShape::build`]) on the world's threads and add it;
    /// the call returns when the build has ended. To return at once, use
    /// [`World::create_mesh_shape_async`]. Errors: those of [`MeshShape::build`].
    pub fn create_mesh_shape(&mut self, desc: &MeshShapeDesc) -> Result<MeshShapeHandle, ClothError> {
        let shape = Self::build_mesh_shape_on(self.pool.clone(), desc)?;
        Ok(self.add_mesh_shape(shape))
    }

    /// Start building a mesh shape from `desc` on a thread of its own (split over as many threads
    /// as the world has) and return its handle at once: the call copies the arrays and checks them
    /// once (0.7–1 ms for 200 000 triangles; up to 2 ms while the copy touches fresh pages). Poll [`World::mesh_shape_status`]; colliders may
    /// instance the shape at once and collide from the first step that starts after the build has
    /// ended. Removing the shape or dropping the world stops the build at its next check (between
    /// its stages and propagation rounds: up to a few hundred milliseconds for a big mesh) and
    /// waits for it.
    /// Errors now: those of [`MeshShape::build`] that reading the arrays finds (`NoTriangles`,
    /// `TooManyTriangles`, `MeshTooLarge`, `NonFiniteVertex`, `IndexOutOfRange`, `cell_size`);
    /// the others ([`MeshShape::build`]) come as [`MeshShapeStatus::Failed`].
    pub fn create_mesh_shape_async(&mut self, desc: &MeshShapeDesc) -> Result<MeshShapeHandle, ClothError> {
        let build = MeshShapeBuild::start(desc, self.mesh_shape_threads())?;
        Ok(self.add_mesh_shape_build(build))
    }

    /// Threads an asynchronous build of this world splits over (the world's thread count).
    pub(crate) fn mesh_shape_threads(&self) -> usize {
        self.pool.as_ref().map_or(1, |p| p.current_num_threads())
    }

    /// Add a started build ([`MeshShapeBuild::start`]) as a shape. Never fails.
    pub(crate) fn add_mesh_shape_build(&mut self, build: MeshShapeBuild) -> MeshShapeHandle {
        let (index, generation) = self.mesh_shapes.insert(MeshShapeEntry::Building(build));
        MeshShapeHandle { index, generation }
    }

    /// Where the build of shape `handle` stands; a build that has ended is taken in here (or at the
    /// next step), so its colliders collide from the next step. Errors: `InvalidHandle`.
    pub fn mesh_shape_status(&mut self, handle: MeshShapeHandle) -> Result<MeshShapeStatus, ClothError> {
        self.publish_mesh_shape(handle.index, handle.generation);
        match self.mesh_shapes.get(handle.index, handle.generation).ok_or(ClothError::InvalidHandle)? {
            MeshShapeEntry::Ready(_) => Ok(MeshShapeStatus::Ready),
            MeshShapeEntry::Building(build) => Ok(MeshShapeStatus::Building { progress: build.progress() }),
            MeshShapeEntry::Failed(error) => Ok(MeshShapeStatus::Failed(error.clone())),
        }
    }

    /// Take in every build that has ended (at the start of each step).
    pub(crate) fn publish_mesh_shapes(&mut self) {
        let building: Vec<(u32, u32)> = self
            .mesh_shapes
            .iter()
            .filter(|(_, e)| matches!(e, MeshShapeEntry::Building(_)))
            .filter_map(|(index, _)| self.mesh_shapes.live_generation(index).map(|g| (index, g)))
            .collect();
        for (index, generation) in building {
            self.publish_mesh_shape(index, generation);
        }
    }

    /// If shape (index, generation) has finished building, make it ready (or failed) and give it to
    /// the colliders waiting on it, waking the sleeping cloths they reach.
    fn publish_mesh_shape(&mut self, index: u32, generation: u32) {
        let Some(entry) = self.mesh_shapes.get_mut(index, generation) else { return };
        let MeshShapeEntry::Building(build) = entry else { return };
        let Some(result) = build.take() else { return };
        *entry = match result {
            Ok(shape) => MeshShapeEntry::Ready(Arc::new(shape)),
            Err(error) => MeshShapeEntry::Failed(error),
        };
        if let MeshShapeEntry::Ready(shape) = entry {
            let handle = MeshShapeHandle { index, generation };
            for collider in self.colliders.give_mesh_shape(handle, shape) {
                if let Ok(c) = self.colliders.get(collider) {
                    wake_sleepers_touched_by(&mut self.cloths, c, &[c.pose()]);
                }
            }
        }
    }

    /// Build a mesh shape on `pool` (a world's, [`Self::mesh_shape_pool`]), or on the calling
    /// thread alone without one, so a world of one thread starts no thread for it either.
    pub(crate) fn build_mesh_shape_on(pool: Option<Arc<WorkerPool>>, desc: &MeshShapeDesc) -> Result<MeshShape, ClothError> {
        match pool {
            Some(pool) => pool.install(|| MeshShape::build_on(desc, true)),
            None => MeshShape::build_on(desc, false),
        }
    }

    /// The pool [`Self::build_mesh_shape_on`] takes for this world's mesh shapes.
    pub(crate) fn mesh_shape_pool(&self) -> Option<Arc<WorkerPool>> {
        self.pool.clone()
    }

    /// Add a built mesh shape; colliders of kind [`ColliderKind::Mesh`] instance it by handle.
    /// Never fails.
    pub fn add_mesh_shape(&mut self, shape: MeshShape) -> MeshShapeHandle {
        let (index, generation) = self.mesh_shapes.insert(MeshShapeEntry::Ready(Arc::new(shape)));
        MeshShapeHandle { index, generation }
    }

    /// The built mesh shape behind `handle`. Errors: `InvalidHandle`; `MeshShapeNotReady` while it
    /// builds; after a failed build, the build's error.
    pub fn mesh_shape(&self, handle: MeshShapeHandle) -> Result<&MeshShape, ClothError> {
        match self.mesh_shapes.get(handle.index, handle.generation).ok_or(ClothError::InvalidHandle)? {
            MeshShapeEntry::Ready(shape) => Ok(shape),
            MeshShapeEntry::Building(build) => Err(ClothError::MeshShapeNotReady { progress: build.progress() }),
            MeshShapeEntry::Failed(error) => Err(error.clone()),
        }
    }

    /// Remove a mesh shape (a build still running is stopped at its next check and waited for).
    /// Errors: `InvalidHandle`; `MeshShapeInUse` (with how many colliders use it) while a collider
    /// uses it: destroy those first. Nothing changes on error.
    pub fn remove_mesh_shape(&mut self, handle: MeshShapeHandle) -> Result<(), ClothError> {
        let entry = self.mesh_shapes.get(handle.index, handle.generation).ok_or(ClothError::InvalidHandle)?;
        let users = match entry {
            MeshShapeEntry::Ready(shape) => Arc::strong_count(shape) - 1,
            MeshShapeEntry::Building(_) | MeshShapeEntry::Failed(_) => self.colliders.waiting_for(handle),
        };
        if users > 0 {
            return Err(ClothError::MeshShapeInUse { colliders: users });
        }
        self.mesh_shapes.remove(handle.index, handle.generation);
        Ok(())
    }

    /// The handle of the live mesh shape in slot `index`, if any.
    pub fn live_mesh_shape_handle(&self, index: u32) -> Option<MeshShapeHandle> {
        self.mesh_shapes.live_generation(index).map(|generation| MeshShapeHandle { index, generation })
    }

    /// Number of live mesh shapes (built, building or failed).
    pub fn mesh_shape_count(&self) -> usize {
        self.mesh_shapes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ClothDesc, WorldDesc};
    use glam::Vec3;

    /// A closed box mesh of half extent `h` around the origin, wound outward.
    fn cube(h: f32) -> (Vec<[f32; 3]>, Vec<[u32; 3]>) {
        let positions = (0..8).map(|k| [0, 1, 2].map(|a| if k >> a & 1 == 1 { h } else { -h })).collect();
        let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
        (positions, quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect())
    }

    /// A world of one thread with a 9 × 9 sheet 5 cm above a 0.3 m box's top face.
    fn world_with_sheet() -> (World, crate::ClothHandle) {
        let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
        let (positions, indices) = crate::test_util::grid(9, 0.025, 0.2);
        let lifted: Vec<[f32; 3]> = positions.iter().map(|p| [p[0] - 0.1, p[1], p[2] - 0.1]).collect();
        let cloth = world.add_cloth(&ClothDesc::new(&lifted, &indices)).unwrap();
        (world, cloth)
    }

    /// While its shape builds a mesh collider touches nothing: the sheet falls through the box's
    /// place bit for bit as in a world without it. From the first step after the build ends it
    /// collides: the sheet stops on the top face.
    #[test]
    fn a_collider_on_a_building_shape_collides_from_the_step_after_the_build() {
        let (mut world, cloth) = world_with_sheet();
        let (mut bare, bare_cloth) = world_with_sheet();
        let shape = world.add_mesh_shape_build(MeshShapeBuild::held());
        world.add_collider(&ColliderDesc::mesh(shape)).unwrap();
        assert_eq!(world.mesh_shape_status(shape).unwrap(), MeshShapeStatus::Building { progress: 0.0 });
        assert!(matches!(world.mesh_shape(shape), Err(ClothError::MeshShapeNotReady { .. })));
        assert_eq!(world.remove_mesh_shape(shape), Err(ClothError::MeshShapeInUse { colliders: 1 }));
        for _ in 0..12 {
            world.step(1.0 / 60.0).unwrap();
            bare.step(1.0 / 60.0).unwrap();
        }
        let bits = |w: &World, c| w.cloth(c).unwrap().particle_positions().iter().flat_map(|p| p.to_array()).map(f32::to_bits).collect::<Vec<_>>();
        assert_eq!(bits(&world, cloth), bits(&bare, bare_cloth), "a pending shape moved the cloth");
        let lowest = |w: &World, c| w.cloth(c).unwrap().particle_positions().iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
        assert!(lowest(&world, cloth) < 0.16, "fell below the box's top face by now: {}", lowest(&world, cloth));

        // Rewind: a fresh sheet above the box, the build finishes, the next steps collide.
        let (mut world, cloth) = world_with_sheet();
        let build = MeshShapeBuild::held();
        let finisher = build.handle();
        let shape = world.add_mesh_shape_build(build);
        world.add_collider(&ColliderDesc::mesh(shape)).unwrap();
        let (positions, triangles) = cube(0.15);
        finisher.finish(MeshShape::build(&MeshShapeDesc { positions: &positions, triangles: &triangles, cell_size: 0.01, closed: true }));
        for _ in 0..60 {
            world.step(1.0 / 60.0).unwrap();
        }
        assert_eq!(world.mesh_shape_status(shape).unwrap(), MeshShapeStatus::Ready);
        let thickness = world.cloth(cloth).unwrap().params().collision_thickness;
        assert!(lowest(&world, cloth) > 0.15 + 0.5 * thickness, "rests on the top face: {}", lowest(&world, cloth));
    }

    /// A failed build keeps its error for the status, refuses new colliders and the query, and
    /// the shape can be removed once its waiting collider is.
    #[test]
    fn a_failed_build_says_why_and_never_collides() {
        let (mut world, _) = world_with_sheet();
        let build = MeshShapeBuild::held();
        let finisher = build.handle();
        let shape = world.add_mesh_shape_build(build);
        let waiting = world.add_collider(&ColliderDesc::mesh(shape)).unwrap();
        finisher.finish(Err(ClothError::NoTriangleWithArea { triangles: 2 }));
        assert_eq!(world.mesh_shape_status(shape).unwrap(), MeshShapeStatus::Failed(ClothError::NoTriangleWithArea { triangles: 2 }));
        assert!(matches!(world.add_collider(&ColliderDesc::mesh(shape)), Err(ClothError::InvalidParameter { name: "mesh_shape", .. })));
        assert_eq!(world.mesh_shape(shape).err(), Some(ClothError::NoTriangleWithArea { triangles: 2 }));
        assert_eq!(world.collider(waiting).unwrap().signed_distance([0.0; 3]), f32::INFINITY);
        assert_eq!(world.remove_mesh_shape(shape), Err(ClothError::MeshShapeInUse { colliders: 1 }));
        world.remove_collider(waiting).unwrap();
        world.remove_mesh_shape(shape).unwrap();
        assert_eq!(world.mesh_shape_count(), 0);
    }

    /// A real asynchronous build gives the field the synchronous one gives, bit for bit.
    #[test]
    fn the_asynchronous_build_equals_the_synchronous_one() {
        let (positions, triangles) = cube(0.15);
        let desc = MeshShapeDesc { positions: &positions, triangles: &triangles, cell_size: 0.004, closed: true };
        let mut world = World::new(WorldDesc { thread_count: 2, ..WorldDesc::default() }).unwrap();
        let sync = world.create_mesh_shape(&desc).unwrap();
        let pending = world.create_mesh_shape_async(&desc).unwrap();
        let mut last = 0.0f32;
        loop {
            match world.mesh_shape_status(pending).unwrap() {
                MeshShapeStatus::Building { progress } => {
                    assert!(progress >= last && progress <= 1.0, "progress {progress} after {last}");
                    last = progress;
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                MeshShapeStatus::Ready => break,
                MeshShapeStatus::Failed(e) => panic!("{e}"),
            }
        }
        let mut next = crate::test_util::uniform(0xa5c0_0001);
        for _ in 0..2000 {
            let p = Vec3::new(next(), next(), next()) * 0.3;
            let (a, b) = (world.mesh_shape(sync).unwrap().distance(p), world.mesh_shape(pending).unwrap().distance(p));
            assert_eq!((a.0.to_bits(), a.1.to_array().map(f32::to_bits)), (b.0.to_bits(), b.1.to_array().map(f32::to_bits)), "at {p}");
        }
        assert_eq!(world.mesh_shape(pending).unwrap().report(), world.mesh_shape(sync).unwrap().report());
    }

    /// Removing a shape while it builds stops the build; the world is left without it.
    #[test]
    fn removing_a_building_shape_stops_it() {
        let (positions, triangles) = cube(0.15);
        let desc = MeshShapeDesc { positions: &positions, triangles: &triangles, cell_size: 0.002, closed: true };
        let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
        let shape = world.create_mesh_shape_async(&desc).unwrap();
        world.remove_mesh_shape(shape).unwrap();
        assert_eq!(world.mesh_shape_status(shape), Err(ClothError::InvalidHandle));
        assert_eq!(world.mesh_shape_count(), 0);
        // Errors found by reading the arrays come at once, nothing added.
        let bad = MeshShapeDesc { triangles: &[[0, 1, 8]], ..desc };
        assert_eq!(world.create_mesh_shape_async(&bad), Err(ClothError::IndexOutOfRange { triangle: 0, index: 8, vertex_count: 8 }));
        assert_eq!(world.mesh_shape_count(), 0);
    }
}
