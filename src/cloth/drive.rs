//! Per-step drive inside [`crate::World::advance`] (docs/c-cpp.md, "The frame loop"): the engine
//! gives a cloth's targets once per rendered frame (pin targets, grab targets, the animated pose or
//! joint matrices, the reference frame), each the value at the frame's time. The frame's fixed
//! steps end at times between the previous frame's and this one's, so each step is given the
//! targets interpolated to its own end time between the values of the previous frame (`from`) and
//! this frame's (`given`): positions lerped, rotations slerped, joints as the skin interpolates
//! them (translation and scale lerped, rotation slerped). After the frame the targets are this
//! frame's again, and they become the next frame's `from`.
//!
//! The values of the previous frame are kept only while nothing else moved the cloth's drive
//! (`from_set`): a step outside `advance`, a new pose binding, or a call that puts the particles
//! where no step took them (`Cloth::moved_externally`: a teleport, a snapshot restore, the cloth
//! put on its pose) makes the next frame start from where the last step ended (`start`), as a
//! plain step does.

use super::Cloth;
use super::skin::{JointPose, LocalPose};
use glam::{Mat4, Quat, Vec3};

/// What a cloth's drive keeps between frames and during one.
#[derive(Clone, Debug, Default)]
pub(crate) struct Drive {
    /// `from_*` and the pins' and grabs' `frame_from` hold the values given at the last
    /// `advance`; when false the next frame starts from the step's start values.
    pub from_set: bool,
    from_pose: Vec<Vec3>,
    from_normals: Vec<Vec3>,
    from_joints: Vec<JointPose>,
    from_frame: Option<(Vec3, Quat)>,
    /// This frame's given values while its steps run on interpolated ones.
    given: Given,
    /// What moves in this frame (given ≠ from).
    moving: Moving,
}

#[derive(Clone, Debug, Default)]
struct Given {
    pins: Vec<Vec3>,
    grabs: Vec<Vec3>,
    pose: Vec<Vec3>,
    normals: Vec<Vec3>,
    joints: Vec<JointPose>,
    matrices: Vec<Mat4>,
    local_target: Option<LocalPose>,
    frame: Option<(Vec3, Quat)>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Moving {
    pins: bool,
    grabs: bool,
    /// The animated pose given directly (not skinned).
    pose: bool,
    skin: bool,
    frame: bool,
}

/// `from` where it is not equal to `given`, at fraction `u` ∈ [0, 1] towards it: exactly `given`
/// at 1.
#[inline]
fn lerp(from: Vec3, given: Vec3, u: f32) -> Vec3 {
    if u >= 1.0 || from == given { given } else { from + (given - from) * u }
}

/// Copy `src` into `dst`, reusing its allocation.
fn copy_into<T: Copy>(dst: &mut Vec<T>, src: &[T]) {
    dst.clear();
    dst.extend_from_slice(src);
}

impl Cloth {
    /// Start a frame of `advance`: take the targets the engine gave as this frame's, and the
    /// previous frame's values (or the step's start values when they are not kept). Returns
    /// whether any target moves in this frame (only then do the steps need [`Self::drive_to`]).
    pub(crate) fn drive_begin_frame(&mut self) -> bool {
        let (d, s) = (&mut self.drive, &mut self.state);
        let keep = d.from_set;
        let pins = &mut s.pins;
        if !keep || pins.frame_from.len() != pins.target.len() {
            copy_into(&mut pins.frame_from, &pins.start);
        }
        let grabs = &mut s.grabs;
        if !keep || grabs.frame_from.len() != grabs.target.len() {
            copy_into(&mut grabs.frame_from, &grabs.start);
        }
        copy_into(&mut d.given.pins, &pins.target);
        copy_into(&mut d.given.grabs, &grabs.target);
        let a = &s.animation;
        let (posed, skinned) = (a.pose.posed(), a.pose.skinned());
        if posed && (!keep || d.from_pose.len() != a.target.len()) {
            copy_into(&mut d.from_pose, &a.start);
            copy_into(&mut d.from_normals, &a.normal_start);
        }
        if let Some(skin) = a.skin.as_ref().filter(|_| skinned)
            && (!keep || d.from_joints.len() != skin.target.len())
        {
            copy_into(&mut d.from_joints, &skin.start);
        }
        if !keep || d.from_frame.is_none() {
            d.from_frame = a.frame.map(|f| f.start);
        }
        d.given.frame = a.frame.map(|f| f.target);
        d.moving = Moving {
            pins: pins.frame_from != pins.target,
            grabs: grabs.frame_from != grabs.target,
            pose: posed && !skinned && (d.from_pose != a.target || d.from_normals != a.normal_target),
            skin: skinned && a.skin.as_ref().is_some_and(|skin| d.from_joints != skin.target),
            frame: d.from_frame.is_some() && d.from_frame != d.given.frame,
        };
        if d.moving.pose {
            copy_into(&mut d.given.pose, &a.target);
            copy_into(&mut d.given.normals, &a.normal_target);
        }
        if let Some(skin) = a.skin.as_ref().filter(|_| d.moving.skin) {
            copy_into(&mut d.given.pose, &a.target);
            copy_into(&mut d.given.normals, &a.normal_target);
            copy_into(&mut d.given.joints, &skin.target);
            copy_into(&mut d.given.matrices, &skin.matrices);
            match &mut d.given.local_target {
                Some(local) => local.clone_from(&skin.local_target),
                None => d.given.local_target = Some(skin.local_target.clone()),
            }
        }
        d.moving != Moving::default()
    }

    /// The targets of the next step of the frame: at fraction `u` ∈ [0, 1] from the previous
    /// frame's values to this frame's (module docs). Costs a skinning of the pose when the joints
    /// move (as giving joint matrices every step does).
    pub(crate) fn drive_to(&mut self, u: f32) {
        let (d, s) = (&self.drive, &mut self.state);
        if d.moving.pins {
            let pins = &mut s.pins;
            for ((t, &f), &g) in pins.target.iter_mut().zip(&pins.frame_from).zip(&d.given.pins) {
                *t = lerp(f, g, u);
            }
        }
        if d.moving.grabs {
            let grabs = &mut s.grabs;
            for ((t, &f), &g) in grabs.target.iter_mut().zip(&grabs.frame_from).zip(&d.given.grabs) {
                *t = lerp(f, g, u);
            }
        }
        let a = &mut s.animation;
        if d.moving.pose {
            for ((t, &f), &g) in a.target.iter_mut().zip(&d.from_pose).zip(&d.given.pose) {
                *t = lerp(f, g, u);
            }
            for ((n, &f), &g) in a.normal_target.iter_mut().zip(&d.from_normals).zip(&d.given.normals) {
                *n = if u >= 1.0 || f == g { g } else { f.lerp(g, u).normalize_or_zero() };
            }
        }
        if d.moving.skin
            && let Some(skin) = a.skin.as_deref_mut()
        {
            for ((t, f), g) in skin.target.iter_mut().zip(&d.from_joints).zip(&d.given.joints) {
                *t = if u >= 1.0 { *g } else { f.towards(g, u) };
            }
            skin.pose_target(&self.model.rest, &mut a.target, &mut a.normal_target);
        }
        if d.moving.frame
            && let (Some(frame), Some(from), Some(given)) = (&mut a.frame, d.from_frame, d.given.frame)
        {
            frame.target = if u >= 1.0 { given } else { (from.0.lerp(given.0, u), from.1.slerp(given.1, u).normalize()) };
        }
    }

    /// End a frame of `advance`: the targets are the frame's given values again (what the engine
    /// set, for reads and for the next frame), and they are the next frame's `from`.
    pub(crate) fn drive_end_frame(&mut self) {
        let (d, s) = (&mut self.drive, &mut self.state);
        if d.moving.pins {
            s.pins.target.copy_from_slice(&d.given.pins);
        }
        if d.moving.grabs {
            s.grabs.target.copy_from_slice(&d.given.grabs);
        }
        copy_into(&mut s.pins.frame_from, &s.pins.target);
        copy_into(&mut s.grabs.frame_from, &s.grabs.target);
        let a = &mut s.animation;
        if d.moving.pose || d.moving.skin {
            a.target.copy_from_slice(&d.given.pose);
            a.normal_target.copy_from_slice(&d.given.normals);
        }
        if let (true, Some(skin)) = (d.moving.skin, a.skin.as_deref_mut()) {
            skin.target.copy_from_slice(&d.given.joints);
            skin.matrices.copy_from_slice(&d.given.matrices);
            if let Some(local) = &d.given.local_target {
                skin.local_target.clone_from(local);
            }
        }
        if let (true, Some(frame), Some(given)) = (d.moving.frame, &mut a.frame, d.given.frame) {
            frame.target = given;
        }
        if a.pose.posed() {
            copy_into(&mut d.from_pose, &a.target);
            copy_into(&mut d.from_normals, &a.normal_target);
        }
        if let Some(skin) = a.skin.as_ref().filter(|_| a.pose.skinned()) {
            copy_into(&mut d.from_joints, &skin.target);
        }
        d.from_frame = a.frame.map(|f| f.target);
        d.moving = Moving::default();
        d.from_set = true;
    }

    /// Forget the previous frame's values: the next frame of `advance` starts from where the last
    /// step ended (the cases in the module docs).
    pub(crate) fn drive_forget(&mut self) {
        self.drive.from_set = false;
    }
}
