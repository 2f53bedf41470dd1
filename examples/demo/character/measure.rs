//! What the character scene's report measures after every step, per phase: how far the cloth
//! leaves its max-distance balls and enters its backstop spheres, how much its edges stretch, and
//! how deep it gets into the body's capsules. Computed from what the library reads back (positions,
//! the animated pose and normals, the stretch edges and rest lengths) and the figure's own capsule
//! geometry, not from the library's statistics.

use crate::scene::{DemoCollider, max_penetration};
use glam::Vec3;
use xpbd_cloth::Cloth;

/// A limit counts as violated beyond this [m] (f32 rounding of positions a metre or 50 m from the
/// origin is far below it).
pub const VIOLATION_TOLERANCE: f32 = 1e-5;

/// The character's phases, in the order they play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Walk,
    Run,
    Turn,
    Respawn,
}

impl Phase {
    pub const ALL: [Phase; 4] = [Phase::Walk, Phase::Run, Phase::Turn, Phase::Respawn];

    pub fn name(self) -> &'static str {
        match self {
            Phase::Walk => "walk",
            Phase::Run => "run",
            Phase::Turn => "turn",
            Phase::Respawn => "respawn",
        }
    }
}

/// One phase's numbers, over every step of it and both garments.
#[derive(Clone, Debug, Default)]
pub struct PhaseStats {
    pub steps: u32,
    /// Vertex-steps farther than max distance + [`VIOLATION_TOLERANCE`] from the pose, and the
    /// largest excess ‖x − a‖ − d seen [m] (≤ 0 when every vertex stayed inside).
    pub max_distance_violations: usize,
    pub max_distance_worst: f32,
    /// Vertex-steps deeper than [`VIOLATION_TOLERANCE`] inside their backstop sphere, and the
    /// deepest [m] (≤ 0 when none was inside).
    pub backstop_violations: usize,
    pub backstop_worst: f32,
    /// Every edge's strain max(0, ‖xᵢ − xⱼ‖/L − 1) after every step [-].
    strains: Vec<f32>,
    /// Deepest point of either garment inside a capsule after any step [m].
    pub penetration: f32,
}

impl PhaseStats {
    pub fn new() -> PhaseStats {
        PhaseStats { max_distance_worst: f32::NEG_INFINITY, backstop_worst: f32::NEG_INFINITY, ..PhaseStats::default() }
    }

    /// The strain below which 99 % of the edge-steps stay, and the largest [-]; 0 without steps.
    pub fn strain_p99_max(&self) -> (f32, f32) {
        if self.strains.is_empty() {
            return (0.0, 0.0);
        }
        let mut s = self.strains.clone();
        let k = ((s.len() - 1) as f32 * 0.99).round() as usize;
        let (_, p99, _) = s.select_nth_unstable_by(k, f32::total_cmp);
        (*p99, self.strains.iter().copied().fold(0.0, f32::max))
    }

    /// Add one garment after one step: its max distances `d` [m] and backstops (b, r) [m] per render
    /// vertex, `body` the capsules where they are now. `scratch` holds three render-order buffers.
    pub fn add(&mut self, cloth: &Cloth, d: &[f32], backstops: Option<(&[f32], &[f32])>, body: &[DemoCollider], scratch: &mut Buffers) -> Result<(), String> {
        let Buffers { x, pose, normal } = scratch;
        cloth.read_positions(&mut *x).map_err(|e| e.to_string())?;
        cloth.read_animated_positions(&mut *pose).map_err(|e| e.to_string())?;
        cloth.read_animated_normals(&mut *normal).map_err(|e| e.to_string())?;
        for (v, (x, a)) in x.iter().zip(pose.iter()).enumerate() {
            let excess = Vec3::from_array(*x).distance(Vec3::from_array(*a)) - d[v];
            self.max_distance_worst = self.max_distance_worst.max(excess);
            self.max_distance_violations += (excess > VIOLATION_TOLERANCE) as usize;
            if let Some((b, r)) = backstops {
                let (a, n) = (Vec3::from_array(*a), Vec3::from_array(normal[v]));
                let centre = a - n * (b[v] + r[v]);
                let depth = r[v] - Vec3::from_array(*x).distance(centre);
                self.backstop_worst = self.backstop_worst.max(depth);
                self.backstop_violations += (depth > VIOLATION_TOLERANCE) as usize;
            }
        }
        let (s, p) = (cloth.stretch_constraints(), cloth.particle_positions());
        for (&[i, j], &l) in s.edges.iter().zip(s.rest_length) {
            self.strains.push((p[i as usize].distance(p[j as usize]) / l - 1.0).max(0.0));
        }
        self.penetration = self.penetration.max(max_penetration(p, body));
        Ok(())
    }
}

/// Read-back buffers of one garment, render order.
pub struct Buffers {
    pub x: Vec<[f32; 3]>,
    pub pose: Vec<[f32; 3]>,
    pub normal: Vec<[f32; 3]>,
}

impl Buffers {
    pub fn new(vertices: usize) -> Buffers {
        Buffers { x: vec![[0.0; 3]; vertices], pose: vec![[0.0; 3]; vertices], normal: vec![[0.0; 3]; vertices] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p99_is_the_99th_percentile_of_the_pooled_strains() {
        let mut s = PhaseStats::new();
        s.strains = (0..=100).map(|k| k as f32 / 100.0).rev().collect();
        let (p99, max) = s.strain_p99_max();
        assert_eq!((p99, max), (0.99, 1.0));
        assert_eq!(PhaseStats::new().strain_p99_max(), (0.0, 0.0));
    }
}
