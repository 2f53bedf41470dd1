//! A Skeleton3D's skin to the core's skin binding (docs/design.md, "Character cloth"): Godot's
//! `ARRAY_BONES` / `ARRAY_WEIGHTS` (4 or 8 per vertex) to 4 joints and weights per vertex, and the
//! Skin's bind poses and the bones' global poses to the inverse bind and joint world matrices
//! (`Cloth::set_skin`, `Cloth::set_joint_matrices`), column-major `[f32; 16]`.
//!
//! Godot skins a mesh-space vertex v as skeleton · bone_global · bind_pose · v. The cloth's rest
//! mesh is that mesh placed in the world at creation, x_rest = mesh_to_world · v, so its inverse
//! bind is bind_pose · mesh_to_world⁻¹ and its joint world matrix skeleton · bone_global.

use glam::{Affine3A, Mat4};
use std::fmt;

/// Bone data that does not describe the surface's vertices.
#[derive(Clone, Debug, PartialEq)]
pub enum SkinError {
    /// `ARRAY_BONES` and `ARRAY_WEIGHTS` are not 4 or 8 entries per vertex (or differ).
    Layout {
        /// Entries of `ARRAY_BONES`.
        bones: usize,
        /// Entries of `ARRAY_WEIGHTS`.
        weights: usize,
        /// Vertices of the surface.
        vertex_count: usize,
    },
    /// A bone index outside the skin's bind poses.
    Bone {
        /// The vertex.
        vertex: usize,
        /// The bone index it names.
        bone: i64,
        /// Bind poses of the skin.
        bone_count: usize,
    },
}

impl fmt::Display for SkinError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SkinError::Layout { bones, weights, vertex_count } => write!(
                f,
                "ARRAY_BONES has {bones} and ARRAY_WEIGHTS {weights} entries for {vertex_count} vertices: need 4 or 8 of each per vertex"
            ),
            SkinError::Bone { vertex, bone, bone_count } => write!(f, "vertex {vertex} uses bone {bone}, but the skin has {bone_count} bind poses"),
        }
    }
}

/// Per vertex the (up to) 4 heaviest of Godot's bones and their weights: `bones` (`i32`) and
/// `weights` (`f32`), 4 or 8 per vertex of `vertex_count`; each bone index below `bone_count`
/// where its weight is not 0. The core normalises the weights.
pub fn joints_and_weights(bones: &[i32], weights: &[f32], vertex_count: usize, bone_count: usize) -> Result<(Vec<[u32; 4]>, Vec<[f32; 4]>), SkinError> {
    let layout = SkinError::Layout { bones: bones.len(), weights: weights.len(), vertex_count };
    if vertex_count == 0 || bones.len() != weights.len() || bones.len() % vertex_count != 0 {
        return Err(layout);
    }
    let per = bones.len() / vertex_count;
    if per != 4 && per != 8 {
        return Err(layout);
    }
    let (mut joints, mut out_weights) = (Vec::with_capacity(vertex_count), Vec::with_capacity(vertex_count));
    for v in 0..vertex_count {
        let mut pairs: Vec<(i32, f32)> = (0..per).map(|k| (bones[v * per + k], weights[v * per + k])).collect();
        // Heaviest first; ties keep Godot's order.
        pairs.sort_by(|a, b| b.1.total_cmp(&a.1));
        let (mut j, mut w) = ([0u32; 4], [0f32; 4]);
        for (k, &(bone, weight)) in pairs.iter().take(4).enumerate() {
            if weight != 0.0 && !(0..bone_count as i64).contains(&(bone as i64)) {
                return Err(SkinError::Bone { vertex: v, bone: bone as i64, bone_count });
            }
            (j[k], w[k]) = (if weight != 0.0 { bone as u32 } else { 0 }, weight);
        }
        joints.push(j);
        out_weights.push(w);
    }
    Ok((joints, out_weights))
}

/// The inverse bind matrices of a cloth created from the mesh placed by `mesh_to_world`: per bind
/// pose of the Skin, bind_pose · mesh_to_world⁻¹.
pub fn inverse_bind_matrices(bind_poses: &[Affine3A], mesh_to_world: Affine3A) -> Vec<[f32; 16]> {
    let to_mesh = mesh_to_world.inverse();
    bind_poses.iter().map(|b| Mat4::from(*b * to_mesh).to_cols_array()).collect()
}

/// The joints' world matrices of a tick: skeleton_to_world · bone global pose, per bone.
pub fn joint_matrices(
    skeleton_to_world: Affine3A,
    bone_global_poses: &[Affine3A],
) -> Vec<[f32; 16]> {
    let mut out = vec![[0.0; 16]; bone_global_poses.len()];
    write_joint_matrices(skeleton_to_world, bone_global_poses, &mut out);
    out
}

/// [`joint_matrices`] into `out` (one per pose; no allocation, for every physics tick).
pub fn write_joint_matrices(
    skeleton_to_world: Affine3A,
    bone_global_poses: &[Affine3A],
    out: &mut [[f32; 16]],
) {
    for (o, b) in out.iter_mut().zip(bone_global_poses) {
        *o = Mat4::from(skeleton_to_world * *b).to_cols_array();
    }
}

/// The skeleton's pose as the core's reference frame (`Cloth::set_reference_frame`): position
/// \[m\] and unit rotation `[x, y, z, w]`, local → world; a scale is dropped.
pub fn reference_frame(skeleton_to_world: Affine3A) -> ([f32; 3], [f32; 4]) {
    let (_, rotation, translation) = skeleton_to_world.to_scale_rotation_translation();
    (translation.to_array(), rotation.normalize().to_array())
}

/// A surface's skin ready for `Cloth::set_skin`: inverse bind matrices per bind (joint) and 4
/// joints and weights per render vertex, welded copies given their first copy's joints and weights.
#[derive(Clone, Debug, PartialEq)]
pub struct SkinBinding {
    /// bind_pose · mesh_to_world⁻¹ per bind, column-major.
    pub inverse_bind: Vec<[f32; 16]>,
    /// Joint (bind) indices per render vertex.
    pub joints: Vec<[u32; 4]>,
    /// Their weights (the core normalises them).
    pub weights: Vec<[f32; 4]>,
}

impl SkinBinding {
    /// From the surface's `ARRAY_BONES` / `ARRAY_WEIGHTS` (see [`joints_and_weights`]), the Skin's
    /// bind poses and the mesh's placement at creation, for the cloth whose render vertex →
    /// particle map is `particle_of_vertex` (`Cloth::particle_map`). Errors: [`SkinError`].
    pub fn new(
        bones: &[i32],
        weights: &[f32],
        bind_poses: &[Affine3A],
        mesh_to_world: Affine3A,
        particle_of_vertex: &[u32],
    ) -> Result<Self, SkinError> {
        let (mut joints, mut w) =
            joints_and_weights(bones, weights, particle_of_vertex.len(), bind_poses.len())?;
        super::limits::unify_welded(particle_of_vertex, &mut joints);
        super::limits::unify_welded(particle_of_vertex, &mut w);
        Ok(SkinBinding {
            inverse_bind: inverse_bind_matrices(bind_poses, mesh_to_world),
            joints,
            weights: w,
        })
    }

    /// The core's descriptor borrowing these arrays.
    pub fn desc(&self) -> xpbd_cloth::SkinDesc<'_> {
        xpbd_cloth::SkinDesc {
            inverse_bind_matrices: &self.inverse_bind,
            joint_indices: &self.joints,
            joint_weights: &self.weights,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec3};

    /// Through these conversions and the core's LBS (Σ w·(J·B)·x_rest with x_rest =
    /// mesh_to_world·v) a vertex lands where Godot's formula (skeleton · bone_global · bind_pose ·
    /// v, blended by weight) puts it.
    #[test]
    fn converted_skin_places_a_vertex_where_godot_does() {
        let mesh_to_world = Affine3A::from_scale_rotation_translation(Vec3::splat(1.5), Quat::from_rotation_y(0.4), Vec3::new(1.0, 2.0, 3.0));
        let skeleton = Affine3A::from_rotation_translation(Quat::from_rotation_x(0.3), Vec3::new(-2.0, 0.5, 0.0));
        let bind: Vec<Affine3A> = (0..3).map(|k| Affine3A::from_translation(Vec3::new(0.1 * k as f32, -0.2, 0.0))).collect();
        let globals: Vec<Affine3A> =
            (0..3).map(|k| Affine3A::from_rotation_translation(Quat::from_rotation_z(0.2 * k as f32), Vec3::new(0.0, 0.3 * k as f32, 0.1))).collect();
        let v = Vec3::new(0.2, -0.4, 0.05);
        let bones = [2, 0, 1, 0, 0, 0, 0, 0];
        let weights = [0.5, 0.3, 0.2, 0.0, 0.0, 0.0, 0.0, 0.0];
        let (j, w) = joints_and_weights(&bones, &weights, 1, 3).unwrap();
        let (ib, jm) = (inverse_bind_matrices(&bind, mesh_to_world), joint_matrices(skeleton, &globals));
        let rest = mesh_to_world.transform_point3(v);
        let mut ours = Vec3::ZERO;
        for k in 0..4 {
            let m = Mat4::from_cols_array(&jm[j[0][k] as usize]) * Mat4::from_cols_array(&ib[j[0][k] as usize]);
            ours += m.transform_point3(rest) * w[0][k];
        }
        let mut godot = Vec3::ZERO;
        for k in 0..3 {
            godot += (skeleton * globals[bones[k] as usize] * bind[bones[k] as usize]).transform_point3(v) * weights[k];
        }
        assert!((ours - godot).length() < 1e-5, "{ours} vs {godot}");
    }

    /// Through the core: a cloth created from a Godot-skinned surface (a split seam whose copy's
    /// weights differ by rounding), max distance 0, its bones moved: every read-back position is
    /// Godot's skinned vertex (the bones' poses of the last tick).
    #[test]
    fn a_kinematic_cloth_reads_back_godots_skinned_pose() {
        use xpbd_cloth::{ClothDesc, World, WorldDesc};
        let mesh_to_world = Affine3A::from_scale_rotation_translation(
            Vec3::splat(1.2),
            Quat::from_rotation_y(0.7),
            Vec3::new(0.5, 1.0, -1.0),
        );
        let skeleton = Affine3A::from_rotation_translation(
            Quat::from_rotation_x(-0.2),
            Vec3::new(0.0, 0.4, 0.3),
        );
        let bind: Vec<Affine3A> = (0..2)
            .map(|k| Affine3A::from_translation(Vec3::new(-0.5 * k as f32, -1.0, 0.0)))
            .collect();
        // A 4 × 4 grid in the mesh's space plus a copy of vertex 0 on a seam.
        let mut local: Vec<[f32; 3]> = (0..16)
            .map(|i| [(i % 4) as f32 * 0.3, 1.0 - (i / 4) as f32 * 0.3, 0.0])
            .collect();
        local.push(local[0]);
        let mut indices = Vec::new();
        for r in 0..3u32 {
            for c in 0..3u32 {
                let v = r * 4 + c;
                indices.extend_from_slice(&[v, v + 4, v + 1, v + 1, v + 4, v + 5]);
            }
        }
        indices[0] = 16;
        let n = local.len();
        let (mut bones, mut weights) = (Vec::new(), Vec::new());
        for p in &local {
            bones.extend_from_slice(&[0, 1, 0, 0]);
            weights.extend_from_slice(&[0.3 + p[0], 0.7 - 0.5 * p[1] + 0.5, 0.0, 0.0]);
        }
        weights[4 * 16] += 1e-7;
        let rest: Vec<[f32; 3]> = local
            .iter()
            .map(|&v| {
                mesh_to_world
                    .transform_point3(Vec3::from_array(v))
                    .to_array()
            })
            .collect();
        let mut world = World::new(WorldDesc {
            thread_count: 1,
            ..WorldDesc::default()
        })
        .unwrap();
        let handle = world.add_cloth(&ClothDesc::new(&rest, &indices)).unwrap();
        let cloth = world.cloth_mut(handle).unwrap();
        let binding =
            SkinBinding::new(&bones, &weights, &bind, mesh_to_world, cloth.particle_map()).unwrap();
        cloth.set_skin(Some(&binding.desc())).unwrap();
        cloth.set_max_distances(Some(&vec![0.0; n])).unwrap();
        let mut worst = 0.0f32;
        for tick in 1..=4 {
            let s = tick as f32 / 4.0;
            let globals = [
                Affine3A::from_rotation_translation(
                    Quat::from_rotation_z(0.8 * s),
                    Vec3::new(0.0, 1.0 + s, 0.0),
                ),
                Affine3A::from_scale_rotation_translation(
                    Vec3::splat(1.0 + 0.2 * s),
                    Quat::from_rotation_x(-s),
                    Vec3::new(0.5, 1.0, s),
                ),
            ];
            world
                .cloth_mut(handle)
                .unwrap()
                .set_joint_matrices(&joint_matrices(skeleton, &globals))
                .unwrap();
            world.step(1.0 / 60.0).unwrap();
            let mut x = vec![[0.0; 3]; n];
            world.cloth(handle).unwrap().read_positions(&mut x).unwrap();
            for (i, &v) in local.iter().enumerate() {
                let src = if i == 16 { 0 } else { i };
                let (w0, w1) = (weights[4 * src], weights[4 * src + 1]);
                let godot = ((skeleton * globals[0] * bind[0])
                    .transform_point3(Vec3::from_array(v))
                    * w0
                    + (skeleton * globals[1] * bind[1]).transform_point3(Vec3::from_array(v)) * w1)
                    / (w0 + w1);
                worst = worst.max((Vec3::from_array(x[i]) - godot).length());
            }
        }
        assert!(worst < 2e-5, "{worst} m from Godot's skinning");
    }

    #[test]
    fn bad_layouts_and_bones_are_named() {
        assert!(matches!(joints_and_weights(&[0; 6], &[0.0; 6], 1, 1), Err(SkinError::Layout { .. })));
        assert!(matches!(joints_and_weights(&[0; 4], &[0.0; 8], 1, 1), Err(SkinError::Layout { .. })));
        let e = joints_and_weights(&[5, 0, 0, 0], &[1.0, 0.0, 0.0, 0.0], 1, 2).unwrap_err();
        assert_eq!(e, SkinError::Bone { vertex: 0, bone: 5, bone_count: 2 });
        assert!(e.to_string().contains("bone 5"));
        // Eight per vertex: the four heaviest.
        let (j, w) = joints_and_weights(&[0, 1, 2, 3, 4, 5, 6, 7], &[0.05, 0.1, 0.3, 0.0, 0.2, 0.05, 0.25, 0.05], 1, 8).unwrap();
        assert_eq!((j[0], w[0]), ([2, 6, 4, 1], [0.3, 0.25, 0.2, 0.1]));
    }
}
