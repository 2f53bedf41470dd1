//! Linear blend skinning of the animated pose by the library (docs/design.md, "Character
//! cloth"): a binding set once (inverse bind matrices, up to 4 joints and weights per vertex),
//! then the joints' world matrices per step. A substep's pose is skinned with the joint
//! transforms interpolated between the last step's and the new ones by translation (lerp),
//! rotation (slerp) and scale (lerp), never entry-wise: a lerped rotation matrix shrinks what it
//! turns (a 90° turn to cos 45° ≈ 0.71 of its length half way).

use super::Cloth;
use crate::error::ClothError;
use glam::{Mat3, Mat4, Quat, Vec3};

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
    /// The skinning matrices of the current substep (world · inverse bind), per joint.
    pub matrices: Vec<Mat4>,
}

impl Skin {
    /// The skinning matrices at fraction `s` of the step (exactly the targets' at s ≥ 1).
    pub fn matrices_at(&mut self, s: f32) {
        for ((m, (a, b)), inverse) in self.matrices.iter_mut().zip(self.start.iter().zip(&self.target)).zip(&self.inverse_bind) {
            let pose = if s >= 1.0 { *b } else { a.towards(b, s) };
            *m = pose.matrix() * *inverse;
        }
    }

    /// Particle `i` skinned with the current matrices: its position \[m\] from the rest position
    /// `rest` and its unit normal (LBS: x = Σ wₖ·Mₖ·x_rest).
    #[inline]
    pub fn skin(&self, i: usize, rest: Vec3) -> (Vec3, Vec3) {
        let m = self.blend(i);
        (m.transform_point3(rest), (Mat3::from_mat4(m) * self.bind_normals[i]).normalize_or_zero())
    }

    /// Particle `i`'s position only (when no backstop needs the normal).
    #[inline]
    pub fn skin_position(&self, i: usize, rest: Vec3) -> Vec3 {
        self.blend(i).transform_point3(rest)
    }

    /// Σ wₖ·Mₖ over particle `i`'s joints.
    #[inline]
    fn blend(&self, i: usize) -> Mat4 {
        let (joints, weights) = (self.joints[i], self.weights[i]);
        let mut m = Mat4::ZERO;
        for k in 0..MAX_JOINTS_PER_VERTEX {
            if weights[k] != 0.0 {
                m += self.matrices[joints[k] as usize] * weights[k];
            }
        }
        m
    }

    pub fn finish_step(&mut self) {
        self.start.copy_from_slice(&self.target);
    }

    /// Carry the joints by the rigid transform x ← q·x + t (a teleport of the cloth).
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
    /// (linear blend skinning) at every substep. Welded copies of a vertex must have the same
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
        }));
        Ok(())
    }

    /// The joints' world matrices reached by the end of the next step (`[f32; 16] × joint_count`,
    /// column-major, `m[12..15]` the translation; rotation, translation and scale only: shear is
    /// not kept by the decomposition). The animated pose is skinned from them (LBS) and every
    /// substep sees the joints interpolated from the last step's matrices (the first call: these).
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
        if !skin.posed || !a.posed {
            skin.start.copy_from_slice(&skin.target);
            skin.posed = true;
        }
        skin.matrices_at(1.0);
        for (i, &r) in rest.iter().enumerate() {
            (a.target[i], a.normal_target[i]) = skin.skin(i, r);
        }
        self.pose_given();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A joint turning 90° about z in one step: every substep's skinning keeps a rigidly bound
    /// edge's length within 1e-5 (relative), where lerping the matrices' entries shrinks it to
    /// cos 45° ≈ 0.707 half way.
    #[test]
    fn slerped_joints_keep_a_rigid_turn_rigid_at_every_substep() {
        let identity = JointPose { scale: Vec3::ONE, rotation: Quat::IDENTITY, translation: Vec3::ZERO };
        let turned = JointPose { rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_2), translation: Vec3::new(0.3, 0.0, 0.0), ..identity };
        let mut skin = Skin {
            inverse_bind: vec![Mat4::IDENTITY],
            joints: vec![[0; 4]; 2],
            weights: vec![[1.0, 0.0, 0.0, 0.0]; 2],
            bind_normals: vec![Vec3::Z; 2],
            start: vec![identity],
            target: vec![turned],
            posed: true,
            matrices: vec![Mat4::IDENTITY],
        };
        let (p, q) = (Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0));
        let substeps = 10;
        let mut worst = 0.0f32;
        for i in 1..=substeps {
            skin.matrices_at(i as f32 / substeps as f32);
            let length = skin.skin(0, p).0.distance(skin.skin(1, q).0);
            worst = worst.max((length - 1.0).abs());
        }
        assert!(worst < 1e-5, "{worst}");
        let lerped = Mat4::IDENTITY * 0.5 + turned.matrix() * 0.5;
        let shrunk = lerped.transform_point3(p).distance(lerped.transform_point3(q));
        assert!((shrunk - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-5, "{shrunk}");
    }
}
