//! Read-only views of a cloth's constraints as the solver sweeps them, for inspection, drawing and
//! reference solvers: plain slices in sweep order, one entry per constraint.

use super::Cloth;

/// The stretch (edge distance) constraints, in sweep order.
#[derive(Clone, Copy, Debug)]
pub struct StretchView<'a> {
    /// Particle pairs `[i, j]`.
    pub edges: &'a [[u32; 2]],
    /// Rest length L \[m\].
    pub rest_length: &'a [f32],
    /// Compliance α \[m/N\].
    pub compliance: &'a [f32],
    /// Lagrange multiplier λ of the last substep \[N·s²\] (0 before the first step).
    pub lambda: &'a [f32],
    /// Start of each colour (`colour count + 1` offsets) when coloured, else empty.
    pub colour_start: &'a [u32],
}

/// The bending (signed dihedral angle) constraints, in sweep order.
#[derive(Clone, Copy, Debug)]
pub struct BendingView<'a> {
    /// Hinges `[x0, x1, x2, x3]`: `x2 → x3` is the shared edge, `x0` and `x1` the opposite corners.
    pub hinges: &'a [[u32; 4]],
    /// Rest dihedral angle φ₀ \[rad\].
    pub rest_angle: &'a [f32],
    /// Compliance α \[rad/(N·m)\].
    pub compliance: &'a [f32],
    /// Lagrange multiplier λ of the last substep \[N·m·s²\].
    pub lambda: &'a [f32],
    /// Start of each colour (`colour count + 1` offsets) when coloured, else empty.
    pub colour_start: &'a [u32],
}

/// The tethers (long-range attachments), grouped by particle.
#[derive(Clone, Copy, Debug)]
pub struct TetherView<'a> {
    /// Constrained (free) particle.
    pub particle: &'a [u32],
    /// Anchor (kinematic) particle.
    pub anchor: &'a [u32],
    /// Rest distance d \[m\] from the anchor (before the factor): the geodesic over the mesh, or
    /// on a flat mesh the straight distance where the geodesic is at most 10 % longer.
    pub geodesic_distance: &'a [f32],
    /// The tethers hold each particle within `factor`·d of its anchor: `tether_slack`, but at least
    /// 1.001 plus the stretch the cloth's compliance gives it under its own weight.
    pub factor: f32,
    /// Lagrange multiplier λ of the last substep \[N·s²\].
    pub lambda: &'a [f32],
}

impl Cloth {
    /// The stretch constraints (edges, rest lengths, compliances, last λ).
    pub fn stretch_constraints(&self) -> StretchView<'_> {
        let e = self.in_effect();
        let s = &e.layout.stretch;
        StretchView {
            edges: s.edges(),
            rest_length: s.rest_length(),
            compliance: &e.config.stretch_compliance,
            lambda: e.stretch_lambda,
            colour_start: s.colour_start(),
        }
    }

    /// The bending constraints (hinges, rest angles, compliances, last λ).
    pub fn bending_constraints(&self) -> BendingView<'_> {
        let e = self.in_effect();
        let b = &e.layout.bending;
        BendingView {
            hinges: b.hinges(),
            rest_angle: b.rest_angle(),
            compliance: &e.config.bend_compliance,
            lambda: e.bend_lambda,
            colour_start: b.colour_start(),
        }
    }

    /// The tethers (particle, anchor, rest geodesic distance, last λ); empty without pins.
    pub fn tether_constraints(&self) -> TetherView<'_> {
        let e = self.in_effect();
        let t = &e.layout.tethers;
        TetherView { particle: t.particle(), anchor: t.anchor(), geodesic_distance: t.geodesic_distance(), factor: e.config.tether_factor, lambda: e.tether_lambda }
    }
}
