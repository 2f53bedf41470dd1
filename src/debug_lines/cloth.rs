//! A cloth's debug lines: edges by strain, pins, max distances, backstops, normals, contacts.

use super::{
    BACKSTOP_COLOUR, CONTACT_COLOUR, DEBUG_BACKSTOP, DEBUG_CONTACTS, DEBUG_EDGES, DEBUG_MAX_DISTANCE, DEBUG_NORMALS,
    DEBUG_PINS, MAX_DISTANCE_COLOUR, NORMAL_COLOUR, PIN_COLOUR, Sink, across, strain_colour,
};
use crate::cloth::Cloth;
use crate::collision::ColliderStore;
use glam::{Quat, Vec3};

/// The strain an edge is drawn red at when the cloth has no stretch limit.
const NO_LIMIT_STRAIN: f32 = 0.1;

/// Segments of a max-distance circle.
const CIRCLE_SEGMENTS: u32 = 12;

/// Farther than its collision thickness by this much \[m\], a particle does not touch a collider.
const CONTACT_SLACK: f32 = 1e-3;

/// Give `sink` the lines of `cloth` that `flags` ask for, in the order of the module docs;
/// `colliders` for its contacts.
pub(crate) fn cloth_lines(cloth: &Cloth, flags: u32, colliders: &ColliderStore, sink: &mut Sink) {
    let reads = cloth.reads();
    let t = reads.fraction(1.0);
    let x = |p: u32| reads.particle_position(p as usize, t);
    // A median edge (the default self-collision radius is half of one): the size of crosses
    // and normals.
    let size = 2.0 * cloth.self_collision_radius();
    if flags & DEBUG_EDGES != 0 {
        let limit = cloth.config.stretch_limit.map_or(NO_LIMIT_STRAIN, |f| f - 1.0);
        let rest = &cloth.model.constraints;
        for (&[i, j], &length) in rest.edges.iter().zip(&rest.rest_length) {
            let (a, b) = (x(i), x(j));
            let strain = (a.distance(b) - length) / length;
            sink.line(a, b, strain_colour(strain / limit));
        }
    }
    let animation = &cloth.state.animation;
    if flags & DEBUG_PINS != 0 {
        for &p in cloth.state.pins.particles.iter().chain(&animation.kinematic) {
            sink.cross(x(p), [Vec3::X, Vec3::Y, Vec3::Z], 0.5 * size, PIN_COLOUR);
        }
    }
    if flags & DEBUG_MAX_DISTANCE != 0 && animation.pose.posed() {
        for (p, &d) in animation.max_distance.iter().enumerate() {
            if !(d > 0.0 && d.is_finite()) {
                continue;
            }
            let (a, n) = (animation.target[p], animation.normal_target[p]);
            let (u, v) = across(n.normalize_or(Vec3::Y));
            sink.circle(a, u, v, d, CIRCLE_SEGMENTS, MAX_DISTANCE_COLOUR);
            let q = x(p as u32);
            sink.line(a, q, strain_colour(a.distance(q) / d));
        }
    }
    if flags & DEBUG_BACKSTOP != 0 && animation.pose.posed() {
        for (p, &r) in animation.backstop_radius.iter().enumerate() {
            if !(r > 0.0) {
                continue;
            }
            let (a, n) = (animation.target[p], animation.normal_target[p].normalize_or(Vec3::Y));
            let surface = a - n * animation.backstop_distance[p];
            sink.line(a, surface, BACKSTOP_COLOUR);
            let (u, v) = across(n);
            sink.line(surface - u * 0.5 * size, surface + u * 0.5 * size, BACKSTOP_COLOUR);
            sink.line(surface - v * 0.5 * size, surface + v * 0.5 * size, BACKSTOP_COLOUR);
        }
    }
    if flags & DEBUG_NORMALS != 0 {
        for p in 0..cloth.particle_count() as usize {
            let q = reads.particle_position(p, t);
            sink.line(q, q + reads.particle_normal(p, t) * size, NORMAL_COLOUR);
        }
    }
    if flags & DEBUG_CONTACTS != 0 {
        let params = &cloth.config.params;
        let reach = params.collision_thickness + CONTACT_SLACK;
        for (_, c) in colliders.iter().filter(|(_, c)| c.active_layers() & params.collision_mask != 0) {
            let pose = c.pose();
            let (centre, rotation) = (Vec3::from_array(pose.position), Quat::from_array(pose.rotation));
            let bound = c.shape.bounding_radius();
            for p in 0..cloth.particle_count() as usize {
                let q = reads.particle_position(p, t);
                if bound.is_some_and(|r| q.distance(centre) - r > reach) {
                    continue;
                }
                let (d, n) = c.shape.distance(rotation.conjugate() * (q - centre));
                if d <= reach {
                    sink.line(q, q + rotation * n * size, CONTACT_COLOUR);
                }
            }
        }
    }
}
