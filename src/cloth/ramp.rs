//! Settings that change a cloth's stiffness take effect over [`RAMP_TIME`] rather than at once:
//! the stretch and bending compliances per constraint, the tethers' factor and the strain limit
//! go from their values before `set_params` to the new ones linearly in time. A compliant edge's
//! rest strain under a load is α·F/L, linear in α, so the shape moves to its new rest at a steady
//! pace; an instant change would pull a hanging sheet millimetres in one step (the tethers and the
//! limit snapping to bounds derived from the new compliance, and every edge to its new strain).

use super::config::ClothConfig;
use crate::constraints::layout::ConstraintLayout;

/// How long a change of compliance or limits takes to reach its new values \[s\].
pub const RAMP_TIME: f32 = 0.25;

/// The values a ramp blends, per constraint in creation order (`ConstraintLayout::edge_creation`,
/// `hinge_creation`), so that a relayout during the ramp changes nothing.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RampValues {
    /// Stretch compliance α \[m/N\] per edge, bending compliance \[rad/(N·m)\] per hinge.
    stretch: Vec<f32>,
    bend: Vec<f32>,
    tether_factor: f32,
    stretch_limit: Option<f32>,
}

/// A change in progress: from the values before to the derived ones, `elapsed` of [`RAMP_TIME`].
#[derive(Clone, Debug)]
pub(crate) struct Ramp {
    from: RampValues,
    to: RampValues,
    elapsed: f32,
}

impl RampValues {
    /// The values `config` holds now (blended, during a ramp), in creation order.
    pub fn of(config: &ClothConfig, layout: &ConstraintLayout) -> RampValues {
        let mut stretch = vec![0.0; config.stretch_compliance.len()];
        for (&e, &a) in layout.edge_creation.iter().zip(&config.stretch_compliance) {
            stretch[e as usize] = a;
        }
        let mut bend = vec![0.0; config.bend_compliance.len()];
        for (&h, &a) in layout.hinge_creation.iter().zip(&config.bend_compliance) {
            bend[h as usize] = a;
        }
        RampValues { stretch, bend, tether_factor: config.tether_factor, stretch_limit: config.stretch_limit }
    }
}

impl ClothConfig {
    /// After new settings were derived: ramp from `before` ([`RampValues::of`] taken before) to
    /// them when they differ (a strain limit switched on or off switches at once).
    pub(crate) fn start_ramp(&mut self, before: RampValues, layout: &ConstraintLayout) {
        let to = RampValues::of(self, layout);
        self.ramp = (before != to).then(|| Box::new(Ramp { from: before, to, elapsed: 0.0 }));
        self.apply_ramp(layout);
    }

    /// Advance a ramp by one step of `dt` \[s\] and put the blended values in place (at the top of
    /// a step, after a pending layout was settled); the last step of a ramp leaves the derived
    /// values, bit for bit.
    pub(crate) fn advance_ramp(&mut self, dt: f32, layout: &ConstraintLayout) {
        let Some(ramp) = &mut self.ramp else { return };
        ramp.elapsed += dt;
        self.apply_ramp(layout);
        if self.ramp.as_ref().is_some_and(|r| r.elapsed >= RAMP_TIME) {
            self.ramp = None;
        }
    }

    /// The ramp's values at its elapsed time into the per-constraint arrays (layout order) and limits.
    pub(super) fn apply_ramp(&mut self, layout: &ConstraintLayout) {
        let Some(ramp) = &self.ramp else { return };
        let t = (ramp.elapsed / RAMP_TIME).min(1.0);
        // (1 − t)·a + t·b is b itself at t = 1.
        let blend = |a: f32, b: f32| (1.0 - t) * a + t * b;
        let (from, to) = (&ramp.from, &ramp.to);
        for (a, &e) in self.stretch_compliance.iter_mut().zip(&layout.edge_creation) {
            *a = blend(from.stretch[e as usize], to.stretch[e as usize]);
        }
        for (a, &h) in self.bend_compliance.iter_mut().zip(&layout.hinge_creation) {
            *a = blend(from.bend[h as usize], to.bend[h as usize]);
        }
        self.tether_factor = blend(from.tether_factor, to.tether_factor);
        self.stretch_limit = match (from.stretch_limit, to.stretch_limit) {
            (Some(a), Some(b)) => Some(blend(a, b)),
            (_, b) => b,
        };
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::grid;
    use crate::{ClothDesc, ClothParams, World, WorldDesc};

    /// A compliance and limit change ramped across a pin change (a relayout in the middle of the
    /// ramp, which reorders the per-constraint arrays) ends with the values of a cloth given the
    /// new settings and pins at once, bit for bit; a change back before the end ramps from the
    /// blend reached, never jumping to the old target.
    #[test]
    fn a_ramp_across_a_relayout_ends_with_the_derived_values() {
        let (positions, indices) = grid(12, 0.05, 0.0);
        let new = ClothParams { stretch_compliance: Some(2e-4), bend_compliance: Some(3e-3), max_stretch: Some(1.1), tether_slack: 1.05, ..ClothParams::default() };
        let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
        let ramped = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
        let fresh = world.add_cloth(&ClothDesc { params: new, ..ClothDesc::new(&positions, &indices) }).unwrap();
        for handle in [ramped, fresh] {
            world.cloth_mut(handle).unwrap().set_pinned(&[0, 11], None).unwrap();
        }
        world.step(1.0 / 60.0).unwrap();
        world.cloth_mut(ramped).unwrap().set_params(new).unwrap();
        let values = |world: &World, h| {
            let c = &world.cloth(h).unwrap().config;
            (c.stretch_compliance.clone(), c.bend_compliance.clone(), c.tether_factor.to_bits(), c.stretch_limit.map(f32::to_bits))
        };
        world.step(1.0 / 60.0).unwrap();
        let blended = values(&world, ramped);
        assert!(blended != values(&world, fresh), "a step into the ramp");
        for handle in [ramped, fresh] {
            world.cloth_mut(handle).unwrap().set_pinned(&[0, 11, 143], None).unwrap();
        }
        for _ in 0..20 {
            world.step(1.0 / 60.0).unwrap();
        }
        assert!(world.cloth(ramped).unwrap().config.ramp.is_none());
        assert_eq!(values(&world, ramped), values(&world, fresh));
        // Back to the defaults: a second ramp from there, strictly between old and new values.
        world.cloth_mut(ramped).unwrap().set_params(ClothParams::default()).unwrap();
        world.step(1.0 / 60.0).unwrap();
        let one_step = values(&world, ramped);
        for _ in 0..20 {
            world.step(1.0 / 60.0).unwrap();
        }
        let (done, from) = (values(&world, ramped), values(&world, fresh));
        for e in 0..done.0.len() {
            let (a, b) = (from.0[e].min(done.0[e]), from.0[e].max(done.0[e]));
            assert!(a < one_step.0[e] && one_step.0[e] < b, "edge {e}: {} not between {a} and {b}", one_step.0[e]);
        }
    }
}
