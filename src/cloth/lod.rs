//! Level of detail (`step_interval` N): the cloth's side of stepping once every N world steps.
//! The world decides when a cloth steps and over how many world steps (`crate::world::lod`); the
//! cloth keeps where its state lies in time, extends its inputs over a long step, and tells the
//! render reads which fraction of its last step the current world step shows.
//!
//! A step taken in world step k covers world steps k … k + L − 1 (L ≤ N): the state it ends in
//! lies up to L − 1 world steps ahead of the world, and the reads of world step k + j show the
//! fraction (j + alpha)/L of the step, i.e. the world's own time. Nothing is drawn late and
//! nothing jumps when N changes: the next step starts from where the last one ended, whatever
//! its length. The inputs the engine gives for the end of world step k (pin targets, animated
//! pose, joint matrices, reference frame) are extrapolated to the end of the long step from their
//! motion over world step k, and put back after it.

use super::Cloth;
use super::skin::JointPose;
use crate::cloth::skin::LocalPose;
use glam::{Quat, Vec3};

/// Where a cloth's state lies in time, in world steps.
#[derive(Clone, Debug)]
pub(crate) struct Lod {
    /// World steps its last step covered (1 when it steps every world step).
    pub span: u32,
    /// World steps since the world step in which it last stepped.
    pub since: u32,
    /// `(N, r)`: at `step_interval` N the cloth steps in the world steps k ≡ r (mod N) (the world
    /// spreads the slots r of one N evenly); `None` for N = 1 and until its first step at N.
    pub slot: Option<(u32, u32)>,
    /// The span of the step it takes in the current world step; 0: it does not step in it.
    pub stepping: u32,
    /// The length of its last step \[s\].
    duration: f32,
    /// The engine's inputs, kept while a long step runs on extrapolated ones.
    given: GivenInputs,
}

impl Default for Lod {
    fn default() -> Lod {
        Lod { span: 1, since: 0, slot: None, stepping: 0, duration: 0.0, given: GivenInputs::default() }
    }
}

/// The inputs the engine gave for the end of the current world step (buffers reused from step
/// to step).
#[derive(Clone, Debug, Default)]
struct GivenInputs {
    pins: Vec<Vec3>,
    pose: Vec<Vec3>,
    pose_normals: Vec<Vec3>,
    joints: Vec<JointPose>,
    local: Option<LocalPose>,
    frame: Option<(Vec3, Quat)>,
}

impl Lod {
    /// Whether the state's time has come: the cloth steps in the current world step.
    pub fn due(&self) -> bool {
        self.since + 1 >= self.span
    }

    /// The span `L` of a step due in world step `k` (counted from 0) at interval `n` in slot
    /// `slot`: the steps of one slot end together, so the next one is due in the first world step
    /// after `k` that is ≡ slot (mod n).
    pub fn span_from(k: u64, n: u32, slot: u32) -> u32 {
        let l = (slot as u64 + n as u64 - k % n as u64) % n as u64;
        if l == 0 { n } else { l as u32 }
    }

    /// The fraction of the last step the reads at `alpha` ∈ [0, 1] of the current world step show:
    /// `(since + alpha)/span`, and `alpha` itself (the same bits) when the cloth steps every world
    /// step.
    #[inline]
    pub fn fraction(since: u32, span: u32, alpha: f32) -> f32 {
        if span == 1 { alpha } else { ((since as f32 + alpha) / span as f32).min(1.0) }
    }
}

/// `a + (b − a)·s`, for `s` ≥ 1 past `b` along the line.
fn extend(a: Vec3, b: Vec3, s: f32) -> Vec3 {
    a + (b - a) * s
}

impl Cloth {
    /// The cloth's `step_interval` N in effect (1 while it never stepped at another).
    pub fn step_interval(&self) -> u32 {
        self.config.params.step_interval
    }

    /// Where the cloth's render reads lie in its last step: (world steps since it, its span).
    pub(crate) fn lod_time(&self) -> (u32, u32) {
        (self.lod.since, self.lod.span)
    }

    /// A world step in which the cloth does not step: its inputs reach this step's targets (as a
    /// step would leave them), and the reads move on by one world step.
    pub(crate) fn idle_world_step(&mut self) {
        self.finish_inputs();
        self.lod.since += 1;
    }

    /// After a step or an idle world step: the targets reached become the next start (pins,
    /// animated pose and its skin, reference frame).
    pub(crate) fn finish_inputs(&mut self) {
        self.state.pins.finish_step();
        self.state.grabs.finish_step();
        if self.state.animation.pose.posed() {
            self.state.animation.finish_step();
        }
        if let Some(frame) = &mut self.state.animation.frame {
            frame.start = frame.target;
        }
    }

    /// Before a step over `span` world steps: every input goes on past this world step's target
    /// as it moved over this world step (positions linearly, rotations by slerp), to where it
    /// would be at the end of the long step; the targets given are kept ([`Cloth::restore_given_inputs`]).
    /// Nothing changes for a span of 1.
    pub(crate) fn extrapolate_inputs(&mut self, span: u32) {
        if span <= 1 {
            return;
        }
        let s = span as f32;
        let (state, given) = (&mut self.state, &mut self.lod.given);
        let pins = &mut state.pins;
        given.pins.clone_from(&pins.target);
        for (t, &a) in pins.target.iter_mut().zip(&pins.start) {
            *t = extend(a, *t, s);
        }
        let a = &mut state.animation;
        given.frame = a.frame.map(|f| f.target);
        if let Some(f) = &mut a.frame {
            f.target = (extend(f.start.0, f.target.0, s), f.start.1.slerp(f.target.1, s).normalize());
        }
        if !a.pose.posed() {
            return;
        }
        given.pose.clone_from(&a.target);
        given.pose_normals.clone_from(&a.normal_target);
        match a.skin.as_deref_mut().filter(|_| a.pose.skinned()) {
            Some(skin) => {
                given.joints.clone_from(&skin.target);
                match &mut given.local {
                    Some(local) => local.copy_from(&skin.local_target),
                    None => given.local = Some(skin.local_target.clone()),
                }
                skin.extrapolate_target(s, &self.model.rest, &mut a.target, &mut a.normal_target);
            }
            None => {
                for (t, &p) in a.target.iter_mut().zip(&a.start) {
                    *t = extend(p, *t, s);
                }
                for (n, &p) in a.normal_target.iter_mut().zip(&a.normal_start) {
                    let given = *n;
                    *n = extend(p, given, s).try_normalize().unwrap_or(given);
                }
            }
        }
    }

    /// After a step over `span` world steps: the targets the engine gave for this world step are
    /// the targets again, so the idle world steps that follow track the engine's motion.
    pub(crate) fn restore_given_inputs(&mut self, span: u32) {
        if span <= 1 {
            return;
        }
        let (state, given) = (&mut self.state, &self.lod.given);
        state.pins.target.copy_from_slice(&given.pins);
        let a = &mut state.animation;
        if let (Some(f), Some(target)) = (&mut a.frame, given.frame) {
            f.target = target;
        }
        if !a.pose.posed() {
            return;
        }
        a.target.copy_from_slice(&given.pose);
        a.normal_target.copy_from_slice(&given.pose_normals);
        if let (Some(skin), Some(local)) = (a.skin.as_deref_mut().filter(|_| a.pose.skinned()), &given.local) {
            skin.restore_target(&given.joints, local);
        }
    }

    /// Before a step over `span` world steps: the velocities it starts from are kept for the
    /// reads' curves (`ClothReads`), for a span above 1.
    pub(crate) fn record_previous_velocities(&mut self, span: u32) {
        if span > 1 {
            self.output.previous_v.clone_from(&self.state.v);
        }
    }

    /// A step over `span` world steps of `duration` \[s\] in all was taken in the current world step.
    pub(crate) fn stepped(&mut self, span: u32, duration: f32) {
        self.lod.span = span;
        self.lod.since = 0;
        self.lod.duration = duration;
    }

    /// After a step over more than one world step: the velocities \[m/s\] before and after it and
    /// its length \[s\], for the reads' curves.
    pub(crate) fn lod_tangents(&self) -> Option<(&[Vec3], &[Vec3], f32)> {
        let (v, previous_v) = (&self.state.v, &self.output.previous_v);
        (self.lod.span > 1 && previous_v.len() == v.len()).then_some((previous_v.as_slice(), v.as_slice(), self.lod.duration))
    }

    /// The reads show the current state from now on, and the cloth steps in the next world step
    /// (after anything that moved it discontinuously).
    pub(crate) fn reset_lod_time(&mut self) {
        self.lod.span = 1;
        self.lod.since = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_end_the_steps_of_a_slot_together() {
        // Interval 4, slot 1: steps end after the world steps 1, 5, 9, …
        assert_eq!(Lod::span_from(0, 4, 1), 1);
        assert_eq!(Lod::span_from(1, 4, 1), 4);
        assert_eq!(Lod::span_from(2, 4, 1), 3);
        assert_eq!(Lod::span_from(3, 4, 1), 2);
        assert_eq!(Lod::span_from(u64::MAX, 4, 3), 4, "u64::MAX ≡ 3 (mod 4)");
        for k in 0..40u64 {
            let l = Lod::span_from(k, 4, 1);
            assert!((1..=4).contains(&l));
            assert_eq!((k + l as u64) % 4, 1, "world step {k}: the next step is due in a world step of slot 1");
        }
    }

    #[test]
    fn the_fraction_is_alpha_itself_at_span_one_and_moves_one_world_step_per_step() {
        for alpha in [0.0, 0.3, 0.999_999_94] {
            assert_eq!(Lod::fraction(0, 1, alpha).to_bits(), alpha.to_bits());
        }
        assert_eq!(Lod::fraction(0, 4, 0.0), 0.0);
        assert_eq!(Lod::fraction(1, 4, 0.5), 0.375);
        assert_eq!(Lod::fraction(3, 4, 1.0), 1.0);
        // A world step later the fraction has grown by 1/span: the reads move at the world's pace.
        assert!((Lod::fraction(2, 4, 0.25) - Lod::fraction(1, 4, 0.25) - 0.25).abs() < 1e-7);
    }
}
