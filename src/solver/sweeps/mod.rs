//! The constraints a substep's iterations project, one file per type: each says when it runs,
//! where it finds the positions and how it is swept on one thread and, if it can be, as the
//! colours of a team of threads. The formulas and kernels live with the constraints
//! (`crate::constraints`, `crate::collision`); the order is the plan's ([`super::plan::SUBSTEP`]).

mod animated;
mod bending;
mod colliders;
mod grabs;
mod inter_cloth;
mod self_collision;
mod stretch;
mod tethers;
mod volume;

pub(crate) use animated::{Animated, enforce_limits, place_pose};
pub(crate) use bending::Bending;
pub(crate) use colliders::Colliders;
pub(crate) use grabs::Grabs;
pub(crate) use inter_cloth::InterCloth;
pub(crate) use self_collision::SelfCollision;
pub(crate) use stretch::Stretch;
pub(crate) use tethers::Tethers;
pub(crate) use volume::Volume;

use super::{Parts, Step, SubstepInfo, SweepCoefficients};
use crate::cloth::config::ClothConfig;
use crate::constraints::access::SharedPositions;
use crate::constraints::layout::ConstraintLayout;
use crate::constraints::team::{ColourCut, SharedSlice};
use glam::Vec3;

/// A constraint type as the iterations of a substep project it.
pub(crate) trait Constraint: Sync {
    /// The type's name (the plan's check that each type's first sweep is marked as first).
    #[cfg(test)]
    fn name(&self) -> &'static str;

    /// Whether it runs in this step.
    fn active(&self, step: &Step) -> bool;

    /// Whether it works on the sweeps' rows (the lane-wise kernels) rather than on `state.x`.
    fn on_rows(&self) -> bool;

    /// One Gauss–Seidel sweep on this thread (split over the pool by particles where the passes
    /// allow it and `step.parallel`). `fresh`: the substep's first sweep of this type (λ = 0).
    fn solve(&self, parts: &mut Parts, step: &Step, substep: &SubstepInfo, fresh: bool);

    /// The sweep as the colours of a team run (cloths split over threads); None if it has none.
    fn team(&self) -> Option<&dyn TeamSweep> {
        None
    }
}

/// A constraint type's sweep as colours of a team run ([`crate::constraints::team::TeamWork`],
/// assembled by [`super::group::GroupWork`]).
pub(crate) trait TeamSweep: Sync {
    /// Colours of the sweep.
    fn colours(&self, inputs: &TeamInputs) -> usize;

    /// Cut `colour` into `parts` parts ([`crate::constraints::team::TeamWork::cut`]).
    fn cut(&self, inputs: &TeamInputs, colour: usize, parts: usize, cut: &mut ColourCut);

    /// Project constraints `begin..end` of `colour`; `fresh` as for [`Constraint::solve`].
    ///
    /// # Safety
    /// The contract of [`crate::constraints::team::TeamWork::project`].
    unsafe fn project(&self, inputs: &TeamInputs, x: &mut SharedPositions<'_>, colour: usize, begin: usize, end: usize, fresh: bool);
}

/// What the team sweeps read (shared by the members) and the multipliers they write by the
/// disjoint ranges of their parts.
pub(crate) struct TeamInputs<'a> {
    pub layout: &'a ConstraintLayout,
    pub config: &'a ClothConfig,
    pub k: &'a SweepCoefficients,
    /// Positions at the substep's start \[m\]; empty for a team run with motion passes, which
    /// write them (such a run has undamped kernels only, which never read them).
    pub x_prev: &'a [Vec3],
    pub stretch_lambda: SharedSlice<'a, f32>,
    pub bend_lambda: SharedSlice<'a, f32>,
    pub tether_lambda: SharedSlice<'a, f32>,
}
