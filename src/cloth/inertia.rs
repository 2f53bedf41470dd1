//! Inertia scale: how much of its pinned frame's motion a cloth feels.
//!
//! A cloth attached to a character feels every metre the character moves: its free particles lag
//! behind the pins and the tethers and edges drag them along, which is right for a walk and wrong
//! for a 20 m dash or a respawn. With inertia scale s ∈ [0, 1]
//! ([`crate::ClothParams::inertia_scale`]), before each step the cloth is moved rigidly by
//!
//! ```text
//! (1 − s) · Δ,   Δ = (1/P) Σ_k (target_k − start_k)
//! ```
//!
//! the mean translation of the P pinned particles over the step: every particle that is free or
//! pinned, and the pins' start positions, as a teleport would (particles fixed by a zero inverse
//! mass without a pin stay). The pins then travel only the remaining s·Δ (plus any motion of theirs
//! that is not the common translation) over the step's substeps, and that is all the cloth feels.
//! Velocities are not changed, so the shift adds no velocity and no energy: s = 1 is plain physics,
//! the cloth lags and swings behind its pins; s = 0 carries the cloth with the pins' translation and
//! it feels only their rotation and relative motion. Rotation of the pinned frame is always felt in
//! full. Without pins (P = 0) nothing happens. This is the linear part of the "inertia" or "world
//! velocity scale" settings of engine cloth (Unity Cloth's `worldVelocityScale`, NvCloth's linear
//! inertia), applied as a position shift so that it means the same for any step length.

use super::Cloth;
use glam::Vec3;

impl Cloth {
    /// Move the cloth and its pins' start positions by (1 − s)·Δ before a step (see the module
    /// comment).
    pub(crate) fn apply_inertia_scale(&mut self) {
        let s = self.config.params.inertia_scale;
        let pins = &self.state.pins;
        if s >= 1.0 || pins.particles.is_empty() {
            return;
        }
        let sum: Vec3 = pins.start.iter().zip(&pins.target).map(|(s, t)| *t - *s).sum();
        let shift = (1.0 - s) * sum / pins.particles.len() as f32;
        if shift == Vec3::ZERO {
            return;
        }
        let p = &mut self.state;
        for (k, &i) in p.pins.particles.iter().enumerate() {
            // The pin's particle sits at its start position; both move together.
            p.pins.start[k] += shift;
            p.x[i as usize] = p.pins.start[k];
        }
        for (x, &w) in p.x.iter_mut().zip(&self.config.w) {
            if w > 0.0 {
                *x += shift;
            }
        }
    }
}
