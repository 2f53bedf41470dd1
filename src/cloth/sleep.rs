//! Sleeping: a cloth whose fastest particle stays below `sleep_speed` for `sleep_time` stops
//! stepping until something that could move it happens (off by default). A sleeping cloth's step
//! is a flag check; the wake-ups are in the calls that change what the cloth feels.

use super::Cloth;
use crate::collision::{Collider, Pose};
use glam::Vec3;

/// Where a cloth is on its way to sleep.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sleep {
    /// How long its fastest particle has stayed below `sleep_speed` \[s\].
    still_for: f32,
    asleep: bool,
    /// Whether the interpolation's previous state was made the current one since it fell asleep
    /// (once, at its first skipped step).
    synced: bool,
    /// The box around the cloth \[m\] when it fell asleep (it does not move while asleep).
    bounds: (Vec3, Vec3),
}

impl Cloth {
    /// Whether the cloth sleeps: it is skipped by the steps until woken.
    pub fn is_sleeping(&self) -> bool {
        self.sleep.asleep
    }

    /// Wake the cloth (it steps from the next step on) and restart its count towards sleep. Every
    /// call that moves it or changes what it feels (pins, settings, teleport, particle writes,
    /// snapshot restore) wakes it too. After such a change the explosion guard gives the last
    /// good state another try ([`crate::UnstableRecovery::LastGoodState`]).
    pub fn wake(&mut self) {
        self.sleep = Sleep::default();
        self.guard.put_back = false;
    }

    /// A step the sleeping cloth skips: no guard failure is left from an earlier step, and the
    /// interpolated reads return the state it sleeps in.
    pub(crate) fn skip_sleeping_step(&mut self) {
        self.guard.failed = None;
        if !self.sleep.synced {
            self.reset_interpolation();
            self.sleep.synced = true;
        }
    }

    /// After a step of `dt` \[s\]: count the time the fastest particle stayed below `sleep_speed`,
    /// and fall asleep after `sleep_time`.
    pub(crate) fn count_towards_sleep(&mut self, dt: f32) {
        let Some(limit) = self.config.params.sleep_speed else {
            return;
        };
        let limit_sq = limit * limit;
        match self.state.v.iter().all(|v| v.length_squared() < limit_sq) {
            true => self.sleep.still_for += dt,
            false => self.sleep.still_for = 0.0,
        }
        if self.sleep.still_for >= self.config.params.sleep_time && self.guard.failed.is_none() {
            let (lo, hi) = self.bounds();
            self.sleep = Sleep { asleep: true, bounds: (Vec3::from_array(lo), Vec3::from_array(hi)), ..self.sleep };
        }
    }

    /// Whether `collider`, moving in the next step and colliding with this cloth, comes within
    /// reach of it: its bounding sphere swept along the move, thickened by the collision
    /// thickness, meets the box the cloth fell asleep in (a moving plane always reaches).
    pub(crate) fn reached_by(&self, collider: &Collider) -> bool {
        let (from, to) = (collider.pose(), collider.target_pose());
        from != to && self.within_reach(collider, Vec3::from_array(from.position), Vec3::from_array(to.position))
    }

    /// Whether `collider` resting at any of `poses` reaches this cloth (as [`Self::reached_by`],
    /// not swept): a collider created, destroyed or teleported there changes what a cloth lying
    /// on or under it feels.
    pub(crate) fn touched_by(&self, collider: &Collider, poses: &[Pose]) -> bool {
        poses.iter().any(|p| {
            let p = Vec3::from_array(p.position);
            self.within_reach(collider, p, p)
        })
    }

    /// Whether `collider`'s bounding sphere thickened by the collision thickness, moving from
    /// `a` to `b` \[m\], meets the box the cloth fell asleep in (a plane always does), for a
    /// collider this cloth collides with.
    fn within_reach(&self, collider: &Collider, a: Vec3, b: Vec3) -> bool {
        if collider.active_layers() & self.config.params.collision_mask == 0 {
            return false;
        }
        // The shape's bounding ball (none for a plane, which always reaches).
        let Some(extent) = collider.shape.bounding_radius() else { return true };
        let reach = extent + self.config.params.collision_thickness;
        // The distance from the box to a point of the move is convex along it: a ternary search
        // finds the closest point (to far below a millimetre after 40 rounds).
        let (lo, hi) = self.sleep.bounds;
        let gap = |t: f32| {
            let p = a.lerp(b, t);
            p.clamp(lo, hi).distance(p)
        };
        let (mut t0, mut t1) = (0.0f32, 1.0f32);
        for _ in 0..40 {
            let (m0, m1) = (t0 + (t1 - t0) / 3.0, t1 - (t1 - t0) / 3.0);
            if gap(m0) <= gap(m1) {
                t1 = m1;
            } else {
                t0 = m0;
            }
        }
        gap(0.5 * (t0 + t1)).min(gap(0.0)).min(gap(1.0)) <= reach + 1e-3
    }
}
