//! Pressure: the volume constraint of a closed cloth (`crate::constraints::volume`), one
//! constraint over every particle, projected after the stretch sweeps.

use super::Constraint;
use crate::constraints::SubstepCoefficients;
use crate::constraints::volume::VolumeConstraint;
use crate::solver::{Parts, Step, SubstepInfo};

/// The volume constraint C = s·V − p·|V₀| of a cloth with `pressure` set.
pub(crate) struct Volume;

impl Constraint for Volume {
    #[cfg(test)]
    fn name(&self) -> &'static str {
        "volume"
    }

    fn active(&self, step: &Step) -> bool {
        step.volume.is_some()
    }

    fn on_rows(&self) -> bool {
        true
    }

    fn solve(&self, parts: &mut Parts, step: &Step, _: &SubstepInfo, fresh: bool) {
        let Some((target, sign)) = step.volume else { return };
        let model = parts.model;
        let constraint = VolumeConstraint {
            triangles: &model.triangles,
            incident: &model.particle_triangles,
            target,
            sign,
            compliance: step.params.volume_compliance,
        };
        let s = &mut *parts.scratch;
        let k = SubstepCoefficients::new(step.h, 0.0);
        // Split over the pool with the cloth's other per-particle passes (the same bits either way).
        constraint.project(&mut s.rows, &mut s.per_triangle, &mut s.volume, &k, fresh, step.parallel);
    }
}
