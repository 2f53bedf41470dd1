//! The generalized winding number w(p) = Σ Ω_t(p) / 4π of a triangle soup (Jacobson, Kavan &
//! Sorkine-Hornung 2013, eq. 3), evaluated in O(log n) per point with a bounding-volume hierarchy
//! whose far clusters count as one dipole (Barill et al. 2018, Fast Winding Numbers for Soups and
//! Clouds, §3.2, first-order term: Ω ≈ N·(c − p)/|c − p|³ with N the cluster's area vector and c
//! its area centroid), used where the angle-weighted pseudo-normal cannot give the sign.

use super::triangles::{Tri, solid_angle};
use glam::{DVec3, Vec3};

/// A cluster is far when the point is more than this many cluster radii from its centroid (β of
/// Barill et al. 2018; 2 keeps the dipole's error to a few percent of a solid angle).
const FAR_RADII: f64 = 2.0;

/// Triangles in a leaf.
const LEAF: usize = 4;

pub(super) struct Winding {
    nodes: Vec<Node>,
    order: Vec<u32>,
}

#[derive(Clone, Copy)]
struct Node {
    /// Area centroid of the cluster.
    centre: DVec3,
    /// Area vector Σ ½ (b − a) × (c − a).
    area: DVec3,
    /// Sum of the triangle areas (weights the centroid).
    weight: f64,
    /// Largest distance from `centre` to a corner of the cluster.
    radius: f64,
    /// Leaf: first index into `order`; inner: index of the right child (the left follows).
    start: u32,
    /// Leaf: triangle count (> 0); inner: 0.
    count: u32,
}

impl Winding {
    pub fn build(tris: &[Tri]) -> Winding {
        let mut tree = Winding { nodes: Vec::with_capacity(tris.len() / 2 + 1), order: (0..tris.len() as u32).collect() };
        let centroids: Vec<Vec3> = tris.iter().map(|t| (t.a + t.b + t.c) / 3.0).collect();
        tree.split(tris, &centroids, 0, tris.len());
        tree
    }

    fn split(&mut self, tris: &[Tri], centroids: &[Vec3], start: usize, end: usize) -> Node {
        let index = self.nodes.len();
        self.nodes.push(Node { centre: DVec3::ZERO, area: DVec3::ZERO, weight: 0.0, radius: 0.0, start: start as u32, count: (end - start) as u32 });
        let node = if end - start <= LEAF {
            let (mut weighted, mut area, mut total) = (DVec3::ZERO, DVec3::ZERO, 0.0);
            for &t in &self.order[start..end] {
                let t = &tris[t as usize];
                let vector = 0.5 * (t.b - t.a).cross(t.c - t.a).as_dvec3();
                weighted += vector.length() * ((t.a + t.b + t.c) / 3.0).as_dvec3();
                total += vector.length();
                area += vector;
            }
            let centre = if total > 0.0 { weighted / total } else { tris[self.order[start] as usize].a.as_dvec3() };
            let radius = self.order[start..end]
                .iter()
                .flat_map(|&t| [tris[t as usize].a, tris[t as usize].b, tris[t as usize].c])
                .map(|v| (v.as_dvec3() - centre).length())
                .fold(0.0, f64::max);
            Node { centre, area, weight: total, radius, start: start as u32, count: (end - start) as u32 }
        } else {
            let (lo, hi) = self.order[start..end]
                .iter()
                .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &t| (lo.min(centroids[t as usize]), hi.max(centroids[t as usize])));
            let extent = hi - lo;
            let axis = if extent.x >= extent.y && extent.x >= extent.z { 0 } else if extent.y >= extent.z { 1 } else { 2 };
            let mid = (start + end) / 2;
            self.order[start..end].select_nth_unstable_by(mid - start, |&i, &j| centroids[i as usize][axis].total_cmp(&centroids[j as usize][axis]));
            let left = self.split(tris, centroids, start, mid);
            let right_index = self.nodes.len() as u32;
            let right = self.split(tris, centroids, mid, end);
            let (wl, wr) = (left.weight, right.weight);
            let centre = if wl + wr > 0.0 { (left.centre * wl + right.centre * wr) / (wl + wr) } else { left.centre };
            let radius = ((left.centre - centre).length() + left.radius).max((right.centre - centre).length() + right.radius);
            Node { centre, area: left.area + right.area, weight: wl + wr, radius, start: right_index, count: 0 }
        };
        self.nodes[index] = node;
        node
    }

    /// w(p): about 1 inside a closed, outward-wound mesh, 0 outside, in between near holes.
    pub fn at(&self, tris: &[Tri], p: Vec3) -> f64 {
        let q = p.as_dvec3();
        let mut sum = 0.0;
        let mut stack = [0u32; 64];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let index = stack[top];
            let node = self.nodes[index as usize];
            let offset = node.centre - q;
            let distance = offset.length();
            if distance > FAR_RADII * node.radius {
                sum += node.area.dot(offset) / (distance * distance * distance);
            } else if node.count > 0 {
                for &t in &self.order[node.start as usize..(node.start + node.count) as usize] {
                    let t = &tris[t as usize];
                    sum += solid_angle(p, t.a, t.b, t.c);
                }
            } else if top + 2 <= stack.len() {
                stack[top] = index + 1;
                stack[top + 1] = node.start;
                top += 2;
            }
        }
        sum / (4.0 * std::f64::consts::PI)
    }
}
