//! The link between a worn cloth and the Skeleton3D that animates it: the skin binding from the
//! surface's `ARRAY_BONES` / `ARRAY_WEIGHTS` and the Skin's bind poses once, the bones' global
//! poses each physics tick (through [`crate::convert::skin`]), and the mesh instance unskinned
//! while the cloth draws it (Godot would otherwise skin the simulated vertices again).

use super::surface_link::SurfaceArrays;
use super::to_affine;
use crate::convert::skin::{SkinBinding, reference_frame, write_joint_matrices};
use glam::Affine3A;
use godot::builtin::NodePath;
use godot::classes::{MeshInstance3D, Skeleton3D, Skin};
use godot::obj::Gd;
use xpbd_cloth::Cloth;

/// What a worn cloth keeps of its skeleton.
pub struct SkeletonLink {
    skeleton: Gd<Skeleton3D>,
    /// Skeleton bone of each bind (joint).
    bind_bones: Vec<i32>,
    /// Scratch of a tick: bone global poses and joint world matrices, one per bind.
    globals: Vec<Affine3A>,
    matrices: Vec<[f32; 16]>,
    /// The mesh instance's own skeleton path, given back on release.
    saved_path: NodePath,
}

impl SkeletonLink {
    /// Bind `cloth` (created from `surface` placed by `mesh_to_world`) to `skeleton`: the
    /// instance's Skin (or one made from the skeleton's rest) gives the bind poses. Errors: a
    /// readable message (no bones or weights, a bind naming no bone, the core's checks); nothing
    /// of the instance changes then.
    pub fn attach(
        skeleton: Gd<Skeleton3D>,
        instance: &Gd<MeshInstance3D>,
        surface: &SurfaceArrays,
        mesh_to_world: Affine3A,
        cloth: &mut Cloth,
    ) -> Result<Self, String> {
        let (Some(bones), Some(weights)) = (surface.bones.as_deref(), surface.weights.as_deref())
        else {
            return Err(
                "the skeleton is set, but surface 0 has no ARRAY_BONES / ARRAY_WEIGHTS".into(),
            );
        };
        let skin: Gd<Skin> = match instance.get_skin() {
            Some(s) => s,
            None => skeleton
                .clone()
                .create_skin_from_rest_transforms()
                .ok_or("the skeleton made no skin from its rest")?,
        };
        let bone_count = skeleton.get_bone_count();
        let (mut bind_poses, mut bind_bones) = (Vec::new(), Vec::new());
        for i in 0..skin.get_bind_count() {
            let mut bone = skin.get_bind_bone(i);
            if bone < 0 {
                bone = skeleton.find_bone(&skin.get_bind_name(i).to_string());
            }
            if !(0..bone_count).contains(&bone) {
                return Err(format!(
                    "skin bind {i} ('{}') names no bone of the skeleton",
                    skin.get_bind_name(i)
                ));
            }
            bind_poses.push(to_affine(&skin.get_bind_pose(i)));
            bind_bones.push(bone);
        }
        let binding = SkinBinding::new(
            bones,
            weights,
            &bind_poses,
            mesh_to_world,
            cloth.particle_map(),
        )
        .map_err(|e| e.to_string())?;
        cloth
            .set_skin(Some(&binding.desc()))
            .map_err(|e| e.to_string())?;
        let n = bind_bones.len();
        let saved_path = instance.get_skeleton_path();
        Ok(SkeletonLink {
            skeleton,
            bind_bones,
            globals: vec![Affine3A::IDENTITY; n],
            matrices: vec![[0.0; 16]; n],
            saved_path,
        })
    }

    /// Stop Godot skinning the instance (its runtime mesh copy has no bones either).
    pub fn unskin(&self, instance: &mut Gd<MeshInstance3D>) {
        instance.set_skeleton_path(&NodePath::default());
    }

    /// Give the instance its skeleton back.
    pub fn restore(&self, instance: &mut Gd<MeshInstance3D>) {
        instance.set_skeleton_path(&self.saved_path);
    }

    /// The bones' world matrices and the skeleton's pose (the reference frame of local-space
    /// inertia) for the end of the next step. Errors: the skeleton was freed; the core's checks.
    pub fn send(&mut self, cloth: &mut Cloth) -> Result<(), String> {
        if !self.skeleton.is_instance_valid() {
            return Err("the Skeleton3D was freed".into());
        }
        let skeleton_to_world = to_affine(&self.skeleton.get_global_transform());
        for (g, &bone) in self.globals.iter_mut().zip(&self.bind_bones) {
            *g = to_affine(&self.skeleton.get_bone_global_pose(bone));
        }
        write_joint_matrices(skeleton_to_world, &self.globals, &mut self.matrices);
        cloth
            .set_joint_matrices(&self.matrices)
            .map_err(|e| e.to_string())?;
        let (position, rotation) = reference_frame(skeleton_to_world);
        cloth
            .set_reference_frame(position, rotation)
            .map_err(|e| e.to_string())
    }
}
