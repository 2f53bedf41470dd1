//! What an engine does with the character's clothes through the public API: put a garment on
//! (skinned, with its limits, placed on the skinned pose), add the body's capsules, and before each
//! step give every cloth the root and the joints and every capsule its joint's pose. Shared by the
//! demo's scene and the bench's worn-pair table (`examples/bench/worn.rs`), so both step one scene.

use super::figure::{CAPSULES, Figure, JOINT_COUNT, Rigid};
use super::garments::Garment;
use xpbd_cloth::{ClothDesc, ClothError, ClothHandle, ClothParams, ColliderDesc, ColliderHandle, SkinDesc, World};

/// Friction coefficient (static = kinetic) of the body's capsules.
pub const CAPSULE_FRICTION: f32 = 0.3;
/// Friction coefficient (static = kinetic) of the floor the figure runs on.
pub const FLOOR_FRICTION: f32 = 0.6;

/// Both garments: carried with the character's root (low inertia, as docs/parameters.md advises
/// for the capes and skirts of fast characters): a quarter of its translation felt, none of its
/// turns, so the snap turn carries them round; 5 mm contact thickness.
pub fn params() -> ClothParams {
    ClothParams { linear_inertia: 0.25, angular_inertia: 0.0, collision_thickness: 0.005, ..ClothParams::default() }
}

/// Add `garment` to the world as a cloth skinned to the figure, with its limits, driven from the
/// figure's current pose `poses` and root from the first step on, and placed on that skinned pose
/// (not left in the bind pose for the first step to yank).
pub fn wear(world: &mut World, garment: &Garment, inverse_binds: &[[f32; 16]], figure: &Figure, poses: &[Rigid; JOINT_COUNT]) -> Result<ClothHandle, ClothError> {
    let handle = world.add_cloth(&ClothDesc { params: params(), ..ClothDesc::new(&garment.positions, &garment.indices) })?;
    let c = world.cloth_mut(handle)?;
    let skin = SkinDesc { inverse_bind_matrices: inverse_binds, joint_indices: &garment.joints, joint_weights: &garment.weights };
    c.set_skin(Some(&skin))?;
    c.set_max_distances(Some(&garment.max_distances))?;
    if let Some((b, r)) = &garment.backstops {
        c.set_backstops(Some((b, r)))?;
    }
    c.set_anim_drive(garment.anim_drive.as_deref())?;
    let root = figure.root();
    c.set_reference_frame(root.translation.to_array(), root.rotation.to_array())?;
    c.set_joint_matrices(&poses.map(|p| p.matrix()))?;
    let mut pose = vec![[0.0f32; 3]; garment.positions.len()];
    c.read_animated_positions(&mut pose)?;
    c.set_positions(None, &pose)?;
    Ok(handle)
}

/// The body's capsules ([`CAPSULES`]) as colliders at the joint poses `poses`, in that order.
pub fn add_body(world: &mut World, poses: &[Rigid; JOINT_COUNT]) -> Result<Vec<ColliderHandle>, ClothError> {
    CAPSULES
        .iter()
        .map(|c| {
            let (pose, half_length) = c.collider_pose(&poses[c.joint as usize]);
            let desc = ColliderDesc { pose, static_friction: CAPSULE_FRICTION, kinetic_friction: CAPSULE_FRICTION, ..ColliderDesc::capsule(c.radius, half_length) };
            world.add_collider(&desc)
        })
        .collect()
}

/// What an engine does before each step: every cloth of `cloths` gets the root as its reference
/// frame and the joints' world matrices, every capsule of `capsules` ([`add_body`]) the pose of
/// its joint.
pub fn pose_the_world(world: &mut World, cloths: &[ClothHandle], capsules: &[ColliderHandle], root: &Rigid, poses: &[Rigid; JOINT_COUNT]) -> Result<(), ClothError> {
    let matrices = poses.map(|p| p.matrix());
    for &h in cloths {
        let c = world.cloth_mut(h)?;
        c.set_reference_frame(root.translation.to_array(), root.rotation.to_array())?;
        c.set_joint_matrices(&matrices)?;
    }
    for (&handle, c) in capsules.iter().zip(&CAPSULES) {
        world.set_collider_pose(handle, &c.collider_pose(&poses[c.joint as usize]).0)?;
    }
    Ok(())
}
