//! Teleport: move a cloth by a rigid transform between steps, without adding velocity.

use super::Cloth;
use crate::error::{ClothError, check_range, check_unit_quaternion};
use glam::Vec3;

/// Largest accepted |component| of a teleport translation \[m\]: the one bound of every world
/// coordinate ([`crate::mesh::MAX_COORDINATE`]).
pub const MAX_TELEPORT_TRANSLATION: f32 = crate::mesh::MAX_COORDINATE;

impl Cloth {
    /// Move the whole cloth by the rigid transform x ← R·x + t (rotation `rotation` about the
    /// world origin, then translation `translation` \[m\]): every particle, its position at the start
    /// of the substep, the pins' current positions and targets, and the rest pose used by
    /// [`crate::UnstableRecovery::RestPose`]. Velocities \[m/s\] are rotated with the cloth, so the
    /// motion continues in the new frame and no velocity is added: the next step behaves as if the
    /// cloth had always been there. To carry a cloth from an engine pose A to pose B pass the
    /// relative transform B·A⁻¹: rotation q_B·q_A⁻¹, translation p_B − R·p_A.
    ///
    /// `rotation` is a unit quaternion `[x, y, z, w]` (length 1 ± 1e-3; renormalised).
    /// Errors: `InvalidParameter` naming `translation` (a component NaN, infinite or beyond
    /// ±[`MAX_TELEPORT_TRANSLATION`], or moving a particle beyond ±[`crate::mesh::MAX_COORDINATE`]
    /// per coordinate, where f32 positions are too coarse for cloth: repeated teleports would
    /// otherwise carry a cloth there step by step) or `rotation`; nothing moves on error.
    pub fn teleport(&mut self, translation: [f32; 3], rotation: [f32; 4]) -> Result<(), ClothError> {
        let _change = self.begin_change();
        let q = self.check_teleport(translation, rotation)?;
        self.apply_teleport(Vec3::from_array(translation), q);
        Ok(())
    }

    /// The checks of a teleport's translation and rotation alone; returns the normalised rotation.
    pub(crate) fn check_teleport_args(translation: [f32; 3], rotation: [f32; 4]) -> Result<glam::Quat, ClothError> {
        let m = MAX_TELEPORT_TRANSLATION;
        for c in translation {
            check_range("translation", c, -m, m, "finite m within ±1e5 per component")?;
        }
        check_unit_quaternion("rotation", rotation)
    }

    /// The checks of [`Cloth::teleport`], changing nothing; returns the normalised rotation.
    pub(crate) fn check_teleport(&self, translation: [f32; 3], rotation: [f32; 4]) -> Result<glam::Quat, ClothError> {
        let m = MAX_TELEPORT_TRANSLATION;
        let q = Self::check_teleport_args(translation, rotation)?;
        let t = Vec3::from_array(translation);
        let furthest = self.state.x.iter().map(|x| (q * *x + t).abs().max_element()).fold(0.0, f32::max);
        if furthest > m {
            let expected = "a translation that keeps every particle within ±1e5 m per coordinate";
            return Err(ClothError::InvalidParameter { name: "translation", value: furthest as f64, expected });
        }
        Ok(q)
    }

    /// [`Cloth::teleport`] after its checks passed.
    pub(crate) fn apply_teleport(&mut self, t: Vec3, q: glam::Quat) {
        let move_point = |x: &mut Vec3| *x = q * *x + t;
        let p = &mut self.state;
        p.x.iter_mut().for_each(move_point);
        self.scratch.x_prev.iter_mut().for_each(move_point);
        p.v.iter_mut().for_each(|v| *v = q * *v);
        p.pins.start.iter_mut().for_each(move_point);
        p.pins.target.iter_mut().for_each(move_point);
        let g = &mut p.grabs;
        g.start.iter_mut().chain(g.target.iter_mut()).chain(g.frame_from.iter_mut()).for_each(move_point);
        p.animation.teleport(q, t);
        p.rest_rotation = (q * p.rest_rotation).normalize();
        p.rest_translation = q * p.rest_translation + t;
        self.moved_externally();
    }

    /// What follows every call that puts the particles where no step took them (a teleport, a
    /// snapshot restore, the cloth put on its pose), once the particles and the substep's previous
    /// positions are in place: the cloth wakes, and the explosion guard's last good state, the
    /// normals, the interpolated reads and the frame drive of `World::advance` all start from
    /// here, as if the cloth had always been there.
    pub(crate) fn moved_externally(&mut self) {
        self.wake();
        self.remember_good_state();
        self.update_normals(false);
        self.reset_interpolation();
        self.drive_forget();
    }
}
