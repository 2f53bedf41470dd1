//! Godot collision shapes in a chosen group kept in step with the world's colliders: every
//! physics tick, each enabled CollisionShape3D of a node in the group (or the node itself) is
//! added, moved (its global transform becomes the pose target of the step), rebuilt when its
//! shape changed, or removed when it left the group or was freed.

use super::to_affine;
use crate::convert::shapes::{GodotShape, collider_desc};
use godot::builtin::StringName;
use godot::classes::{BoxShape3D, CapsuleShape3D, CollisionShape3D, Node, Shape3D, SphereShape3D, WorldBoundaryShape3D};
use godot::global::godot_warn;
use godot::obj::{Gd, InstanceId};
use xpbd_cloth::{ColliderDesc, ColliderHandle, World};

/// One Godot shape node and the core collider that mirrors it.
struct Link {
    node: InstanceId,
    handle: ColliderHandle,
    desc: ColliderDesc,
    seen: bool,
}

/// Friction and layers given to every collider (Godot's shapes carry none of these).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColliderSettings {
    /// Static friction μ_s.
    pub static_friction: f32,
    /// Kinetic friction μ_k.
    pub kinetic_friction: f32,
    /// Collision layers of the colliders (the cloth's mask selects them).
    pub layers: u32,
}

/// The colliders mirrored so far.
#[derive(Default)]
pub struct ColliderSync {
    links: Vec<Link>,
    /// Shape classes already warned about (warn once, not every tick).
    warned: Vec<String>,
    /// Shapes the core rejected, with the description it rejected (warned again only if it changes).
    rejected: Vec<(InstanceId, ColliderDesc)>,
}

/// The bridge's shape for a Godot shape resource; `None` (unsupported class) otherwise.
fn godot_shape(shape: Gd<Shape3D>) -> Result<GodotShape, String> {
    let shape = match shape.try_cast::<SphereShape3D>() {
        Ok(s) => return Ok(GodotShape::Sphere { radius: s.get_radius() as f32 }),
        Err(s) => s,
    };
    let shape = match shape.try_cast::<CapsuleShape3D>() {
        Ok(s) => return Ok(GodotShape::Capsule { radius: s.get_radius() as f32, height: s.get_height() as f32 }),
        Err(s) => s,
    };
    let shape = match shape.try_cast::<BoxShape3D>() {
        Ok(s) => {
            let v = s.get_size();
            return Ok(GodotShape::Box { size: [v.x as f32, v.y as f32, v.z as f32] });
        }
        Err(s) => s,
    };
    match shape.try_cast::<WorldBoundaryShape3D>() {
        Ok(s) => {
            let p = s.get_plane();
            Ok(GodotShape::WorldBoundary { normal: [p.normal.x as f32, p.normal.y as f32, p.normal.z as f32], d: p.d as f32 })
        }
        Err(s) => Err(s.get_class().to_string()),
    }
}

/// The CollisionShape3D nodes a group member contributes: itself, or its direct children.
fn shape_nodes(node: Gd<Node>) -> Vec<Gd<CollisionShape3D>> {
    match node.try_cast::<CollisionShape3D>() {
        Ok(cs) => vec![cs],
        Err(node) => node.get_children().iter_shared().filter_map(|c| c.try_cast::<CollisionShape3D>().ok()).collect(),
    }
}

impl ColliderSync {
    /// Bring `world`'s colliders in line with the shapes of the nodes in `group`.
    pub fn update(&mut self, world: &mut World, tree_root: &Gd<Node>, group: &StringName, settings: ColliderSettings) {
        for link in &mut self.links {
            link.seen = false;
        }
        if !tree_root.is_inside_tree() {
            return;
        }
        let tree = tree_root.get_tree();
        for member in tree.get_nodes_in_group(group).iter_shared() {
            for cs in shape_nodes(member) {
                if cs.is_disabled() || !cs.is_inside_tree() {
                    continue;
                }
                let Some(shape) = cs.get_shape() else { continue };
                let shape = match godot_shape(shape) {
                    Ok(s) => s,
                    Err(class) => {
                        if !self.warned.contains(&class) {
                            godot_warn!("XpbdCloth3D: {class} is not supported as a cloth collider (sphere, capsule, box, world boundary are)");
                            self.warned.push(class);
                        }
                        continue;
                    }
                };
                let transform = to_affine(&cs.get_global_transform());
                let desc = collider_desc(shape, &transform, settings.static_friction, settings.kinetic_friction, settings.layers);
                self.sync_one(world, cs.instance_id(), desc);
            }
        }
        self.links.retain(|link| {
            if !link.seen {
                let _ = world.remove_collider(link.handle);
            }
            link.seen
        });
    }

    fn sync_one(&mut self, world: &mut World, node: InstanceId, desc: ColliderDesc) {
        if let Some(link) = self.links.iter_mut().find(|l| l.node == node) {
            link.seen = true;
            let same_shape = ColliderDesc { pose: link.desc.pose, ..desc } == link.desc;
            if same_shape {
                if let Err(e) = world.set_collider_pose(link.handle, &desc.pose) {
                    godot_warn!("XpbdCloth3D: collider pose rejected: {e}");
                }
                link.desc.pose = desc.pose;
                return;
            }
            let _ = world.remove_collider(link.handle);
            self.links.retain(|l| l.node != node);
        }
        match world.add_collider(&desc) {
            Ok(handle) => {
                self.rejected.retain(|(n, _)| *n != node);
                self.links.push(Link { node, handle, desc, seen: true });
            }
            Err(e) => {
                let same = |(n, d): &(InstanceId, ColliderDesc)| *n == node && ColliderDesc { pose: d.pose, ..desc } == *d;
                if !self.rejected.iter().any(same) {
                    godot_warn!("XpbdCloth3D: collision shape skipped: {e}");
                    self.rejected.retain(|(n, _)| *n != node);
                    self.rejected.push((node, desc));
                }
            }
        }
    }

    /// Number of colliders mirrored.
    pub fn len(&self) -> usize {
        self.links.len()
    }
}
