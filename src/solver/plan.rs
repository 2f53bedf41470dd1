//! The step, declared once: what a substep does and in which order. One runner executes this
//! declaration for any team size ([`super::runner`]); fusing passes, grouping stages into team
//! runs and keeping the positions in the sweeps' rows are its business, not the algorithm's.

use super::Step;
use super::sweeps::{Animated, Bending, Colliders, Constraint, Grabs, InterCloth, SelfCollision, Stretch, Tethers, Volume};

/// What runs once per substep, outside the iterations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Aerodynamic drag and lift from each triangle's velocity relative to the air
    /// (Keckeisen et al. 2004), added to the velocities.
    Wind,
    /// Free particles and their velocities carried by the part of the reference frame's motion
    /// over the substep their linear and angular inertia leave out (`solver/frame.rs`).
    Carry,
    /// Free particles: x_prev ← x, v ← v + h·(g + a), x ← x + h·v (XPBD, Macklin et al. 2016, Alg. 1).
    Predict,
    /// The animated pose for this substep's end (interpolated or skinned), particles of max
    /// distance 0 placed on it (docs/design.md, "Character cloth").
    Animate,
    /// Kinematic particles to their targets for this substep (never a jump inside a step).
    Pins,
    /// λ = 0 for every constraint, and the contacts' per-substep state (Small Steps: no warm start).
    ResetLambda,
    /// v ← (x − x_prev)/h, then linear damping v ← v·exp(−d·h).
    UpdateVelocity,
    /// Particles pushed out of a collider leave it no faster than the depenetration speed.
    LimitDepenetration,
}

/// One substep: the `begin` phases, the `iteration` sweeps (Gauss–Seidel, in order)
/// `iterations` times, the `end` phases.
pub(crate) struct Substep {
    pub begin: &'static [Phase],
    pub iteration: &'static [Sweep],
    pub end: &'static [Phase],
}

/// One sweep of an iteration over a constraint type's constraints.
pub(crate) struct Sweep {
    pub constraint: &'static dyn Constraint,
    /// The iteration's first sweep of its type: in a substep's first iteration it takes λ as 0
    /// (Small Steps: no warm start), a later sweep of the type continues its multipliers.
    pub first_of_type: bool,
}

/// The first sweep of `constraint`'s type in an iteration.
const fn first(constraint: &'static dyn Constraint) -> Sweep {
    Sweep { constraint, first_of_type: true }
}

/// A further sweep of a type an earlier sweep of the iteration already projected.
const fn again(constraint: &'static dyn Constraint) -> Sweep {
    Sweep { constraint, first_of_type: false }
}

/// Small Steps XPBD (Macklin et al. 2019): each step of Δt is n substeps of h = Δt/n, each of
/// these (docs/design.md, "Substep order").
pub(crate) const SUBSTEP: Substep = Substep {
    begin: &[Phase::Wind, Phase::Carry, Phase::Predict, Phase::Animate, Phase::Pins, Phase::ResetLambda],
    iteration: &[
        first(&Bending),       // signed dihedral angle of every interior edge
        first(&Stretch),       // every edge's length, outward from the anchors ...
        again(&Stretch),       // ... twice (docs/design.md, "Two stretch sweeps per iteration")
        first(&Volume),        // a closed cloth's enclosed volume (pressure), one constraint over all particles
        first(&Tethers),       // long-range attachments: the hard limit on the distance to the anchors
        first(&Animated),      // anim drive, max distance, backstop relative to the animated pose
        first(&Grabs),         // soft grabs: compliant attachments to moving targets
        first(&SelfCollision), // this cloth's particle pairs, found once per step
        first(&InterCloth),    // pairs with other cloths' particles
        first(&Colliders),     // collider contacts with friction, last: no iteration ends inside one
    ],
    end: &[Phase::UpdateVelocity, Phase::LimitDepenetration],
};

/// What runs once per step, after its substeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StepPhase {
    /// No edge longer than the stretch limit (`solver/strain_limit.rs`), velocities corrected.
    StrainLimit,
    /// Edges still longer than (1 + `tear_strain`)·L after the strain limit (the solver's excess
    /// stretch removed, what remains is the cloth's) tear, the most strained first
    /// (`cloth::tear`); if any did, the strain limit runs again over the torn mesh, so that what
    /// tore is released within the step.
    Tear,
    /// The animated pose's max distances and backstops once more, last: they bound what the step
    /// ends with (`sweeps/animated.rs`).
    AnimationLimits,
    /// Velocities relative to the cloth's rigid motion damped (`solver/deformation_damping.rs`);
    /// after everything that moves particles, so that what it damps is the step's final motion.
    DampDeformation,
    /// A free cloth's angular momentum back to its value at the step's start
    /// (`solver/angular_momentum.rs`), last: it corrects what the step's projections lost.
    KeepAngularMomentum,
}

/// The step: the substeps, then these.
pub(crate) const AFTER_SUBSTEPS: &[StepPhase] = &[
    StepPhase::StrainLimit,
    StepPhase::Tear,
    StepPhase::AnimationLimits,
    StepPhase::DampDeformation,
    StepPhase::KeepAngularMomentum,
];

impl Step<'_> {
    /// Whether `phase` runs in this step.
    pub fn runs(&self, phase: Phase) -> bool {
        match phase {
            Phase::Wind => self.aerodynamics.is_some(),
            Phase::Predict | Phase::Pins | Phase::ResetLambda | Phase::UpdateVelocity => true,
            Phase::LimitDepenetration => self.collide,
            Phase::Animate => self.animate,
            Phase::Carry => self.carry.is_some(),
        }
    }

    /// Whether nothing runs between a substep's velocity update and the next substep's
    /// prediction, so that one pass over the particles can do both (the same operations per
    /// particle in the same order: the same bits).
    pub fn update_fuses_with_predict(&self) -> bool {
        let after_update = SUBSTEP.end.iter().skip_while(|&&p| p != Phase::UpdateVelocity).skip(1);
        let before_predict = SUBSTEP.begin.iter().take_while(|&&p| p != Phase::Predict);
        !after_update.chain(before_predict).any(|&p| self.runs(p))
    }
}

#[cfg(test)]
mod tests {
    use super::SUBSTEP;

    /// Exactly the first sweep of each constraint type in the iteration is marked first.
    #[test]
    fn the_first_sweep_of_each_type_and_only_it_is_marked_first() {
        let sweeps = SUBSTEP.iteration;
        for (k, sweep) in sweeps.iter().enumerate() {
            let seen_before = sweeps[..k].iter().any(|s| s.constraint.name() == sweep.constraint.name());
            assert_eq!(sweep.first_of_type, !seen_before, "sweep {k} ({})", sweep.constraint.name());
        }
    }
}
