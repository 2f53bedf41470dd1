//! The mutable simulation state of a cloth: what a snapshot holds ([`super::snapshot`]), of which
//! the state hash covers the positions and velocities ([`super::state_hash`]), and the animated
//! pose, which the engine gives again every step and a snapshot does not keep.

use super::animation::Animation;
use super::grabs::Grabs;
use super::pins::Pins;
use glam::{Quat, Vec3};

/// Particle positions and velocities, pins, and where teleports have carried the rest pose.
#[derive(Clone, Debug)]
pub(crate) struct ClothState {
    /// Positions x \[m\], one per particle.
    pub x: Vec<Vec3>,
    /// Velocities v \[m/s\], one per particle.
    pub v: Vec<Vec3>,
    /// Pinned particles with the interpolation endpoints of the next step.
    pub pins: Pins,
    /// Grabbed particles (soft, compliant attachments) with their targets.
    pub grabs: Grabs,
    /// The rigid transform of every teleport since creation, composed (rotation, then
    /// translation): the rest pose now lies at `rest_rotation · rest + rest_translation`.
    pub rest_rotation: Quat,
    pub rest_translation: Vec3,
    /// The animated pose and the constraints relative to it (empty until set).
    pub animation: Animation,
}

impl ClothState {
    /// At rest in the pose `rest` \[m\], nothing pinned.
    pub fn at_rest(rest: &[Vec3]) -> ClothState {
        ClothState {
            x: rest.to_vec(),
            v: vec![Vec3::ZERO; rest.len()],
            pins: Pins::default(),
            grabs: Grabs::default(),
            rest_rotation: Quat::IDENTITY,
            rest_translation: Vec3::ZERO,
            animation: Animation::default(),
        }
    }
}
