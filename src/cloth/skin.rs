//! Linear blend skinning of the animated pose by the library (docs/design.md, "Character
//! cloth"): a binding set once (inverse bind matrices, up to 4 joints and weights per vertex),
//! then the joints' world matrices per step, from which the step's end pose is skinned (LBS).
//! Between the step's start and end poses each substep carries a vertex with its dominant joint
//! (the largest weight), whose transform is interpolated by translation (lerp), rotation (slerp)
//! and scale (lerp), never entry-wise: a lerped rotation matrix shrinks what it turns (a 90° turn
//! to cos 45° ≈ 0.71 of its length half way). The vertex's position in that joint's frame is
//! lerped from start to end, so a vertex bound to one joint moves exactly rigidly; a blended one
//! follows its other joints' motion relative to the dominant joint along the chord, within
//! Σₖ wₖ·rₖ·(1 − cos(θₖ/2)) of per-substep LBS (θₖ: joint k's turn relative to the dominant joint
//! in the step, rₖ: the vertex's distance from joint k).

use super::Cloth;
use crate::error::ClothError;
use glam::{Mat3A, Mat4, Quat, Vec3, Vec3A};

/// Joints per vertex at most.
pub const MAX_JOINTS_PER_VERTEX: usize = 4;

/// Joints per skin at most: far above any character rig, below what would make a skin's buffers
/// a denial of service.
pub const MAX_JOINTS: u32 = 65_536;

/// A skin binding: the matrices and weights of every render vertex (render order).
#[derive(Clone, Copy, Debug)]
pub struct SkinDesc<'a> {
    /// Inverse bind matrix per joint, column-major (`[f32; 16] × joint_count`, `m[12..15]` the
    /// translation): mesh space as created → the joint's space.
    pub inverse_bind_matrices: &'a [[f32; 16]],
    /// Up to 4 joint indices per render vertex (`[u32; 4] × vertex_count`, each < joint_count;
    /// unused slots any valid index with weight 0).
    pub joint_indices: &'a [[u32; 4]],
    /// Their weights (`[f32; 4] × vertex_count`, each ≥ 0, not all 0; normalised to sum 1).
    pub joint_weights: &'a [[f32; 4]],
}

/// A joint's world transform, decomposed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct JointPose {
    pub scale: Vec3,
    pub rotation: Quat,
    pub translation: Vec3,
}

impl JointPose {
    fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// At fraction `s` from `self` to `to`: translation and scale lerped, rotation slerped.
    fn towards(&self, to: &JointPose, s: f32) -> JointPose {
        JointPose {
            scale: self.scale.lerp(to.scale, s),
            rotation: self.rotation.slerp(to.rotation, s).normalize(),
            translation: self.translation.lerp(to.translation, s),
        }
    }
}

/// The binding per particle and the joint poses of the current step.
#[derive(Clone, Debug)]
pub(crate) struct Skin {
    pub inverse_bind: Vec<Mat4>,
    /// Per particle: joint indices and weights (summing to 1).
    pub joints: Vec<[u32; 4]>,
    pub weights: Vec<[f32; 4]>,
    /// Per particle: the rest (bind) pose normals.
    pub bind_normals: Vec<Vec3>,
    /// Joint world poses at the start and the end of the next step.
    pub start: Vec<JointPose>,
    pub target: Vec<JointPose>,
    /// Joint matrices have been given since the binding or the last `set_animated_pose`.
    pub posed: bool,
    /// The skinning matrices (world · inverse bind) of the step's end, per joint.
    pub matrices: Vec<Mat4>,
    /// Per particle: its dominant joint (the largest weight, the first of equal ones).
    pub dominant: Vec<u32>,
    /// Per particle: the pose's position J⁻¹·a \[m\] and normal R⁻¹·n in its dominant joint's
    /// frame (J the joint's world transform, R its rotation) at the start and the end of the step.
    pub local_start: Vec<Vec3A>,
    pub local_target: Vec<Vec3A>,
    pub local_normal_start: Vec<Vec3A>,
    pub local_normal_target: Vec<Vec3A>,
    /// Per joint: its world transform and rotation at the current substep (scratch).
    pub frames: Vec<Mat4>,
    pub rotations: Vec<Mat3A>,
}

impl Skin {
    /// The skinning matrices of the step's end (the targets').
    fn matrices_at_target(&mut self) {
        for ((m, b), inverse) in self.matrices.iter_mut().zip(&self.target).zip(&self.inverse_bind) {
            *m = b.matrix() * *inverse;
        }
    }

    /// Every particle skinned with the step's end matrices from its rest position `rest` \[m\]:
    /// its position into `pose` \[m\] and its unit normal into `normals` (LBS:
    /// x = Σ wₖ·Mₖ·x_rest, n = normalise(Σ wₖ·Mₖ·n_rest), each joint's transform weighted).
    fn skin_all(&self, rest: &[Vec3], pose: &mut [Vec3], normals: &mut [Vec3]) {
        let bindings = self.joints.iter().zip(&self.weights).zip(rest.iter().zip(&self.bind_normals));
        for ((x, n), ((joints, weights), (&r, &b))) in pose.iter_mut().zip(normals.iter_mut()).zip(bindings) {
            let (r, b) = (Vec3A::from(r), Vec3A::from(b));
            let (mut p, mut v) = (Vec3A::ZERO, Vec3A::ZERO);
            for (&j, &w) in joints.iter().zip(weights) {
                if w != 0.0 {
                    let m = &self.matrices[j as usize];
                    p += m.transform_point3a(r) * w;
                    v += m.transform_vector3a(b) * w;
                }
            }
            (*x, *n) = (p.into(), v.normalize_or_zero().into());
        }
    }

    /// The end pose `pose` \[m\] and unit `normals` in each particle's dominant joint frame at the
    /// step's end (`local_target`, `local_normal_target`).
    fn localise_target(&mut self, pose: &[Vec3], normals: &[Vec3]) {
        for ((f, r), j) in self.frames.iter_mut().zip(&mut self.rotations).zip(&self.target) {
            *f = j.matrix().inverse();
            *r = Mat3A::from_quat(j.rotation.conjugate());
        }
        let locals = self.local_target.iter_mut().zip(self.local_normal_target.iter_mut());
        for ((&k, (x, n)), (&p, &normal)) in self.dominant.iter().zip(locals).zip(pose.iter().zip(normals)) {
            *x = self.frames[k as usize].transform_point3a(p.into());
            *n = self.rotations[k as usize] * Vec3A::from(normal);
        }
    }

    /// The joints' world transforms and rotations at fraction `s` of the step, for
    /// [`Skin::place`].
    pub fn frames_at(&mut self, s: f32) {
        for ((f, r), (a, b)) in self.frames.iter_mut().zip(&mut self.rotations).zip(self.start.iter().zip(&self.target)) {
            let pose = a.towards(b, s);
            *f = pose.matrix();
            *r = Mat3A::from_quat(pose.rotation);
        }
    }

    /// The pose at fraction `s` of the step (after [`Skin::frames_at`] with the same `s`): each
    /// particle's dominant joint transform applied to its lerped local position, into `pose`
    /// \[m\]. With `backstops` (the centres' buffer, distances b and radii r \[m\] per particle), the
    /// backstop centres a − (b + r)·n too, n the joint's rotation of the lerped local normal, not
    /// renormalised (unit for a vertex bound to one joint, else at least cos(θ/2) long, θ the
    /// normal's turn relative to the joint in the step).
    pub fn place(&self, s: f32, pose: &mut [Vec3A], backstops: Option<(&mut [Vec3A], &[f32], &[f32])>) {
        let locals = self.local_start.iter().zip(&self.local_target).zip(&self.dominant);
        match backstops {
            None => {
                for (p, ((&from, &to), &k)) in pose.iter_mut().zip(locals) {
                    *p = self.frames[k as usize].transform_point3a(from.lerp(to, s));
                }
            }
            Some((centres, distance, radius)) => {
                let normals = self.local_normal_start.iter().zip(&self.local_normal_target);
                let backstops = centres.iter_mut().zip(distance.iter().zip(radius));
                for ((p, ((&from, &to), &k)), ((n0, n1), (c, (&b, &r)))) in pose.iter_mut().zip(locals).zip(normals.zip(backstops)) {
                    let k = k as usize;
                    *p = self.frames[k].transform_point3a(from.lerp(to, s));
                    *c = *p - self.rotations[k] * n0.lerp(*n1, s) * (b + r);
                }
            }
        }
    }

    /// After a step: the joints and the local pose reached become the next start.
    pub fn finish_step(&mut self) {
        self.start.copy_from_slice(&self.target);
        self.local_start.copy_from_slice(&self.local_target);
        self.local_normal_start.copy_from_slice(&self.local_normal_target);
    }

    /// Carry the joints by the rigid transform x ← q·x + t (a teleport of the cloth; the pose in
    /// the joints' frames is unchanged).
    pub fn teleport(&mut self, q: Quat, t: Vec3) {
        for j in self.start.iter_mut().chain(self.target.iter_mut()) {
            j.rotation = (q * j.rotation).normalize();
            j.translation = q * j.translation + t;
        }
    }
}

fn invalid(name: &'static str, value: f64, expected: &'static str) -> ClothError {
    ClothError::InvalidParameter { name, value, expected }
}

/// A column-major matrix that is finite. Errors: `InvalidParameter` named `name`.
fn matrix(m: &[f32; 16], name: &'static str) -> Result<Mat4, ClothError> {
    match m.iter().find(|c| !c.is_finite()) {
        Some(&c) => Err(invalid(name, c as f64, "finite matrix entries")),
        None => Ok(Mat4::from_cols_array(m)),
    }
}

impl Cloth {
    /// Bind the animated pose to a skeleton (`None`: remove the skin). The mesh as created is the
    /// bind pose. From the next [`Cloth::set_joint_matrices`] on the library skins the pose
    /// (linear blend skinning) at each step's end and carries it over the substeps with each
    /// vertex's dominant joint (module docs). Welded copies of a vertex must have the same
    /// joints and weights.
    ///
    /// Errors: `InvalidParameter` (`joint_count`: 0 or above [`MAX_JOINTS`]; `inverse_bind_matrices`:
    /// a non-finite entry; `joint_indices`: an index ≥ joint_count or welded copies that differ;
    /// `joint_weights`: negative, non-finite or all 0); `BufferSizeMismatch` (per-vertex arrays
    /// not `vertex_count` long); state unchanged on error.
    pub fn set_skin(&mut self, desc: Option<&SkinDesc>) -> Result<(), ClothError> {
        // Residual statistics read neither the pose nor these values: nothing to settle (the
        // kinematic set's relayout settles them itself); the default floating-point mode only.
        let _fp = crate::fp_env::DefaultFpEnv::enter();
        let Some(desc) = desc else {
            self.state.animation.skin = None;
            return Ok(());
        };
        let joint_count = desc.inverse_bind_matrices.len();
        if joint_count == 0 || joint_count > MAX_JOINTS as usize {
            return Err(invalid("joint_count", joint_count as f64, "1 ..= 65536 joints"));
        }
        let inverse_bind = desc.inverse_bind_matrices.iter().map(|m| matrix(m, "inverse_bind_matrices")).collect::<Result<Vec<_>, _>>()?;
        let map = &self.model.particle_of_vertex;
        for len in [desc.joint_indices.len(), desc.joint_weights.len()] {
            if len != map.len() {
                return Err(ClothError::BufferSizeMismatch { expected: map.len(), got: len });
            }
        }
        let n = self.model.particle_count();
        let (mut joints, mut weights) = (vec![[u32::MAX; 4]; n], vec![[f32::NAN; 4]; n]);
        for ((j, w), &p) in desc.joint_indices.iter().zip(desc.joint_weights).zip(map) {
            if let Some(&bad) = j.iter().find(|&&j| j as usize >= joint_count) {
                return Err(invalid("joint_indices", bad as f64, "joint indices below joint_count"));
            }
            if let Some(&bad) = w.iter().find(|&&w| !(w >= 0.0 && w.is_finite())) {
                return Err(invalid("joint_weights", bad as f64, "finite weights >= 0"));
            }
            let sum: f32 = w.iter().sum();
            if !(sum > 0.0 && sum.is_finite()) {
                return Err(invalid("joint_weights", sum as f64, "weights of a vertex summing to more than 0"));
            }
            let w = w.map(|w| w / sum);
            let p = p as usize;
            if joints[p][0] != u32::MAX && (joints[p] != *j || weights[p].map(f32::to_bits) != w.map(f32::to_bits)) {
                return Err(invalid("joint_indices", p as f64, "the same joints and weights for every welded copy of a vertex"));
            }
            (joints[p], weights[p]) = (*j, w);
        }
        let mut bind_normals = vec![Vec3::ZERO; n];
        super::animation::area_weighted_normals(&self.model.rest, &self.model.triangles, &mut bind_normals);
        let identity = JointPose { scale: Vec3::ONE, rotation: Quat::IDENTITY, translation: Vec3::ZERO };
        let dominant = weights.iter().zip(&joints).map(|(w, j)| j[(1..MAX_JOINTS_PER_VERTEX).fold(0, |best, k| if w[k] > w[best] { k } else { best })]).collect();
        self.prepare_animation();
        self.state.animation.skin = Some(Box::new(Skin {
            inverse_bind,
            joints,
            weights,
            bind_normals,
            start: vec![identity; joint_count],
            target: vec![identity; joint_count],
            posed: false,
            matrices: vec![Mat4::IDENTITY; joint_count],
            dominant,
            local_start: vec![Vec3A::ZERO; n],
            local_target: vec![Vec3A::ZERO; n],
            local_normal_start: vec![Vec3A::ZERO; n],
            local_normal_target: vec![Vec3A::ZERO; n],
            frames: vec![Mat4::IDENTITY; joint_count],
            rotations: vec![Mat3A::IDENTITY; joint_count],
        }));
        Ok(())
    }

    /// The joints' world matrices reached by the end of the next step (`[f32; 16] × joint_count`,
    /// column-major, `m[12..15]` the translation; rotation, translation and scale only: shear is
    /// not kept by the decomposition). The step's end pose is skinned from them (LBS); every
    /// substep carries each vertex with its dominant joint interpolated from the last step's
    /// matrices (the first call: these), module docs.
    /// Replaces a pose given by [`Cloth::set_animated_pose`].
    ///
    /// Errors: `InvalidHandle`-free: `InvalidParameter` (`skin`: no skin set; `joint_matrices`: a
    /// non-finite entry, or a scale of 0), `BufferSizeMismatch` (not `joint_count` matrices);
    /// state unchanged on error.
    pub fn set_joint_matrices(&mut self, matrices: &[[f32; 16]]) -> Result<(), ClothError> {
        // Residual statistics read neither the pose nor these values: nothing to settle (the
        // kinematic set's relayout settles them itself); the default floating-point mode only.
        let _fp = crate::fp_env::DefaultFpEnv::enter();
        let Some(skin) = self.state.animation.skin.as_deref() else {
            return Err(invalid("skin", 0.0, "a skin set with set_skin before joint matrices"));
        };
        if matrices.len() != skin.target.len() {
            return Err(ClothError::BufferSizeMismatch { expected: skin.target.len(), got: matrices.len() });
        }
        let mut poses = Vec::with_capacity(matrices.len());
        for m in matrices {
            let (scale, rotation, translation) = matrix(m, "joint_matrices")?.to_scale_rotation_translation();
            if !(scale.min_element().abs() > 1e-12) || !rotation.is_finite() {
                return Err(invalid("joint_matrices", scale.min_element() as f64, "matrices of rotation, translation and a nonzero scale"));
            }
            poses.push(JointPose { scale, rotation: rotation.normalize(), translation });
        }
        let rest = &self.model.rest;
        let a = &mut self.state.animation;
        let skin = a.skin.as_deref_mut().expect("checked above");
        skin.target = poses;
        skin.matrices_at_target();
        skin.skin_all(rest, &mut a.target, &mut a.normal_target);
        skin.localise_target(&a.target, &a.normal_target);
        if !skin.posed || !a.posed {
            // The first skinned pose: the substeps start where the step ends.
            skin.start.copy_from_slice(&skin.target);
            skin.local_start.copy_from_slice(&skin.local_target);
            skin.local_normal_start.copy_from_slice(&skin.local_normal_target);
            skin.posed = true;
        }
        self.pose_given();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDENTITY: JointPose = JointPose { scale: Vec3::ONE, rotation: Quat::IDENTITY, translation: Vec3::ZERO };

    /// A skin of `joints` joints (identity inverse binds) over `rest`, with per-particle joints
    /// and weights, posed from `start` to `target` as `set_joint_matrices` does.
    fn posed_skin(rest: &[Vec3], joints: Vec<[u32; 4]>, weights: Vec<[f32; 4]>, start: Vec<JointPose>, target: Vec<JointPose>) -> Skin {
        let (n, j) = (rest.len(), start.len());
        let dominant = joints.iter().zip(&weights).map(|(j, w)| j[(0..4).fold(0, |b, k| if w[k] > w[b] { k } else { b })]).collect();
        let mut skin = Skin {
            inverse_bind: vec![Mat4::IDENTITY; j],
            joints,
            weights,
            bind_normals: vec![Vec3::Z; n],
            start: start.clone(),
            target: start,
            posed: true,
            matrices: vec![Mat4::IDENTITY; j],
            dominant,
            local_start: vec![Vec3A::ZERO; n],
            local_target: vec![Vec3A::ZERO; n],
            local_normal_start: vec![Vec3A::ZERO; n],
            local_normal_target: vec![Vec3A::ZERO; n],
            frames: vec![Mat4::IDENTITY; j],
            rotations: vec![Mat3A::IDENTITY; j],
        };
        for target in [None, Some(target)] {
            if let Some(t) = target {
                skin.finish_step();
                skin.target = t;
            }
            skin.matrices_at_target();
            let (mut pose, mut normals) = (vec![Vec3::ZERO; n], vec![Vec3::ZERO; n]);
            skin.skin_all(rest, &mut pose, &mut normals);
            skin.localise_target(&pose, &normals);
        }
        skin
    }

    /// Per-substep LBS written out: the joints interpolated (lerp, slerp, lerp) to `s`, then
    /// x = Σ wₖ·Mₖ(s)·x_rest (identity inverse binds).
    fn lbs_at(skin: &Skin, i: usize, rest: Vec3, s: f32) -> Vec3 {
        (0..4).map(|k| skin.start[skin.joints[i][k] as usize].towards(&skin.target[skin.joints[i][k] as usize], s).matrix().transform_point3(rest) * skin.weights[i][k]).sum()
    }

    /// A joint turning 90° about z (and moving) in one step: every substep keeps an edge bound to
    /// it rigid to 1e-5 (relative), where lerping the matrices' entries shrinks it to
    /// cos 45° ≈ 0.707 half way; its normals stay unit and turn with it.
    #[test]
    fn a_rigid_turn_stays_rigid_at_every_substep() {
        let turned = JointPose { rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_2), translation: Vec3::new(0.3, 0.0, 0.0), ..IDENTITY };
        let rest = [Vec3::ZERO, Vec3::X];
        let mut skin = posed_skin(&rest, vec![[0; 4]; 2], vec![[1.0, 0.0, 0.0, 0.0]; 2], vec![IDENTITY], vec![turned]);
        let substeps = 10;
        let mut worst = 0.0f32;
        for k in 1..=substeps {
            let s = k as f32 / substeps as f32;
            skin.frames_at(s);
            // Backstop centres 1 m behind the pose: the normals, as pose − centre.
            let (mut pose, mut centres) = ([Vec3A::ZERO; 2], [Vec3A::ZERO; 2]);
            skin.place(s, &mut pose, Some((&mut centres, &[0.5; 2], &[0.5; 2])));
            let normals = [pose[0] - centres[0], pose[1] - centres[1]];
            let length = pose[0].distance(pose[1]);
            worst = worst.max((length - 1.0).abs());
            for i in 0..2 {
                assert!(Vec3::from(pose[i]).distance(lbs_at(&skin, i, rest[i], s)) < 1e-5);
                assert!(normals[i].distance(Vec3A::Z) < 1e-6, "{}", normals[i]);
            }
        }
        assert!(worst < 1e-5, "{worst}");
        let lerped = Mat4::IDENTITY * 0.5 + turned.matrix() * 0.5;
        let shrunk = lerped.transform_point3(rest[0]).distance(lerped.transform_point3(rest[1]));
        assert!((shrunk - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-5, "{shrunk}");
    }

    /// A vertex blended between a joint that stays and one turning θ = 60° about z: at every
    /// substep within the stated bound w·r·(1 − cos(θ/2)) of per-substep LBS, exactly on it at
    /// the step's ends, and (being the same motion) on it when both joints turn together.
    #[test]
    fn a_blended_vertex_stays_within_the_chord_bound_of_per_substep_lbs() {
        let theta = std::f32::consts::FRAC_PI_3;
        let turned = JointPose { rotation: Quat::from_rotation_z(theta), ..IDENTITY };
        let rest = [Vec3::new(0.8, 0.3, 0.1)];
        let (w, r) = (0.3f32, rest[0].length());
        for (start, target, bound) in [
            (vec![IDENTITY, IDENTITY], vec![IDENTITY, turned], w * r * (1.0 - (theta / 2.0).cos())),
            (vec![IDENTITY, IDENTITY], vec![turned, turned], 1e-6),
        ] {
            let mut skin = posed_skin(&rest, vec![[0, 1, 0, 0]], vec![[1.0 - w, w, 0.0, 0.0]], start, target);
            let mut worst = 0.0f32;
            for k in 0..=10 {
                let s = k as f32 / 10.0;
                skin.frames_at(s);
                let mut pose = [Vec3A::ZERO];
                skin.place(s, &mut pose, None);
                let error = Vec3::from(pose[0]).distance(lbs_at(&skin, 0, rest[0], s));
                if k == 0 || k == 10 {
                    assert!(error < 1e-6, "{error} at s = {s}");
                }
                worst = worst.max(error);
            }
            assert!(worst <= bound + 1e-6, "{worst} > {bound}");
            assert!(worst > 0.25 * bound || bound < 1e-5, "the bound is not tight: {worst} vs {bound}");
        }
    }
}
