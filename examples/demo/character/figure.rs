//! The character: a joint hierarchy animated procedurally (a walk and a run blended by one
//! parameter, root motion along its heading) and the capsules that move with its joints.
//!
//! Y is up and the figure faces its local +z; +x is its left. Joint poses are rigid (rotation and
//! translation, no scale), each its parent's pose times a fixed offset times the joint's own
//! rotation of the moment.

use glam::{Mat4, Quat, Vec3};
use std::f32::consts::TAU;

/// The joints, in an order where every parent comes before its children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Joint {
    Pelvis,
    Spine,
    Head,
    UpperLegLeft,
    LowerLegLeft,
    UpperLegRight,
    LowerLegRight,
    UpperArmLeft,
    LowerArmLeft,
    UpperArmRight,
    LowerArmRight,
}

pub const JOINT_COUNT: usize = 11;

/// Parent and offset from the parent's origin in the bind pose [m] of every joint, by index.
const HIERARCHY: [(Option<Joint>, Vec3); JOINT_COUNT] = [
    (None, Vec3::new(0.0, PELVIS_HEIGHT, 0.0)),
    (Some(Joint::Pelvis), Vec3::new(0.0, 0.08, 0.0)),
    (Some(Joint::Spine), Vec3::new(0.0, 0.55, 0.0)),
    (Some(Joint::Pelvis), Vec3::new(HIP_WIDTH, -0.05, 0.0)),
    (Some(Joint::UpperLegLeft), Vec3::new(0.0, -THIGH, 0.0)),
    (Some(Joint::Pelvis), Vec3::new(-HIP_WIDTH, -0.05, 0.0)),
    (Some(Joint::UpperLegRight), Vec3::new(0.0, -THIGH, 0.0)),
    (Some(Joint::Spine), Vec3::new(SHOULDER_WIDTH, 0.45, 0.0)),
    (Some(Joint::UpperArmLeft), Vec3::new(0.0, -UPPER_ARM, 0.0)),
    (Some(Joint::Spine), Vec3::new(-SHOULDER_WIDTH, 0.45, 0.0)),
    (Some(Joint::UpperArmRight), Vec3::new(0.0, -UPPER_ARM, 0.0)),
];

/// Height of the pelvis joint above the floor in the bind pose [m] (the figure is 1.82 m tall).
pub const PELVIS_HEIGHT: f32 = 0.95;
const HIP_WIDTH: f32 = 0.09;
const SHOULDER_WIDTH: f32 = 0.2;
const THIGH: f32 = 0.42;
const SHIN: f32 = 0.42;
const UPPER_ARM: f32 = 0.27;
const FOREARM: f32 = 0.25;

/// A capsule of the body: the segment a–b in its joint's space [m] and its radius [m].
#[derive(Clone, Copy, Debug)]
pub struct BodyCapsule {
    pub joint: Joint,
    pub a: Vec3,
    pub b: Vec3,
    pub radius: f32,
}

const fn capsule(joint: Joint, a: Vec3, b: Vec3, radius: f32) -> BodyCapsule {
    BodyCapsule { joint, a, b, radius }
}

/// The body: hips across the pelvis, torso, head, and two capsules per leg and per arm.
pub const CAPSULES: [BodyCapsule; 11] = [
    capsule(Joint::Pelvis, Vec3::new(-0.07, 0.0, 0.0), Vec3::new(0.07, 0.0, 0.0), 0.12),
    capsule(Joint::Spine, Vec3::new(0.0, 0.1, 0.0), Vec3::new(0.0, 0.4, 0.0), 0.14),
    capsule(Joint::Head, Vec3::new(0.0, 0.1, 0.0), Vec3::new(0.0, 0.16, 0.0), 0.1),
    capsule(Joint::UpperLegLeft, Vec3::ZERO, Vec3::new(0.0, -THIGH, 0.0), 0.075),
    capsule(Joint::LowerLegLeft, Vec3::ZERO, Vec3::new(0.0, -SHIN, 0.0), 0.055),
    capsule(Joint::UpperLegRight, Vec3::ZERO, Vec3::new(0.0, -THIGH, 0.0), 0.075),
    capsule(Joint::LowerLegRight, Vec3::ZERO, Vec3::new(0.0, -SHIN, 0.0), 0.055),
    capsule(Joint::UpperArmLeft, Vec3::ZERO, Vec3::new(0.0, -UPPER_ARM, 0.0), 0.045),
    capsule(Joint::LowerArmLeft, Vec3::ZERO, Vec3::new(0.0, -FOREARM, 0.0), 0.04),
    capsule(Joint::UpperArmRight, Vec3::ZERO, Vec3::new(0.0, -UPPER_ARM, 0.0), 0.045),
    capsule(Joint::LowerArmRight, Vec3::ZERO, Vec3::new(0.0, -FOREARM, 0.0), 0.04),
];

/// A rigid transform x ↦ rotation·x + translation [m].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rigid {
    pub rotation: Quat,
    pub translation: Vec3,
}

impl Rigid {
    pub const IDENTITY: Rigid = Rigid { rotation: Quat::IDENTITY, translation: Vec3::ZERO };

    fn new(rotation: Quat, translation: Vec3) -> Rigid {
        Rigid { rotation, translation }
    }

    pub fn point(&self, p: Vec3) -> Vec3 {
        self.rotation * p + self.translation
    }

    /// `self` after `other` (apply `other` first).
    pub fn then_from(&self, other: &Rigid) -> Rigid {
        Rigid::new((self.rotation * other.rotation).normalize(), self.point(other.translation))
    }

    pub fn inverse(&self) -> Rigid {
        let r = self.rotation.conjugate();
        Rigid::new(r, -(r * self.translation))
    }

    /// Column-major 4×4, as `Cloth::set_joint_matrices` takes it.
    pub fn matrix(&self) -> [f32; 16] {
        Mat4::from_rotation_translation(self.rotation, self.translation).to_cols_array()
    }
}

/// How a gait moves the joints; a walk and a run, blended linearly.
#[derive(Clone, Copy, Debug)]
struct Gait {
    /// Forward speed [m/s].
    speed: f32,
    /// Strides (one left and one right step) per second [Hz].
    stride_rate: f32,
    /// Amplitudes [rad]: thigh swing, extra knee bend in the swing, arm swing, forward lean.
    hip: f32,
    knee: f32,
    arm: f32,
    lean: f32,
    /// Pelvis bob, twice per stride [m].
    bob: f32,
}

const WALK: Gait = Gait { speed: 1.4, stride_rate: 0.9, hip: 0.4, knee: 0.6, arm: 0.35, lean: 0.05, bob: 0.025 };
const RUN: Gait = Gait { speed: 4.0, stride_rate: 1.4, hip: 0.75, knee: 1.0, arm: 0.8, lean: 0.22, bob: 0.045 };

impl Gait {
    fn blend(u: f32) -> Gait {
        let l = |a: f32, b: f32| a + (b - a) * u;
        Gait {
            speed: l(WALK.speed, RUN.speed),
            stride_rate: l(WALK.stride_rate, RUN.stride_rate),
            hip: l(WALK.hip, RUN.hip),
            knee: l(WALK.knee, RUN.knee),
            arm: l(WALK.arm, RUN.arm),
            lean: l(WALK.lean, RUN.lean),
            bob: l(WALK.bob, RUN.bob),
        }
    }
}

/// The animated figure: root motion and gait phase; its joints' world poses follow from them.
#[derive(Clone, Debug)]
pub struct Figure {
    /// The root on the floor plane under the pelvis: position [m] (y = the bind pelvis height) and
    /// heading [rad] about +y (0 = facing +z).
    pub position: Vec3,
    pub heading: f32,
    /// Gait phase [rad] and walk-to-run blend u ∈ [0, 1].
    phase: f32,
    pub run_blend: f32,
}

impl Figure {
    /// Standing in the bind pose at the origin, facing +z.
    pub fn new() -> Figure {
        Figure { position: Vec3::new(0.0, PELVIS_HEIGHT, 0.0), heading: 0.0, phase: 0.0, run_blend: 0.0 }
    }

    /// The character's root (position and heading only; the reference frame of its cloth).
    pub fn root(&self) -> Rigid {
        Rigid::new(Quat::from_rotation_y(self.heading), self.position)
    }

    /// Move on by `dt` [s] at the current gait: the root along its heading, the phase on.
    pub fn advance(&mut self, dt: f32) {
        let gait = Gait::blend(self.run_blend);
        self.position += Quat::from_rotation_y(self.heading) * Vec3::Z * (gait.speed * dt);
        self.phase = (self.phase + TAU * gait.stride_rate * dt) % TAU;
    }

    /// Turn the root by `angle` [rad] about +y at once (a snap turn).
    pub fn snap_turn(&mut self, angle: f32) {
        self.heading += angle;
    }

    /// Put the root at `position` with `heading` at once (a respawn); returns the rigid transform
    /// from the old root to the new one (new · old⁻¹), which carries every joint, capsule and cloth
    /// along since the rest of the pose is unchanged.
    pub fn respawn(&mut self, position: Vec3, heading: f32) -> Rigid {
        let old = self.root();
        (self.position, self.heading) = (position, heading);
        self.root().then_from(&old.inverse())
    }

    /// Every joint's world pose now, by joint index.
    pub fn joint_poses(&self) -> [Rigid; JOINT_COUNT] {
        let g = Gait::blend(self.run_blend);
        let (s, c) = self.phase.sin_cos();
        let rx = Quat::from_rotation_x;
        let local = [
            Quat::from_rotation_y(0.08 * s),
            rx(g.lean) * Quat::from_rotation_y(-0.12 * s),
            rx(-0.7 * g.lean),
            // Thighs: a negative angle about x swings the leg forward (+z); the knee bends back
            // while its leg swings forward.
            rx(-g.hip * s),
            rx(0.1 + g.knee * c.max(0.0)),
            rx(g.hip * s),
            rx(0.1 + g.knee * (-c).max(0.0)),
            // Arms against the legs, held a little away from the body, elbows bent.
            Quat::from_rotation_z(0.22) * rx(g.arm * s),
            rx(-(0.3 + 0.9 * self.run_blend)),
            Quat::from_rotation_z(-0.22) * rx(-g.arm * s),
            rx(-(0.3 + 0.9 * self.run_blend)),
        ];
        let bob = Vec3::Y * (g.bob * (2.0 * self.phase).cos());
        let root = self.root();
        let mut poses = [Rigid::IDENTITY; JOINT_COUNT];
        for (j, &(parent, offset)) in HIERARCHY.iter().enumerate() {
            poses[j] = match parent {
                None => Rigid::new((root.rotation * local[j]).normalize(), root.translation + bob),
                Some(p) => poses[p as usize].then_from(&Rigid::new(local[j], offset)),
            };
        }
        poses
    }

    /// The joints' world poses in the bind pose (standing at the origin, no rotation).
    pub fn bind_poses() -> [Rigid; JOINT_COUNT] {
        let mut poses = [Rigid::IDENTITY; JOINT_COUNT];
        for (j, &(parent, offset)) in HIERARCHY.iter().enumerate() {
            poses[j] = match parent {
                None => Rigid::new(Quat::IDENTITY, offset),
                Some(p) => Rigid::new(Quat::IDENTITY, poses[p as usize].translation + offset),
            };
        }
        poses
    }
}

impl BodyCapsule {
    /// The segment's ends in world space [m] for its joint at `pose`.
    pub fn ends(&self, pose: &Rigid) -> (Vec3, Vec3) {
        (pose.point(self.a), pose.point(self.b))
    }

    /// The library capsule's pose (centre, rotation of its local +y onto the segment) and half
    /// length [m] for its joint at `pose`.
    pub fn collider_pose(&self, pose: &Rigid) -> (xpbd_cloth::Pose, f32) {
        let axis = (self.b - self.a).normalize();
        let rotation = (pose.rotation * Quat::from_rotation_arc(Vec3::Y, axis)).normalize();
        let centre = pose.point(0.5 * (self.a + self.b));
        (xpbd_cloth::Pose { position: centre.to_array(), rotation: rotation.to_array() }, 0.5 * self.a.distance(self.b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parents_come_first_and_the_bind_pose_stands_on_the_floor() {
        for (j, (parent, _)) in HIERARCHY.iter().enumerate() {
            assert!(parent.is_none_or(|p| (p as usize) < j), "joint {j}");
        }
        let bind = Figure::bind_poses();
        let lowest = CAPSULES
            .iter()
            .map(|c| {
                let (a, b) = c.ends(&bind[c.joint as usize]);
                a.y.min(b.y) - c.radius
            })
            .fold(f32::INFINITY, f32::min);
        assert!((0.0..0.02).contains(&lowest), "feet at {lowest} m");
        // At phase 0, no blend, no heading: the figure is its bind pose up to the constant bends.
        let pelvis = Figure::new().joint_poses()[Joint::Pelvis as usize];
        assert!(pelvis.translation.distance(bind[0].translation) < 0.03);
    }

    #[test]
    fn a_respawn_transform_carries_every_joint_to_the_new_pose() {
        let mut f = Figure::new();
        f.run_blend = 0.7;
        for _ in 0..37 {
            f.advance(1.0 / 60.0);
        }
        let before = f.joint_poses();
        let jump = f.respawn(Vec3::new(-30.0, PELVIS_HEIGHT, 40.0), 1.0);
        let after = f.joint_poses();
        for (a, b) in before.iter().zip(&after) {
            let moved = jump.then_from(a);
            assert!(moved.translation.distance(b.translation) < 1e-4);
            assert!(moved.rotation.dot(b.rotation).abs() > 1.0 - 1e-6);
        }
    }
}
