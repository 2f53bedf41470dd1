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
use crate::constraints::lanes::{LANES, LaneSet, Lanes, V3};
#[cfg(target_arch = "x86_64")]
use crate::constraints::lanes_avx::{Lanes8, avx_available};
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
    pub(crate) fn towards(&self, to: &JointPose, s: f32) -> JointPose {
        JointPose {
            scale: self.scale.lerp(to.scale, s),
            rotation: self.rotation.slerp(to.rotation, s).normalize(),
            translation: self.translation.lerp(to.translation, s),
        }
    }
}

/// Positions and normals in the dominant joints' frames, component by component (lane-wise
/// loads): `x[c][k]`, `n[c][k]` for the k-th particle of [`Skin::order`].
#[derive(Clone, Debug)]
pub(crate) struct LocalPose {
    pub x: [Vec<f32>; 3],
    pub n: [Vec<f32>; 3],
}

impl LocalPose {
    fn new(n: usize) -> LocalPose {
        LocalPose { x: std::array::from_fn(|_| vec![0.0; n]), n: std::array::from_fn(|_| vec![0.0; n]) }
    }

    /// Become a copy of `other`, reusing the buffers (no allocation once sized).
    pub(crate) fn copy_from(&mut self, other: &LocalPose) {
        for c in 0..3 {
            self.x[c].clone_from(&other.x[c]);
            self.n[c].clone_from(&other.n[c]);
        }
    }

    fn set(&mut self, k: usize, x: Vec3A, n: Vec3A) {
        for c in 0..3 {
            (self.x[c][k], self.n[c][k]) = (x[c], n[c]);
        }
    }
}

/// Particles ordered by their dominant joint, and each joint's run (joint, first, end).
fn dominant_order(dominant: &[u32]) -> (Vec<u32>, Vec<(u32, u32, u32)>) {
    let mut order: Vec<u32> = (0..dominant.len() as u32).collect();
    order.sort_by_key(|&i| dominant[i as usize]);
    let mut runs: Vec<(u32, u32, u32)> = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if run.0 == dominant[i as usize] => run.2 = k as u32 + 1,
            _ => runs.push((dominant[i as usize], k as u32, k as u32 + 1)),
        }
    }
    (order, runs)
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
    /// The skinning matrices (world · inverse bind) of the step's end, per joint.
    pub matrices: Vec<Mat4>,
    /// The particles in the order of their dominant joint (the largest weight, the first of
    /// equal ones), and per joint (joint, first, end) of its run in that order.
    pub order: Vec<u32>,
    pub runs: Vec<(u32, u32, u32)>,
    /// In that order: the pose's position J⁻¹·a \[m\] and normal R⁻¹·n in the dominant joint's
    /// frame (J the joint's world transform, R its rotation) at the start and the end of the step.
    pub local_start: LocalPose,
    pub local_target: LocalPose,
    /// Per joint: its world transform and rotation at the current substep (scratch).
    pub frames: Vec<Mat4>,
    pub rotations: Vec<Mat3A>,
}

impl Skin {
    /// The step's end pose from the joints' `target`: the skinning matrices, every particle
    /// skinned from its rest position `rest` \[m\] into `pose` \[m\] and unit `normals`, and both
    /// in the dominant joints' frames.
    pub(crate) fn pose_target(&mut self, rest: &[Vec3], pose: &mut [Vec3], normals: &mut [Vec3]) {
        self.matrices_at_target();
        self.skin_all(rest, pose, normals);
        self.localise_target(pose, normals);
    }

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
        for &(j, first, end) in &self.runs {
            let (f, r) = (self.frames[j as usize], self.rotations[j as usize]);
            for k in first as usize..end as usize {
                let i = self.order[k] as usize;
                self.local_target.set(k, f.transform_point3a(pose[i].into()), r * Vec3A::from(normals[i]));
            }
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
    pub fn place(&self, s: f32, pose: &mut [Vec3A], mut backstops: Option<(&mut [Vec3A], &[f32], &[f32])>) {
        #[cfg(target_arch = "x86_64")]
        if avx_available() {
            // SAFETY: the CPU has AVX (checked above).
            return unsafe { self.place_avx(s, pose, &mut backstops) };
        }
        self.place_lane_wise::<LANES, Lanes>(s, pose, &mut backstops);
    }

    /// [`Self::place`] 8 particles at a time.
    ///
    /// # Safety
    /// The CPU must have AVX.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn place_avx(&self, s: f32, pose: &mut [Vec3A], backstops: &mut Option<(&mut [Vec3A], &[f32], &[f32])>) {
        self.place_lane_wise::<8, Lanes8>(s, pose, backstops);
    }

    /// [`Self::place`] with `N` lanes over each joint's run (its matrix the same in every lane),
    /// the rest of a run one by one, with the operations of glam's lerp, point transform and
    /// matrix-vector product in their order: the same bits at any width.
    #[inline(always)]
    fn place_lane_wise<const N: usize, L: LaneSet<N>>(&self, s: f32, pose: &mut [Vec3A], backstops: &mut Option<(&mut [Vec3A], &[f32], &[f32])>) {
        let (from, to) = (&self.local_start, &self.local_target);
        let (ls, lt) = (L::splat(1.0 - s), L::splat(s));
        let lerp = |a: &[Vec<f32>; 3], b: &[Vec<f32>; 3], k: usize| {
            let c = |c: usize| L::load(&a[c], k) * ls + L::load(&b[c], k) * lt;
            V3 { x: c(0), y: c(1), z: c(2) }
        };
        for &(j, first, end) in &self.runs {
            let (f, r) = (self.frames[j as usize], self.rotations[j as usize]);
            let (first, end) = (first as usize, end as usize);
            let whole = first + (end - first) / N * N;
            for k in (first..whole).step_by(N) {
                let p = lerp(&from.x, &to.x, k);
                let axis = |a: glam::Vec4| V3 { x: L::splat(a.x), y: L::splat(a.y), z: L::splat(a.z) };
                let (fx, fy, fz, fw) = (axis(f.x_axis), axis(f.y_axis), axis(f.z_axis), axis(f.w_axis));
                let point = V3 {
                    x: fw.x + (fz.x * p.z + (fy.x * p.y + fx.x * p.x)),
                    y: fw.y + (fz.y * p.z + (fy.y * p.y + fx.y * p.x)),
                    z: fw.z + (fz.z * p.z + (fy.z * p.y + fx.z * p.x)),
                };
                let rows = L::lanes_to_rows(point);
                for (l, row) in rows.iter().enumerate() {
                    pose[self.order[k + l] as usize] = Vec3A::from_vec4(*row);
                }
                if let Some((centres, distance, radius)) = backstops {
                    let n = lerp(&from.n, &to.n, k);
                    let axis = |a: Vec3A| V3 { x: L::splat(a.x), y: L::splat(a.y), z: L::splat(a.z) };
                    let (rx, ry, rz) = (axis(r.x_axis), axis(r.y_axis), axis(r.z_axis));
                    let normal = V3 {
                        x: rx.x * n.x + ry.x * n.y + rz.x * n.z,
                        y: rx.y * n.x + ry.y * n.y + rz.y * n.z,
                        z: rx.z * n.x + ry.z * n.y + rz.z * n.z,
                    };
                    for (l, (row, n)) in rows.iter().zip(L::lanes_to_rows(normal)).enumerate() {
                        let i = self.order[k + l] as usize;
                        centres[i] = Vec3A::from_vec4(*row) - Vec3A::from_vec4(n) * (distance[i] + radius[i]);
                    }
                }
            }
            for k in whole..end {
                let i = self.order[k] as usize;
                let at = |v: &[Vec<f32>; 3]| Vec3A::new(v[0][k], v[1][k], v[2][k]);
                pose[i] = f.transform_point3a(at(&from.x).lerp(at(&to.x), s));
                if let Some((centres, distance, radius)) = backstops {
                    centres[i] = pose[i] - r * at(&from.n).lerp(at(&to.n), s) * (distance[i] + radius[i]);
                }
            }
        }
    }

    /// The step's end moved to fraction `s` ≥ 1 along the joints' motion over it (translation and
    /// scale linearly, rotation by slerp), and the pose `pose` \[m\] and `normals` of the end
    /// skinned again (a long step of level of detail, `super::lod`).
    pub(crate) fn extrapolate_target(&mut self, s: f32, rest: &[Vec3], pose: &mut [Vec3], normals: &mut [Vec3]) {
        for (t, a) in self.target.iter_mut().zip(&self.start) {
            *t = a.towards(t, s);
        }
        self.pose_target(rest, pose, normals);
    }

    /// The step's end put back to the joints `target` and their local pose `local` (kept before
    /// [`Skin::extrapolate_target`]).
    pub(crate) fn restore_target(&mut self, target: &[JointPose], local: &LocalPose) {
        self.target.copy_from_slice(target);
        self.matrices_at_target();
        self.local_target.copy_from(local);
    }

    /// After a step: the joints and the local pose reached become the next start.
    pub fn finish_step(&mut self) {
        self.start.copy_from_slice(&self.target);
        self.local_start.copy_from(&self.local_target); // in place: a derived `clone_from` allocates
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

/// Relative tolerance of the joint matrix checks: f32 round-off of rotation · scale products and
/// of engine hierarchies chaining them stays far below it, a real shear or projective row above.
pub const MATRIX_TOLERANCE: f32 = 1e-3;

/// Largest accepted ratio |det| / (|c₀|·|c₁|·|c₂|) of a singular matrix's 3 × 3 part (columns cₖ):
/// 1 for orthogonal columns, 0 for a singular matrix (a zero column, or columns in a plane).
const SINGULAR_VOLUME: f32 = 1e-6;

/// Joint `k` of the column-major matrices `name` (`m[12..15]` the translation), checked as an
/// affine transform: finite entries, a nonsingular 3 × 3 part and the last row (0, 0, 0, 1)
/// within [`MATRIX_TOLERANCE`]. With `rigid_scaled` (world matrices) also rotation · axis scale only
/// (columns orthogonal within [`MATRIX_TOLERANCE`] of their lengths' product: no shear) and a
/// translation within ±1e5 m per component. Errors: `InvalidValue` named `name` at position `k`.
fn joint_matrix(m: &[f32; 16], k: usize, name: &'static str, rigid_scaled: bool) -> Result<Mat4, ClothError> {
    let bad = |expected| Err(ClothError::InvalidValue { name, position: k as u32, expected });
    if !m.iter().all(|c| c.is_finite()) {
        return bad("finite matrix entries (no NaN or infinity)");
    }
    let c: [Vec3; 3] = std::array::from_fn(|j| Vec3::new(m[4 * j], m[4 * j + 1], m[4 * j + 2]));
    let lengths = c.map(Vec3::length);
    let volume = lengths[0] * lengths[1] * lengths[2];
    if !(volume > 0.0 && c[0].dot(c[1].cross(c[2])).abs() > SINGULAR_VOLUME * volume) {
        return bad("a nonsingular matrix (no zero scale, columns not in a plane)");
    }
    let t = MATRIX_TOLERANCE;
    if m[3].abs() > t || m[7].abs() > t || m[11].abs() > t || (m[15] - 1.0).abs() > t {
        return bad("an affine matrix: last row (0, 0, 0, 1) within 1e-3");
    }
    if rigid_scaled {
        for (i, j) in [(0, 1), (0, 2), (1, 2)] {
            if c[i].dot(c[j]).abs() > t * lengths[i] * lengths[j] {
                return bad("rotation and scale along the joint's axes only: columns orthogonal within 1e-3 relative (no shear)");
            }
        }
        let limit = crate::mesh::MAX_COORDINATE;
        if m[12..15].iter().any(|x| x.abs() > limit) {
            return bad("a translation within +-1e5 m per component");
        }
    }
    Ok(Mat4::from_cols_array(m))
}

impl Cloth {
    /// Bind the animated pose to a skeleton (`None`: remove the skin). The mesh as created is the
    /// bind pose. From the next [`Cloth::set_joint_matrices`] on the library skins the pose
    /// (linear blend skinning) at each step's end and carries it over the substeps with each
    /// vertex's dominant joint (module docs). Welded copies of a vertex must have the same
    /// joints and weights.
    ///
    /// Errors: `InvalidParameter` (`joint_count`: 0 or above [`MAX_JOINTS`]; `joint_indices`: an index ≥ joint_count or welded copies that differ;
    /// `joint_weights`: negative, non-finite or all 0); `BufferSizeMismatch` (per-vertex arrays
    /// not `vertex_count` long); `InvalidValue` (`inverse_bind_matrices` at the joint's index: a
    /// non-finite entry, a last row other than (0, 0, 0, 1) within [`MATRIX_TOLERANCE`], or a
    /// singular matrix); state unchanged on error.
    pub fn set_skin(&mut self, desc: Option<&SkinDesc>) -> Result<(), ClothError> {
        // Residual statistics read neither the pose nor these values: nothing to settle (the
        // kinematic set's relayout settles them itself); the default floating-point mode only.
        let _fp = crate::fp_env::DefaultFpEnv::enter();
        let Some(desc) = desc else {
            let a = &mut self.state.animation;
            (a.skin, a.pose) = (None, a.pose.unskinned());
            return Ok(());
        };
        let joint_count = desc.inverse_bind_matrices.len();
        if joint_count == 0 || joint_count > MAX_JOINTS as usize {
            return Err(invalid("joint_count", joint_count as f64, "1 ..= 65536 joints"));
        }
        let binds = desc.inverse_bind_matrices.iter().enumerate();
        let inverse_bind = binds.map(|(k, m)| joint_matrix(m, k, "inverse_bind_matrices", false)).collect::<Result<Vec<_>, _>>()?;
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
        let dominant: Vec<u32> = weights.iter().zip(&joints).map(|(w, j)| j[(1..MAX_JOINTS_PER_VERTEX).fold(0, |best, k| if w[k] > w[best] { k } else { best })]).collect();
        let (order, runs) = dominant_order(&dominant);
        self.prepare_animation();
        self.drive_forget();
        self.wake();
        let a = &mut self.state.animation;
        a.pose = a.pose.unskinned();
        a.skin = Some(Box::new(Skin {
            inverse_bind,
            joints,
            weights,
            bind_normals,
            start: vec![identity; joint_count],
            target: vec![identity; joint_count],
            matrices: vec![Mat4::IDENTITY; joint_count],
            order,
            runs,
            local_start: LocalPose::new(n),
            local_target: LocalPose::new(n),
            frames: vec![Mat4::IDENTITY; joint_count],
            rotations: vec![Mat3A::IDENTITY; joint_count],
        }));
        Ok(())
    }

    /// The joints' world matrices reached by the end of the next step (`[f32; 16] × joint_count`,
    /// column-major, `m[12..15]` the translation within ±1e5 m; rotation, translation and a
    /// nonzero scale along the joint's axes only, the last row (0, 0, 0, 1)). The step's end pose is skinned from them (LBS); every
    /// substep carries each vertex with its dominant joint interpolated from the last step's
    /// matrices (the first call: these, and the cloth is put on the pose as
    /// [`Cloth::set_animated_pose`] says), module docs.
    /// Replaces a pose given by [`Cloth::set_animated_pose`].
    ///
    /// Errors: `InvalidParameter` (`skin`: no skin set), `BufferSizeMismatch` (not `joint_count`
    /// matrices), `InvalidValue` (`joint_matrices` at the first bad joint's index: a non-finite
    /// entry, a translation beyond ±1e5 m, a last row other than (0, 0, 0, 1), a singular matrix
    /// or a shear: columns not orthogonal within [`MATRIX_TOLERANCE`] relative, which accepts
    /// f32 round-off of real engines' rotation · scale products); state unchanged on error.
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
        // Every matrix checked before any is taken (unchanged on error), then decomposed into the
        // targets in place: no allocation per frame.
        for (k, m) in matrices.iter().enumerate() {
            joint_matrix(m, k, "joint_matrices", true)?;
        }
        let rest = &self.model.rest;
        let a = &mut self.state.animation;
        let skin = a.skin.as_deref_mut().expect("checked above");
        let mut moved = !a.pose.skinned();
        for (k, (m, pose)) in matrices.iter().zip(skin.target.iter_mut()).enumerate() {
            let (scale, rotation, translation) = joint_matrix(m, k, "joint_matrices", true)?.to_scale_rotation_translation();
            let given = JointPose { scale, rotation: rotation.normalize(), translation };
            moved |= *pose != given;
            *pose = given;
        }
        skin.pose_target(rest, &mut a.target, &mut a.normal_target);
        if !a.pose.skinned() {
            // The first skinned pose: the substeps start where the step ends.
            skin.start.copy_from_slice(&skin.target);
            skin.local_start.copy_from(&skin.local_target);
            self.drive.from_set = false;
        }
        if moved {
            self.wake(); // joints that move; the same matrices every frame let the cloth sleep
        }
        self.pose_given(true);
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
        let dominant: Vec<u32> = joints.iter().zip(&weights).map(|(j, w)| j[(0..4).fold(0, |b, k| if w[k] > w[b] { k } else { b })]).collect();
        let (order, runs) = dominant_order(&dominant);
        let mut skin = Skin {
            inverse_bind: vec![Mat4::IDENTITY; j],
            joints,
            weights,
            bind_normals: vec![Vec3::Z; n],
            start: start.clone(),
            target: start,
            matrices: vec![Mat4::IDENTITY; j],
            order,
            runs,
            local_start: LocalPose::new(n),
            local_target: LocalPose::new(n),
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

    /// The lane-wise placement (4 lanes, and 8 where the CPU has AVX) gives the bits of placing
    /// each particle one by one (its joint's transform of its lerped local position, the rotation
    /// of its lerped local normal): 61 particles over 3 turning, moving, scaled joints (runs of
    /// 20 or more, no multiple of a width), 2 unequal weights each.
    #[test]
    fn lane_wise_placement_equals_one_by_one() {
        let n = 61;
        let rest: Vec<Vec3> = (0..n).map(|i| Vec3::new((i % 8) as f32 * 0.1, (i / 8) as f32 * -0.1, 0.01 * i as f32)).collect();
        let joints: Vec<[u32; 4]> = (0..n).map(|i| [(i % 3) as u32, ((i + 1) % 3) as u32, 0, 0]).collect();
        let weights = vec![[0.7, 0.3, 0.0, 0.0]; n];
        let pose = |k: f32| -> Vec<JointPose> {
            (0..3).map(|j| JointPose { scale: Vec3::splat(1.0 + 0.05 * j as f32), rotation: Quat::from_rotation_y(k * (0.3 + 0.2 * j as f32)), translation: Vec3::new(k * 0.1, 0.2 * j as f32, 0.0) }).collect()
        };
        let mut skin = posed_skin(&rest, joints, weights, pose(0.0), pose(1.0));
        let (b, r) = (vec![0.01f32; n], vec![0.3f32; n]);
        let s = 0.3;
        skin.frames_at(s);
        let mut expected = (vec![Vec3A::ZERO; n], vec![Vec3A::ZERO; n]);
        for &(j, first, end) in &skin.runs {
            for k in first as usize..end as usize {
                let i = skin.order[k] as usize;
                let at = |v: &[Vec<f32>; 3]| Vec3A::new(v[0][k], v[1][k], v[2][k]);
                let (from, to) = (&skin.local_start, &skin.local_target);
                expected.0[i] = skin.frames[j as usize].transform_point3a(at(&from.x).lerp(at(&to.x), s));
                expected.1[i] = expected.0[i] - skin.rotations[j as usize] * at(&from.n).lerp(at(&to.n), s) * (b[i] + r[i]);
            }
        }
        assert!(skin.runs.iter().all(|&(_, first, end)| end - first >= 20));
        let bits = |v: &[Vec3A]| v.iter().flat_map(|p| p.to_array().map(f32::to_bits)).collect::<Vec<_>>();
        let mut four = (vec![Vec3A::ZERO; n], vec![Vec3A::ZERO; n]);
        skin.place_lane_wise::<LANES, Lanes>(s, &mut four.0, &mut Some((&mut four.1, &b, &r)));
        assert!(bits(&four.0) == bits(&expected.0) && bits(&four.1) == bits(&expected.1), "4 lanes");
        #[cfg(target_arch = "x86_64")]
        if avx_available() {
            let mut eight = (vec![Vec3A::ZERO; n], vec![Vec3A::ZERO; n]);
            // SAFETY: the CPU has AVX (checked above).
            unsafe { skin.place_avx(s, &mut eight.0, &mut Some((&mut eight.1, &b, &r))) };
            assert!(bits(&eight.0) == bits(&expected.0) && bits(&eight.1) == bits(&expected.1), "8 lanes");
        }
        let mut positions_only = vec![Vec3A::ZERO; n];
        skin.place(s, &mut positions_only, None);
        assert!(bits(&positions_only) == bits(&expected.0));
    }
}
