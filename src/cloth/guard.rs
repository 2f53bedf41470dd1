//! Explosion guard: a cheap check after every step that a cloth is still finite and has not moved
//! implausibly far, and the recovery when it has.
//!
//! The check (one pass over the particles, after the step): every position and velocity is
//! finite, and every particle moved at most
//!
//! ```text
//! D_max = d_pins + d_colliders + 2·L + v_max·dt
//! ```
//!
//! from where it started the step, with d_pins the largest distance a pinned particle was asked to
//! move in this step (|target − start|; free particles may be dragged that far by tethers), or the
//! animated pose pulls a particle: a pose point's move in the step, and for a particle that
//! follows the pose (max distance, backstop, anim drive) its distance to its pose point at the
//! step's end (`Animation::largest_pull`), plus the reference frame's carry,
//! d_colliders the largest distance a collider of the world moves in this step (it may push cloth
//! that far; a collider's rotation is not counted), but at most v_max·dt: a collider moved faster
//! than any cloth may move is a jump, and a cloth it drags along fails the check instead of
//! passing silently wrecked (teleport colliders with `World::teleport_collider`), L the
//! diagonal of the cloth's rest-pose bounding box (a cloth can fold over at most its own size in one
//! step, which also covers any contact thickness, millimetres against metres) and v_max
//! [`crate::ClothParams::max_particle_speed`] (default 100 m/s, above the terminal speed of any cloth:
//! a real free fall or swing stays inside, while an explosion leaves it within a few steps and a NaN
//! fails it at once). Cost: a copy of positions and velocities before the step (24 bytes per
//! particle into buffers allocated with the cloth) and one pass after it.
//!
//! On failure the cloth is put back as [`UnstableRecovery`] says (its statistics still describe
//! the failed step; a second failure in a row from a put-back state puts back the rest pose), the
//! failure is recorded in its [`ClothStatus`] (read and cleared by [`Cloth::take_status`]) and
//! [`crate::World::step`] returns `ClothError::SimulationUnstable` naming it, after every other
//! cloth has stepped normally.

use super::Cloth;
pub use crate::error::{Instability, InstabilityKind, UnstableRecovery};
use glam::Vec3;

/// A cloth's guard status since it was last read ([`Cloth::take_status`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClothStatus {
    /// Steps that failed the guard since the status was last read (0: all good).
    pub unstable_steps: u32,
    /// The most recent failure, if any.
    pub last: Option<Instability>,
}

/// The guard's buffers and bookkeeping, sized when the cloth is created (no allocation per step).
#[derive(Clone, Debug)]
pub(crate) struct Guard {
    /// Positions \[m\] and velocities \[m/s\] of the last good state: where the last step that passed
    /// the check ended (or the creation pose, or the latest teleport or snapshot restore).
    good_x: Vec<Vec3>,
    good_v: Vec<Vec3>,
    /// D_max of the current step \[m\].
    bound: f32,
    status: ClothStatus,
    /// Set when the last step failed (what `World::step` reports).
    pub failed: Option<Instability>,
    /// The last step failed and the last good state was put back, and nothing has changed the
    /// cloth since (cleared by a step that passes and by [`Cloth::wake`]).
    pub put_back: bool,
}

impl Guard {
    /// A guard whose last good state is `x` \[m\] at rest.
    pub fn new(x: &[Vec3]) -> Guard {
        Guard {
            good_x: x.to_vec(),
            good_v: vec![Vec3::ZERO; x.len()],
            bound: 0.0,
            status: ClothStatus::default(),
            failed: None,
            put_back: false,
        }
    }
}

impl Guard {
    /// Room for `particles` particles' good state.
    pub fn reserve(&mut self, particles: usize) {
        self.good_x.reserve(particles.saturating_sub(self.good_x.len()));
        self.good_v.reserve(particles.saturating_sub(self.good_v.len()));
    }

    /// Only the first `particles` particles' good state.
    pub fn truncate(&mut self, particles: usize) {
        self.good_x.truncate(particles);
        self.good_v.truncate(particles);
    }

    /// The good state of particles added by a cut: each that of its `parents` entry.
    pub fn grow(&mut self, parents: &[u32]) {
        for &p in parents {
            self.good_x.push(self.good_x[p as usize]);
            self.good_v.push(self.good_v[p as usize]);
        }
    }

    /// Forget the recorded failures (an instance starts with a clear status and a fresh retry).
    pub fn clear_status(&mut self) {
        self.status = ClothStatus::default();
        self.failed = None;
        self.put_back = false;
    }
}

impl Cloth {
    /// Before a step of `dt` \[s\] in which colliders move up to `collider_motion` \[m\]: the
    /// displacement bound of the step (nothing when disabled).
    pub(crate) fn guard_begin_step(&mut self, dt: f32, collider_motion: f32) {
        self.guard.failed = None;
        let params = &self.config.params;
        if params.unstable_recovery == UnstableRecovery::Disabled {
            return;
        }
        let pins = &self.state.pins;
        let d_pins = pins.start.iter().zip(&pins.target).map(|(s, t)| s.distance(*t)).fold(0.0f32, f32::max);
        let animation = &self.state.animation;
        let pull = animation.largest_pull(&self.state.x).max(self.state.grabs.largest_pull(&self.state.x));
        let d_pins = d_pins.max(pull) + animation.largest_carry(&self.state.x);
        let collider_motion = collider_motion.min(params.max_particle_speed * dt);
        self.guard.bound = d_pins + collider_motion + 2.0 * self.model.rest_extent + params.max_particle_speed * dt;
    }

    /// After a step: check against the last good state; on success the state becomes the new last
    /// good state, on failure the cloth is recovered. Returns whether the step failed.
    pub(crate) fn guard_end_step(&mut self) -> bool {
        let recovery = match self.config.params.unstable_recovery {
            UnstableRecovery::Disabled => return false,
            // The step from a state put back, with nothing changed since, failed as the step
            // before it did (a step is deterministic): the last good state would fail at every
            // retry, so the rest pose is put back instead.
            UnstableRecovery::LastGoodState if self.guard.put_back => UnstableRecovery::RestPose,
            recovery => recovery,
        };
        let Some(instability) = self.find_instability(recovery) else {
            self.remember_good_state();
            return false;
        };
        // The statistics report the failed step (a NaN residual shows), not the state put back.
        self.settle_stats();
        match recovery {
            UnstableRecovery::LastGoodState => {
                self.restore_last_good_state();
                self.guard.put_back = true;
            }
            UnstableRecovery::RestPose => {
                self.restore_rest_pose();
                self.remember_good_state();
            }
            UnstableRecovery::Disabled => {}
        }
        self.update_normals(false);
        self.reset_interpolation(); // drawn where it was put back, not on the way there
        let status = &mut self.guard.status;
        status.unstable_steps = status.unstable_steps.saturating_add(1);
        status.last = Some(instability);
        self.guard.failed = Some(instability);
        true
    }

    /// The current positions and velocities become the last good state. Called after a step that
    /// passed, and by everything that moves particles between steps (teleport, snapshot restore),
    /// so that the last good state is always the state the next step starts from, unless that
    /// state was corrupted outside the solver.
    pub(crate) fn remember_good_state(&mut self) {
        self.guard.good_x.copy_from_slice(&self.state.x);
        self.guard.good_v.copy_from_slice(&self.state.v);
        self.guard.put_back = false;
    }

    /// The first particle that is non-finite or moved beyond the bound, if any.
    fn find_instability(&self, recovery: UnstableRecovery) -> Option<Instability> {
        let (p, g) = (&self.state, &self.guard);
        let bound_sq = g.bound * g.bound;
        // One pass. `d² <= D²` is false for NaN, so a NaN position fails it too.
        let good = |i: usize| (p.x[i] - g.good_x[i]).length_squared() <= bound_sq && p.v[i].is_finite();
        let i = (0..p.x.len()).find(|&i| !good(i))?;
        let kind = match p.x[i].is_finite() && p.v[i].is_finite() {
            true => InstabilityKind::DisplacementBound,
            false => InstabilityKind::NonFinite,
        };
        let displacement = (p.x[i] - g.good_x[i]).length();
        Some(Instability { kind, particle: i as u32, displacement, bound: g.bound, recovery })
    }

    /// Positions and velocities from before the step. Pinned particles sat at their pin's start
    /// position then (a step starts where the last one ended, and pinning, teleports and snapshots
    /// keep pin and particle together), so the pins' start positions are recovered from them.
    /// Pin targets stay as the caller set them.
    fn restore_last_good_state(&mut self) {
        let (p, g) = (&mut self.state, &self.guard);
        p.x.copy_from_slice(&g.good_x);
        self.scratch.x_prev.copy_from_slice(&g.good_x);
        p.v.copy_from_slice(&g.good_v);
        for (k, &i) in p.pins.particles.iter().enumerate() {
            p.pins.start[k] = p.x[i as usize];
        }
    }

    /// The creation pose moved by every teleport since, at rest; pinned particles at their pins
    /// (which have reached their targets).
    fn restore_rest_pose(&mut self) {
        let p = &mut self.state;
        for (x, &r) in p.x.iter_mut().zip(&self.model.rest) {
            *x = p.rest_rotation * r + p.rest_translation;
        }
        p.v.fill(Vec3::ZERO);
        for (k, &i) in p.pins.particles.iter().enumerate() {
            p.x[i as usize] = p.pins.start[k];
        }
        self.scratch.x_prev.copy_from_slice(&p.x);
    }

    /// The guard status since the last call, then cleared: how many steps failed and the latest
    /// failure.
    pub fn take_status(&mut self) -> ClothStatus {
        std::mem::take(&mut self.guard.status)
    }

    /// The guard status since [`Cloth::take_status`] was last called, without clearing it.
    pub fn status(&self) -> ClothStatus {
        self.guard.status
    }
}

#[cfg(test)]
mod tests {
    use crate::{ClothDesc, ClothError, ClothParams, UnstableRecovery, World, WorldDesc};
    use glam::Vec3;

    /// A 1 m square of 5 × 5 vertices in the x–z plane at height `y`.
    fn sheet(y: f32) -> (Vec<[f32; 3]>, Vec<u32>) {
        crate::test_util::grid(5, 0.25, y)
    }

    fn two_cloth_world(recovery: UnstableRecovery) -> (World, crate::ClothHandle, crate::ClothHandle) {
        let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
        let (pa, ia) = sheet(0.0);
        let (pb, ib) = sheet(3.0);
        let params = ClothParams { unstable_recovery: recovery, ..ClothParams::default() };
        let a = world.add_cloth(&ClothDesc { params, ..ClothDesc::new(&pa, &ia) }).unwrap();
        let b = world.add_cloth(&ClothDesc { params, ..ClothDesc::new(&pb, &ib) }).unwrap();
        world.cloth_mut(a).unwrap().set_pinned(&[0, 4], None).unwrap();
        world.cloth_mut(b).unwrap().set_pinned(&[0, 4], None).unwrap();
        (world, a, b)
    }

    #[test]
    fn injected_nan_is_caught_the_cloth_restored_and_the_other_cloth_steps_on() {
        let (mut world, a, b) = two_cloth_world(UnstableRecovery::LastGoodState);
        let (mut reference, _, rb) = two_cloth_world(UnstableRecovery::LastGoodState);
        for _ in 0..20 {
            world.step(1.0 / 60.0).unwrap();
            reference.step(1.0 / 60.0).unwrap();
        }
        let before = world.cloth(a).unwrap().state_hash();
        // A NaN velocity as a broken constraint or a bad caller input could leave it.
        world.cloth_mut(a).unwrap().state.v[12] = Vec3::NAN;
        let err = world.step(1.0 / 60.0).unwrap_err();
        reference.step(1.0 / 60.0).unwrap();
        match err {
            ClothError::SimulationUnstable { cloth, instability, unstable_cloths } => {
                assert_eq!((cloth, unstable_cloths), (a, 1));
                assert_eq!(instability.kind, super::InstabilityKind::NonFinite);
                assert_eq!(instability.recovery, UnstableRecovery::LastGoodState);
            }
            other => panic!("unexpected {other:?}"),
        }
        // The statistics report the failed step (computed before the guard put the cloth back),
        // not the restored state, whose residuals are finite.
        let failed = world.cloth(a).unwrap().stats().stretch;
        assert!(failed.max_abs_c.is_nan(), "{failed:?}");
        // Restored bit for bit to the state the last good step ended in (before the corruption).
        assert_eq!(world.cloth(a).unwrap().state_hash(), before);
        // The other cloth stepped exactly as in a world where nothing went wrong.
        assert_eq!(world.cloth(b).unwrap().state_hash(), reference.cloth(rb).unwrap().state_hash());
        // And the restored cloth steps on normally from there.
        world.step(1.0 / 60.0).unwrap();
        // The status is read once, then clear.
        let status = world.cloth_mut(a).unwrap().take_status();
        assert_eq!(status.unstable_steps, 1);
        assert_eq!(status.last.unwrap().particle, 12);
        assert_eq!(world.cloth_mut(a).unwrap().take_status(), super::ClothStatus::default());
        assert_eq!(world.cloth_mut(b).unwrap().take_status(), super::ClothStatus::default());
    }

    #[test]
    fn rest_pose_recovery_puts_the_cloth_back_at_its_creation_pose_at_rest() {
        let (mut world, a, _) = two_cloth_world(UnstableRecovery::RestPose);
        for _ in 0..20 {
            world.step(1.0 / 60.0).unwrap();
        }
        world.cloth_mut(a).unwrap().state.x[12] = Vec3::new(f32::INFINITY, 0.0, 0.0);
        assert!(matches!(world.step(1.0 / 60.0), Err(ClothError::SimulationUnstable { .. })));
        let c = world.cloth(a).unwrap();
        assert_eq!(c.particle_positions(), &c.model.rest[..]);
        assert!(c.particle_velocities().iter().all(|v| *v == Vec3::ZERO));
    }

    #[test]
    fn rest_pose_recovery_after_a_teleport_uses_the_teleported_rest_pose() {
        let (mut world, a, _) = two_cloth_world(UnstableRecovery::RestPose);
        world.step(1.0 / 60.0).unwrap();
        let q = glam::Quat::from_rotation_z(0.5);
        world.cloth_mut(a).unwrap().teleport([10.0, 0.0, -3.0], q.to_array()).unwrap();
        world.cloth_mut(a).unwrap().state.v[7] = Vec3::NAN;
        assert!(world.step(1.0 / 60.0).is_err());
        let c = world.cloth(a).unwrap();
        for (x, r) in c.particle_positions().iter().zip(&c.model.rest) {
            assert!((*x - (q * *r + Vec3::new(10.0, 0.0, -3.0))).length() < 1e-5, "{x} vs rest {r}");
        }
    }

    #[test]
    fn disabled_guard_lets_the_nan_through() {
        let (mut world, a, _) = two_cloth_world(UnstableRecovery::Disabled);
        world.cloth_mut(a).unwrap().state.v[12] = Vec3::NAN;
        world.step(1.0 / 60.0).unwrap();
        assert!(!world.cloth(a).unwrap().particle_positions().iter().all(|x| x.is_finite()));
        assert_eq!(world.cloth_mut(a).unwrap().take_status().unstable_steps, 0);
    }
}
