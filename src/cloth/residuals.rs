//! The residual statistics of a step (|C| and λ per constraint type, edge strain), computed when
//! they are first read after the step rather than by the step itself.
//!
//! Why: they are a pass over every constraint (with an atan2 per hinge and a percentile selection
//! per type), about a tenth of a one-thread step of the bench's grids (docs/dev/performance-log.md,
//! "2026-11-30 — Residual statistics on first read, hinge rows written from lanes"), and an engine
//! that never reads them should not pay for them. Read, they have the bits the step would have
//! computed: they are a function of the positions, multipliers and constraints the step ended with,
//! and everything that can change those between steps first computes them ([`Cloth::settle_stats`]:
//! teleport, pinning and unpinning, parameters, colouring, snapshot restore, and the explosion
//! guard before it puts a cloth back; moving pin targets and reading outputs do not). Debug builds
//! also compute them at the end of every step and assert that the first read reproduces them bit
//! for bit, which catches a path that changes the inputs without settling first.

use super::Cloth;
use crate::fp_env::DefaultFpEnv;
use crate::stats::{ClothStats, ConstraintStats};
use std::sync::{Mutex, OnceLock};

/// The residual part of a cloth's [`ClothStats`]: computed on first read, kept until the next step.
#[derive(Debug, Default)]
pub(crate) struct LazyResiduals {
    /// The last step's full statistics once read (or settled) since that step.
    value: OnceLock<ClothStats>,
    /// Whether a step has run: before the first one the statistics are all zero.
    due: bool,
    /// |C| of one constraint type at a time, reordered in place by the percentile selection;
    /// preallocated (room for every edge, tether and hinge) so that a read allocates nothing.
    /// Behind a lock because reads take `&Cloth`, which several threads may hold.
    abs_c: Mutex<Vec<f32>>,
    /// Debug builds: the residuals computed at the end of the step, which the first read must
    /// reproduce bit for bit.
    #[cfg(debug_assertions)]
    at_step_end: Option<ClothStats>,
}

impl LazyResiduals {
    /// Room for `capacity` residuals of one constraint type.
    pub fn with_capacity(capacity: usize) -> Self {
        LazyResiduals { abs_c: Mutex::new(Vec::with_capacity(capacity)), ..LazyResiduals::default() }
    }
}

impl LazyResiduals {
    /// Room for `capacity` residuals of one constraint type (a tearable cloth's edges grow).
    pub fn reserve(&mut self, capacity: usize) {
        let abs_c = self.abs_c.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner());
        abs_c.reserve(capacity.saturating_sub(abs_c.len()));
    }
}

impl Clone for LazyResiduals {
    /// The computed value if any, and an empty buffer of the same capacity.
    fn clone(&self) -> Self {
        let capacity = self.abs_c.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).capacity();
        LazyResiduals {
            value: self.value.clone(),
            due: self.due,
            abs_c: Mutex::new(Vec::with_capacity(capacity)),
            #[cfg(debug_assertions)]
            at_step_end: self.at_step_end,
        }
    }
}

impl Cloth {
    /// Statistics of the last step (zeros before the first step): residuals per constraint type
    /// at the positions the step ended with, the contact and pair counts of the step.
    ///
    /// The residuals are computed by the first call after a step (on the calling thread: one pass
    /// over every constraint, about a tenth of a one-thread step) and kept until the next step;
    /// a step whose statistics are never read does not compute them. Changing the cloth between
    /// steps does not change them: the methods that change what they are taken from (teleport,
    /// pins, parameters, colouring, snapshot restore) compute them first.
    pub fn stats(&self) -> &ClothStats {
        let r = &self.output.residuals;
        r.value.get_or_init(|| {
            let mut stats = self.output.stats;
            if r.due {
                let _fp = DefaultFpEnv::enter();
                let mut abs_c = r.abs_c.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                self.residual_stats(&mut abs_c, &mut stats);
                #[cfg(debug_assertions)]
                if let Some(expected) = r.at_step_end {
                    assert!(
                        residual_bits(&stats) == residual_bits(&expected),
                        "residual statistics changed between the step and their first read: a path \
                         changed the cloth without Cloth::settle_stats\n read: {stats:?}\n step: {expected:?}"
                    );
                }
            }
            stats
        })
    }

    /// Compute the last step's statistics now if they have not been read, before something changes
    /// the positions, multipliers, constraints or parameters they are taken from.
    pub(crate) fn settle_stats(&self) {
        self.stats();
    }

    /// What every public method that changes the cloth between steps does first (teleport, pins,
    /// parameters, colouring, snapshot restore): settle the last step's statistics, which describe
    /// that step, and compute the change in the default floating-point mode until the returned
    /// guard drops (`crate::fp_env`).
    pub(crate) fn begin_change(&self) -> DefaultFpEnv {
        let fp = DefaultFpEnv::enter();
        self.settle_stats();
        fp
    }

    /// Called at the end of a step, after [`Cloth::stats`]' non-residual fields (`self.stats`) are
    /// set: the next read computes the residuals of this step's end.
    pub(crate) fn residuals_due(&mut self) {
        let r = &mut self.output.residuals;
        r.value = OnceLock::new();
        r.due = true;
        #[cfg(debug_assertions)]
        {
            let mut abs_c = std::mem::take(r.abs_c.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner()));
            let mut stats = self.output.stats;
            self.residual_stats(&mut abs_c, &mut stats);
            let r = &mut self.output.residuals;
            *r.abs_c.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner()) = abs_c;
            r.at_step_end = Some(stats);
        }
    }

    /// The residual fields of `stats` from the current positions, multipliers and parameters; the
    /// multipliers are the last substep's, of length h = `last_substep`. Each type is summarised in
    /// its storage order (`ConstraintStats::summarise`), one type at a time in `abs_c`.
    fn residual_stats(&self, abs_c: &mut Vec<f32>, stats: &mut ClothStats) {
        let (params, layout, lambda) = (&self.config.params, &self.layout, &self.scratch);
        let x = &self.state.x;
        let h = self.output.last_substep;
        let inv_h2 = 1.0 / (h * h);
        // The edge strain is reported whether or not the stretch constraints are on.
        stats.max_edge_strain = if params.enable_stretch {
            abs_c.clear();
            let max_edge_strain = layout.stretch.residuals_and_max_strain(x, abs_c);
            stats.stretch = ConstraintStats::summarise(abs_c, &lambda.stretch_lambda, inv_h2);
            max_edge_strain
        } else {
            layout.stretch.max_strain(x)
        };
        abs_c.clear();
        layout.stretch.stretches(x, abs_c);
        [stats.strain_p50, stats.strain_p95, stats.strain_p99] = crate::stats::quantiles(abs_c, [0.5, 0.95, 0.99]);
        stats.pin_strain = layout.tethers.anchor_strain(x).max(0.0);
        if params.enable_tethers {
            abs_c.clear();
            layout.tethers.residuals(x, self.config.tether_factor, abs_c);
            stats.tether = ConstraintStats::summarise(abs_c, &lambda.tether_lambda, inv_h2);
        }
        if params.enable_bending {
            abs_c.clear();
            layout.bending.residuals(x, abs_c);
            stats.bending = ConstraintStats::summarise(abs_c, &lambda.bend_lambda, inv_h2);
        }
    }
}

/// The residual fields' bit patterns (NaN payloads included), to compare without allocating.
#[cfg(any(debug_assertions, test))]
fn residual_bits(s: &ClothStats) -> [u32; 23] {
    let mut bits = [s.max_edge_strain.to_bits(); 23];
    bits[19..].copy_from_slice(&[s.strain_p50, s.strain_p95, s.strain_p99, s.pin_strain].map(f32::to_bits));
    for (k, c) in [&s.stretch, &s.bending, &s.tether].into_iter().enumerate() {
        let fields = [c.mean_abs_c, c.p95_abs_c, c.max_abs_c, c.min_force, c.max_force].map(f32::to_bits);
        bits[6 * k] = c.count;
        bits[6 * k + 1..6 * k + 6].copy_from_slice(&fields);
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::residual_bits as bits;
    use crate::test_util::grid;
    use crate::{ClothDesc, ClothHandle, ClothParams, World, WorldDesc};

    /// A 12² pinned sheet stepped `steps` times at 60 Hz (stretch, bending and tethers on).
    fn stepped(steps: usize) -> (World, ClothHandle) {
        let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
        let (positions, indices) = grid(12, 0.05, 0.0);
        let params = ClothParams { enable_tethers: true, ..ClothParams::default() };
        let handle = world.add_cloth(&ClothDesc { params, ..ClothDesc::new(&positions, &indices) }).unwrap();
        world.cloth_mut(handle).unwrap().set_pinned(&[0, 11], None).unwrap();
        for _ in 0..steps {
            world.step(1.0 / 60.0).unwrap();
        }
        (world, handle)
    }

    /// What changes a cloth between steps (positions, pins and tethers, multipliers, constraint
    /// order, the types switched on) does not change the statistics of the step before, although
    /// they are computed when first read: they are the bits read right after the step.
    #[test]
    fn statistics_first_read_after_changes_are_those_of_the_step() {
        let (world, handle) = stepped(20);
        let expected = *world.cloth(handle).unwrap().stats();
        assert!(expected.stretch.count > 0 && expected.bending.count > 0 && expected.tether.count > 0);
        assert!(expected.stretch.max_abs_c > 0.0 && expected.bending.max_force != 0.0, "{expected:?}");
        type Change = (&'static str, fn(&mut crate::Cloth));
        let changes: [Change; 6] = [
            ("teleport", |c| c.teleport([3.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]).unwrap()),
            ("pins", |c| c.set_pinned(&[5], None).unwrap()),
            ("colouring", |c| c.set_constraint_colouring(!c.constraint_colouring())),
            ("types off", |c| {
                let params = ClothParams { enable_stretch: false, enable_bending: false, ..*c.params() };
                c.set_params(params).unwrap()
            }),
            ("unpin", |c| c.unpin(&[0]).unwrap()),
            ("snapshot of the start", |c| {
                let (start, handle) = stepped(0);
                let start = start.cloth(handle).unwrap();
                let mut state = vec![0; start.state_size()];
                start.save_state(&mut state).unwrap();
                c.restore_state(&state).unwrap();
            }),
        ];
        for (name, change) in changes {
            let (mut world, handle) = stepped(20);
            change(world.cloth_mut(handle).unwrap());
            let read = *world.cloth(handle).unwrap().stats();
            assert_eq!(bits(&read), bits(&expected), "{name}");
        }
    }

    /// The residuals are not computed by the step, only by the first read, which keeps them.
    #[test]
    fn statistics_are_computed_by_the_first_read_and_kept() {
        let (world, handle) = stepped(3);
        let cloth = world.cloth(handle).unwrap();
        assert!(cloth.output.residuals.value.get().is_none(), "the step computed its statistics");
        let first: *const crate::ClothStats = cloth.stats();
        assert!(cloth.output.residuals.value.get().is_some());
        assert!(std::ptr::eq(first, cloth.stats()), "a second read computed them again");
        // Before the first step: zeros, without anything to compute.
        let (fresh, handle) = stepped(0);
        assert_eq!(*fresh.cloth(handle).unwrap().stats(), crate::ClothStats::default());
    }

    /// Debug builds (the CI profile) check that the first read reproduces the step's statistics:
    /// a change that skips [`crate::Cloth::settle_stats`] (planted here, as a new method that forgot
    /// it would) fails that read.
    #[test]
    #[cfg(debug_assertions)]
    fn a_change_without_settling_fails_the_first_read_in_debug_builds() {
        let (mut world, handle) = stepped(5);
        let cloth = world.cloth_mut(handle).unwrap();
        cloth.state.x[30].y += 0.01;
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| *cloth.stats()));
        let message = result.expect_err("read").downcast::<String>().map(|m| *m).unwrap_or_default();
        assert!(message.contains("without Cloth::settle_stats"), "{message}");
    }
}
