//! The world's colliders and their motion.
//!
//! Each collider keeps two poses: `start`, reached at the end of the last step, and `target`, the
//! pose to reach by the end of the next step ([`crate::World::set_collider_pose`]). Substep i of n
//! of that step sees the collider moving from the pose at s = i/n to the pose at s = (i+1)/n,
//! with position(s) = lerp(start, target, s) and rotation(s) = slerp(start, target, s) (shortest
//! arc). So a collider moved by the engine every frame never teleports inside a step, and its own
//! motion over each substep is known to the contact and friction code.

use super::desc::{ColliderDesc, Pose};
use super::shape::Shape;
use crate::error::ClothError;
use crate::slot_map::SlotMap;
use glam::{Quat, Vec3};

/// Identifies a collider in a [`crate::World`]: slot index + generation (like
/// [`crate::ClothHandle`]), so a handle to a removed collider is detected, never followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ColliderHandle {
    /// Slot index.
    pub index: u32,
    /// Generation of the slot when the collider was created (starts at 1; 0 is never valid).
    pub generation: u32,
}

/// Identifies a mesh shape in a [`crate::World`]: slot index + generation, like
/// [`ColliderHandle`]. The default (generation 0) is the null handle, never valid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MeshShapeHandle {
    /// Slot index.
    pub index: u32,
    /// Generation of the slot when the shape was added (starts at 1; 0 is never valid).
    pub generation: u32,
}

/// A rigid transform local → world: x = rotation · p + position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Frame {
    pub position: Vec3,
    /// Unit quaternion.
    pub rotation: Quat,
}

impl Frame {
    /// World point → local point.
    #[inline]
    pub fn to_local(self, x: Vec3) -> Vec3 {
        self.rotation.conjugate() * (x - self.position)
    }

    fn pose(&self) -> Pose {
        Pose { position: self.position.to_array(), rotation: self.rotation.to_array() }
    }

    /// The frame at fraction `s` from `self` to `to`: position lerped, rotation slerped, each
    /// bit-exactly `self`'s where the two agree.
    pub(crate) fn towards(self, to: Frame, s: f32) -> Frame {
        Frame {
            position: if self.position == to.position { self.position } else { self.position.lerp(to.position, s) },
            rotation: if self.rotation == to.rotation {
                self.rotation
            } else {
                // glam's slerp takes the shortest arc; renormalise its approximate trigonometry.
                self.rotation.slerp(to.rotation, s).normalize()
            },
        }
    }
}

/// The rigid motion a substep's reference-frame carry gave the cloth's free particles
/// (`solver/frame.rs`): y = rotation·(x − from) + to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Carry {
    /// Unit quaternion.
    pub rotation: Quat,
    pub from: Vec3,
    pub to: Vec3,
}

impl Carry {
    /// `frame` moved by the carry. A carried particle's substep start read in it is where its
    /// uncarried start lies in `frame`: (C∘F)⁻¹(C(x)) = F⁻¹(x).
    pub fn moved(self, frame: Frame) -> Frame {
        Frame { position: self.rotation * (frame.position - self.from) + self.to, rotation: (self.rotation * frame.rotation).normalize() }
    }
}

/// Which part of the current step a substep covers: it starts at fraction `begin` and ends at
/// fraction `end` of the step (substep i of n: i/n → (i+1)/n).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SubstepWindow {
    pub begin: f32,
    pub end: f32,
}

impl SubstepWindow {
    pub fn new(substep: u32, substeps: u32) -> Self {
        let n = substeps as f32;
        SubstepWindow { begin: substep as f32 / n, end: (substep + 1) as f32 / n }
    }
}

/// A collider in a world: its shape, friction, layers and motion.
#[derive(Clone, Debug)]
pub struct Collider {
    desc: ColliderDesc,
    pub(crate) shape: Shape,
    start: Frame,
    target: Frame,
    /// The target given at the last `World::advance` (None: the next frame starts from `start`)
    /// and, during a frame, the frame's given target (`ColliderStore::drive_to`).
    from: Option<Frame>,
    given: Frame,
}

impl Collider {
    /// The descriptor it was created with, `pose` replaced by its current pose.
    pub fn desc(&self) -> ColliderDesc {
        ColliderDesc { pose: self.pose(), ..self.desc }
    }

    /// Pose reached at the end of the last step (the creation pose before the first step).
    pub fn pose(&self) -> Pose {
        self.start.pose()
    }

    /// Pose it will reach at the end of the next step.
    pub fn target_pose(&self) -> Pose {
        self.target.pose()
    }

    /// Signed distance \[m\] from world `point` \[m\] to the collider's surface at its current pose
    /// (negative inside). Cloth particles are kept at ≥ the cloth's collision thickness.
    pub fn signed_distance(&self, point: [f32; 3]) -> f32 {
        self.shape.distance(self.start.to_local(Vec3::from_array(point))).0
    }

    /// Collision layer bits.
    pub fn layers(&self) -> u32 {
        self.desc.layers
    }

    /// The layers it collides in now: none while its mesh shape is still building.
    #[inline]
    pub(crate) fn active_layers(&self) -> u32 {
        if matches!(self.shape, Shape::PendingMesh) { 0 } else { self.desc.layers }
    }

    /// (μ_s, μ_k).
    pub(crate) fn friction(&self) -> (f32, f32) {
        (self.desc.static_friction, self.desc.kinetic_friction)
    }

    /// Frame at fraction `s` of the current step: start at 0, exactly the target at 1, and
    /// bit-exactly the start throughout when the collider does not move or turn (so a resting
    /// collider's frames are identical and its contacts see no rounding motion).
    pub(crate) fn frame_at(&self, s: f32) -> Frame {
        if s >= 1.0 {
            return self.target;
        }
        if s <= 0.0 {
            return self.start;
        }
        self.start.towards(self.target, s)
    }

    /// Frames at the beginning and the end of a substep.
    pub(crate) fn substep_frames(&self, window: SubstepWindow) -> (Frame, Frame) {
        (self.frame_at(window.begin), self.frame_at(window.end))
    }
}

/// All colliders of a world, in slot order (the order in which contacts are solved).
#[derive(Clone, Debug, Default)]
pub(crate) struct ColliderStore {
    colliders: SlotMap<Collider>,
}

impl ColliderStore {
    /// Validate `desc` and add the collider (at rest at its pose). Errors: `InvalidParameter`.
    #[cfg(test)]
    pub fn add(&mut self, desc: &ColliderDesc) -> Result<ColliderHandle, ClothError> {
        self.add_with(desc, None)
    }

    /// Validate `desc` and add the collider (at rest at its pose), with the shape a mesh
    /// collider's `mesh_shape` refers to (`Shape::Mesh` or `Shape::PendingMesh`; `None`: none).
    /// Errors: `InvalidParameter`.
    pub fn add_with(&mut self, desc: &ColliderDesc, mesh: Option<Shape>) -> Result<ColliderHandle, ClothError> {
        let (shape, position, rotation) = desc.validated_with(mesh)?;
        let frame = Frame { position, rotation };
        let collider = Collider { desc: *desc, shape, start: frame, target: frame, from: None, given: frame };
        let (index, generation) = self.colliders.insert(collider);
        Ok(ColliderHandle { index, generation })
    }

    /// Give the built shape `shape` to the mesh colliders waiting for `handle`; their handles.
    pub(crate) fn give_mesh_shape(&mut self, handle: MeshShapeHandle, shape: &std::sync::Arc<super::MeshShape>) -> Vec<ColliderHandle> {
        let mut given = Vec::new();
        for (index, collider) in self.colliders.iter_mut() {
            if matches!(collider.shape, Shape::PendingMesh) && collider.desc.mesh_shape == handle {
                collider.shape = Shape::Mesh(shape.clone());
                given.push(index);
            }
        }
        given.into_iter().filter_map(|index| self.colliders.live_generation(index).map(|generation| ColliderHandle { index, generation })).collect()
    }

    /// How many mesh colliders wait for shape `handle` to be built.
    pub(crate) fn waiting_for(&self, handle: MeshShapeHandle) -> usize {
        self.colliders.iter().filter(|(_, c)| matches!(c.shape, Shape::PendingMesh) && c.desc.mesh_shape == handle).count()
    }

    /// The collider behind `handle`. Errors: `InvalidHandle`.
    pub fn get(&self, handle: ColliderHandle) -> Result<&Collider, ClothError> {
        self.colliders.get(handle.index, handle.generation).ok_or(ClothError::InvalidHandle)
    }

    /// Set the pose to reach by the end of the next step. Errors: `InvalidHandle`,
    /// `InvalidParameter` (`position`, `rotation`); unchanged on error.
    pub fn set_pose(&mut self, handle: ColliderHandle, pose: &Pose) -> Result<(), ClothError> {
        let collider = self.colliders.get_mut(handle.index, handle.generation).ok_or(ClothError::InvalidHandle)?;
        let (position, rotation) = pose.validated()?;
        collider.target = Frame { position, rotation };
        Ok(())
    }

    /// Jump to `pose` at once: start and target both become it, so the next step sees no motion
    /// (no sweep through the cloth, no friction carry, nothing for the guard to count).
    /// Errors: `InvalidHandle`, `InvalidParameter` (`position`, `rotation`); unchanged on error.
    pub fn teleport(&mut self, handle: ColliderHandle, pose: &Pose) -> Result<(), ClothError> {
        let collider = self.colliders.get_mut(handle.index, handle.generation).ok_or(ClothError::InvalidHandle)?;
        let (position, rotation) = pose.validated()?;
        collider.start = Frame { position, rotation };
        collider.target = collider.start;
        collider.from = None;
        Ok(())
    }

    /// The handle of the live collider in slot `index`, if any.
    pub fn live_handle(&self, index: u32) -> Option<ColliderHandle> {
        self.colliders.live_generation(index).map(|generation| ColliderHandle { index, generation })
    }

    /// Remove a collider. Errors: `InvalidHandle`.
    pub fn remove(&mut self, handle: ColliderHandle) -> Result<Collider, ClothError> {
        self.colliders.remove(handle.index, handle.generation).ok_or(ClothError::InvalidHandle)
    }

    /// Number of colliders.
    pub fn len(&self) -> usize {
        self.colliders.len()
    }

    /// Colliders with their slot index, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &Collider)> {
        self.colliders.iter()
    }

    /// Become a copy of `source` in which every collider's motion over the next step goes on to
    /// fraction `s` ≥ 1 of it (position linearly, rotation by slerp): what a cloth stepping over
    /// `s` world steps collides with (level of detail, `crate::world::lod`). Reuses this store's
    /// buffers: no allocation once they have the source's size.
    pub(crate) fn extrapolate_from(&mut self, source: &ColliderStore, s: f32) {
        self.colliders.copy_from(&source.colliders);
        for c in self.colliders.values_mut() {
            let (start, target) = (c.start, c.target);
            if start.position != target.position {
                c.target.position = start.position + (target.position - start.position) * s;
            }
            if start.rotation != target.rotation {
                c.target.rotation = start.rotation.slerp(target.rotation, s).normalize();
            }
        }
    }

    /// Start a frame of `World::advance` (`crate::cloth::drive` for cloths): each collider's target
    /// is the frame's given pose, and its pose at the previous frame (or its start) is where the
    /// frame's steps interpolate from. Returns whether any collider moves in the frame.
    pub fn drive_begin_frame(&mut self) -> bool {
        let mut moving = false;
        for c in self.colliders.values_mut() {
            c.given = c.target;
            let from = *c.from.get_or_insert(c.start);
            moving |= from != c.given;
        }
        moving
    }

    /// The targets of the frame's next step: at fraction `u` ∈ [0, 1] from the previous frame's
    /// pose to the given one (position lerped, rotation slerped), exactly the given one at 1.
    pub fn drive_to(&mut self, u: f32) {
        for c in self.colliders.values_mut() {
            if let Some(from) = c.from.filter(|from| *from != c.given) {
                c.target = if u >= 1.0 { c.given } else { from.towards(c.given, u) };
            }
        }
    }

    /// End a frame of `World::advance`: every target is the given pose again, and the next frame's
    /// starting pose.
    pub fn drive_end_frame(&mut self) {
        for c in self.colliders.values_mut() {
            c.target = c.given;
            c.from = Some(c.given);
        }
    }

    /// After a step outside `World::advance`: the next frame starts from where the colliders are.
    pub fn drive_forget(&mut self) {
        for c in self.colliders.values_mut() {
            c.from = None;
        }
    }

    /// After a step: every target reached becomes the next start (a collider nobody moves stays).
    pub fn finish_step(&mut self) {
        for c in self.colliders.values_mut() {
            c.start = c.target;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::FRAC_PI_2;

    #[test]
    fn substeps_interpolate_position_and_rotation_between_step_poses() {
        let mut store = ColliderStore::default();
        let h = store.add(&ColliderDesc::cuboid([0.1; 3])).unwrap();
        // Target: 1 m along x and a quarter turn about y.
        store.set_pose(h, &Pose::from_axis_angle([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], FRAC_PI_2)).unwrap();
        let c = store.get(h).unwrap();
        let (f0, f1) = c.substep_frames(SubstepWindow::new(1, 4));
        assert!((f0.position - Vec3::new(0.25, 0.0, 0.0)).length() < 1e-6);
        assert!((f1.position - Vec3::new(0.5, 0.0, 0.0)).length() < 1e-6);
        // Half way the box has turned 45°: its local +X points to (cos 45°, 0, −sin 45°).
        let x_axis = f1.rotation * Vec3::X;
        let s = std::f32::consts::FRAC_1_SQRT_2;
        assert!((x_axis - Vec3::new(s, 0.0, -s)).length() < 1e-4, "{x_axis}");
        // The last substep ends exactly on the target; after the step it is the new start.
        assert_eq!(c.substep_frames(SubstepWindow::new(3, 4)).1, c.target);
        store.finish_step();
        assert_eq!(store.get(h).unwrap().pose(), store.get(h).unwrap().target_pose());
    }

    /// The copy a long step of level of detail collides with: each collider goes on along its
    /// motion (3 world steps: 3 × the translation, 3 × the angle), a resting one stays bit for bit.
    #[test]
    fn an_extrapolated_store_carries_each_motion_on_and_leaves_resting_colliders_alone() {
        let mut store = ColliderStore::default();
        let moving = store.add(&ColliderDesc::cuboid([0.1; 3])).unwrap();
        let resting = store.add(&ColliderDesc { pose: Pose::at([0.0, 2.0, 0.0]), ..ColliderDesc::sphere(0.3) }).unwrap();
        store.set_pose(moving, &Pose::from_axis_angle([0.1, 0.0, 0.0], [0.0, 1.0, 0.0], 0.2)).unwrap();
        let mut far = ColliderStore::default();
        far.extrapolate_from(&store, 3.0);
        let m = far.get(moving).unwrap().target_pose();
        assert!((Vec3::from_array(m.position) - Vec3::new(0.3, 0.0, 0.0)).length() < 1e-6);
        let angle = glam::Quat::from_array(m.rotation).to_axis_angle().1;
        assert!((angle - 0.6).abs() < 1e-4, "{angle}");
        assert_eq!(far.get(resting).unwrap().target_pose(), store.get(resting).unwrap().target_pose());
        assert_eq!(far.get(moving).unwrap().pose(), store.get(moving).unwrap().pose(), "the start is the source's");
        // A second copy into the same store reuses it: same handles, same count.
        store.remove(resting).unwrap();
        far.extrapolate_from(&store, 2.0);
        assert_eq!((far.len(), far.get(resting).is_err()), (1, true));
    }

    #[test]
    fn bad_pose_is_rejected_and_changes_nothing() {
        let mut store = ColliderStore::default();
        let h = store.add(&ColliderDesc::sphere(0.2)).unwrap();
        let bad = Pose { position: [0.0; 3], rotation: [0.0, 0.0, 0.0, 2.0] };
        assert!(matches!(store.set_pose(h, &bad), Err(ClothError::InvalidParameter { name: "rotation", .. })));
        assert_eq!(store.get(h).unwrap().target_pose(), Pose::default());
        store.remove(h).unwrap();
        assert_eq!(store.set_pose(h, &Pose::default()), Err(ClothError::InvalidHandle));
    }
}
