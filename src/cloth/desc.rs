//! What a caller passes to create and configure a cloth.

use super::guard::UnstableRecovery;
use crate::error::{ClothError, check_count, check_range};
use crate::material::Material;

/// Settings of a cloth that may change after creation (see [`crate::Cloth::set_params`]).
///
/// Compliance α is inverse stiffness in SI units: 0 = rigid. `None` derives it per element from
/// [`Material`] (formulas in [`crate::material`]); `Some(α)` overrides the material.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClothParams {
    /// Material: areal density gives the particle masses when no inverse masses are given; Young's
    /// modulus, Poisson ratio and thickness give the compliances left at `None`.
    pub material: Material,
    /// Stretch compliance α \[m/N\] for every edge, or `None` to derive per edge from the material.
    pub stretch_compliance: Option<f32>,
    /// Bending compliance α \[rad/(N·m)\] for every hinge, or `None` to derive from the material.
    pub bend_compliance: Option<f32>,
    /// Tether compliance α \[m/N\] (usually 0: tethers are hard limits).
    pub tether_compliance: f32,
    /// Stretch constraint damping β [N·s/m] (XPBD eq. 26). Has no effect where α = 0.
    pub stretch_damping: f32,
    /// Bending constraint damping β [N·m·s/rad] (XPBD eq. 26). Has no effect where α = 0.
    pub bend_damping: f32,
    /// Tether slack factor s ≥ 1: a particle may move up to s × its rest mesh distance from its anchor.
    pub tether_slack: f32,
    /// Linear velocity damping [1/s]: v ← v·exp(−d·h) per substep, the exact solution of
    /// dv/dt = −d·v, so it means the same at any step and substep length.
    pub linear_damping: f32,
    /// Enable the stretch constraints.
    pub enable_stretch: bool,
    /// Enable the bending constraints.
    pub enable_bending: bool,
    /// Enable tethers (long-range attachments) to pinned particles.
    pub enable_tethers: bool,
    /// Uniform external acceleration \[m/s²\] added to gravity for this cloth. A uniform acceleration
    /// only leans a cloth sideways; for wind that flutters use the aerodynamic fields below.
    pub external_acceleration: [f32; 3],
    /// Air velocity \[m/s\] seen by the aerodynamic model (per-triangle drag and lift from the
    /// velocity relative to the air, Keckeisen et al. 2004; see `solver/wind.rs`). Default 0:
    /// still air. Must stay 0 while both coefficients are 0, so that wind is never silently ignored.
    pub wind_velocity: [f32; 3],
    /// Aerodynamic drag coefficient C_D [-] (≈ 1 for a flat plate facing the flow). Default 0.
    /// Aerodynamics is off, at no cost, while `drag_coefficient` and `lift_coefficient` are both 0.
    pub drag_coefficient: f32,
    /// Aerodynamic lift coefficient C_L [-] (force perpendicular to the flow, ≈ 0.2–0.5 for cloth).
    /// Default 0.
    pub lift_coefficient: f32,
    /// Air density ρ \[kg/m³\] for the aerodynamic forces. Default 1.225 (sea level, 15 °C).
    pub air_density: f32,
    /// Substeps per step for this cloth, 0..=1000; 0 = the world's setting.
    pub substeps: u32,
    /// Solver iterations per substep for this cloth; 0 = the world's setting.
    pub iterations: u32,
    /// Contact thickness \[m\]: particles are kept at least this far from every collider's surface
    /// (C = signed distance − thickness ≥ 0). Not the fabric thickness of the material.
    pub collision_thickness: f32,
    /// Collision layers this cloth collides with: a collider counts when
    /// `collider.layers & collision_mask != 0`. Default all bits; 0 = no collisions.
    pub collision_mask: u32,
    /// Largest speed \[m/s\] at which a particle that starts inside a collider is pushed out
    /// (see [`crate::collision`]): bounds the separation velocity of spawned-inside cloth.
    /// Default 0.5 m/s. The cloth around an overlap moves faster while it rearranges (its
    /// stretch constraints pass the push on): about 3–6 × this speed in the tests.
    pub max_depenetration_speed: f32,
    /// Inertia scale s in [0, 1]: the fraction of its pins' translation the cloth feels as inertia.
    /// Before each step the cloth (free particles and the pins' start positions) is moved rigidly by
    /// (1 − s)·Δ, Δ the mean translation of the pinned particles over that step (target − start),
    /// without changing any velocity; the pins travel the rest over the step.
    /// 1 (default): fully physical, the cloth lags and swings behind its pins; 0: the pins'
    /// translation carries the whole cloth, which only feels their rotation and relative motion
    /// (a cape that does not stream out behind a dashing character). No effect without pins.
    /// See [`crate::cloth::inertia`].
    pub inertia_scale: f32,
    /// Largest plausible particle speed v_max \[m/s\] for the explosion guard: a step in which a
    /// particle moves farther than d_pins + d_colliders + 2·L + v_max·dt counts as unstable
    /// (d_pins the largest pin move of the step, d_colliders the largest collider move, L the
    /// rest-pose bounding-box diagonal; see [`crate::cloth::guard`]).
    /// Default 100 m/s (above the terminal speed of any cloth).
    pub max_particle_speed: f32,
    /// What happens to a cloth whose step failed the guard. Default: back to its last good state.
    pub unstable_recovery: UnstableRecovery,
    /// Self-collision (see [`crate::collision`], `self_collision.rs`): particles of this cloth are
    /// kept at least 2r apart, r = [`ClothParams::self_collision_radius`], except pairs already
    /// closer than 2r in the mesh as created. Default [`DEFAULT_SELF_COLLISION`].
    pub self_collision: bool,
    /// Self-collision particle radius r \[m\], 1e-6..=1 (else `InvalidParameter`), or `None`
    /// (default) for `collision_thickness`. For a mesh of edge length s, r = 0.5·s keeps
    /// particles from slipping through the holes between the particles of another layer (below
    /// 0.36·s the middle of a quad is open; in between, a particle can settle a few millimetres
    /// from the other layer's plane and ratchet through); 2r must stay below the smallest gap
    /// between layers of the mesh as created.
    pub self_collision_radius: Option<f32>,
    /// Static friction coefficient μ_s between touching parts of the cloth (Macklin et al. 2014,
    /// §6; the model of collider contacts). Default 0.5.
    pub self_static_friction: f32,
    /// Kinetic friction coefficient μ_k between touching parts of the cloth. Default 0.4.
    pub self_kinetic_friction: f32,
    /// Collide with the other cloths of the world that also have this on (see
    /// `collision/inter_cloth.rs`): particles of the two cloths kept r_a + r_b apart, with each
    /// cloth's self-collision radius and friction. Independent of `self_collision`. Default off.
    pub inter_cloth_collision: bool,
}

/// Whether self-collision is on in [`ClothParams::default`]. Off: the radius that works depends on
/// the mesh (r ≈ half the edge length, see [`ClothParams::self_collision_radius`]), so no default
/// radius suits every mesh; and with the 5 mm default on, the validated 128² light stiff cloth
/// (7.9 mm edges) ends 2.2e-4 m beyond its tether bounds (tests/colouring.rs allows 1e-4) because
/// the self-collision pass runs after the tethers, and the test file ran about 2 × longer
/// (197 s against 95 s, `--profile ci` on the loaded 2-core machine).
pub const DEFAULT_SELF_COLLISION: bool = false;

impl Default for ClothParams {
    fn default() -> Self {
        ClothParams {
            material: Material::default(),
            stretch_compliance: None,
            bend_compliance: None,
            tether_compliance: 0.0,
            stretch_damping: 0.0,
            bend_damping: 0.0,
            tether_slack: 1.0,
            linear_damping: 0.0,
            enable_stretch: true,
            enable_bending: true,
            enable_tethers: true,
            external_acceleration: [0.0; 3],
            wind_velocity: [0.0; 3],
            drag_coefficient: 0.0,
            lift_coefficient: 0.0,
            air_density: 1.225,
            substeps: 0,
            iterations: 0,
            collision_thickness: 0.005,
            collision_mask: u32::MAX,
            max_depenetration_speed: 0.5,
            inertia_scale: 1.0,
            max_particle_speed: 100.0,
            unstable_recovery: UnstableRecovery::LastGoodState,
            self_collision: DEFAULT_SELF_COLLISION,
            self_collision_radius: None,
            self_static_friction: 0.5,
            self_kinetic_friction: 0.4,
            inter_cloth_collision: false,
        }
    }
}

/// Upper bound on substeps/iterations: beyond this a step would take seconds, which is a bug in the
/// caller, not a setting.
pub const MAX_SUBSTEPS: u32 = 1000;

impl ClothParams {
    /// Reject impossible values, naming the field: negative compliance or one above
    /// [`crate::material::MAX_COMPLIANCE`] (1e20), negative or non-finite damping,
    /// slack below 1, substeps or iterations above [`MAX_SUBSTEPS`], invalid material, collision
    /// thickness outside [0, 1] m, depenetration speed outside (0, 1000] m/s, wind with both
    /// aerodynamic coefficients 0, inertia scale outside [0, 1], maximum particle speed outside
    /// (0, 1e6] m/s, self-collision radius outside [1e-6, 1] m (or derived from a collision
    /// thickness below 1e-6 m while self- or inter-cloth collision is on), friction outside [0, 100].
    pub fn validate(&self) -> Result<(), ClothError> {
        self.material.validate()?;
        const INF: f32 = f32::MAX;
        const MAX_ALPHA: f32 = crate::material::MAX_COMPLIANCE;
        if let Some(a) = self.stretch_compliance {
            check_range("stretch_compliance", a, 0.0, MAX_ALPHA, "0 <= m/N <= 1e20")?;
        }
        if let Some(a) = self.bend_compliance {
            check_range("bend_compliance", a, 0.0, MAX_ALPHA, "0 <= rad/(N·m) <= 1e20")?;
        }
        check_range("tether_compliance", self.tether_compliance, 0.0, MAX_ALPHA, "0 <= m/N <= 1e20")?;
        check_range("stretch_damping", self.stretch_damping, 0.0, INF, "N·s/m >= 0")?;
        check_range("bend_damping", self.bend_damping, 0.0, INF, "N·m·s/rad >= 0")?;
        check_range("tether_slack", self.tether_slack, 1.0, 1.0e3, "1 <= s <= 1000")?;
        check_range("linear_damping", self.linear_damping, 0.0, INF, "1/s >= 0")?;
        for a in self.external_acceleration {
            check_range("external_acceleration", a, -1.0e6, 1.0e6, "finite m/s²")?;
        }
        for v in self.wind_velocity {
            check_range("wind_velocity", v, -1.0e4, 1.0e4, "finite m/s")?;
        }
        check_range("drag_coefficient", self.drag_coefficient, 0.0, 100.0, "0 <= C_D <= 100")?;
        check_range("lift_coefficient", self.lift_coefficient, 0.0, 100.0, "0 <= C_L <= 100")?;
        check_range("air_density", self.air_density, 0.0, 1.0e4, "0 <= kg/m³ <= 1e4")?;
        if self.wind_velocity != [0.0; 3] && self.drag_coefficient == 0.0 && self.lift_coefficient == 0.0 {
            return Err(ClothError::InvalidParameter {
                name: "wind_velocity",
                value: self.wind_velocity.iter().map(|&v| v as f64 * v as f64).sum::<f64>().sqrt(),
                expected: "0 unless drag_coefficient or lift_coefficient > 0 (else the wind would do nothing)",
            });
        }
        check_count("substeps", self.substeps, 0, MAX_SUBSTEPS, "0..=1000 (0 = world)")?;
        check_count("iterations", self.iterations, 0, MAX_SUBSTEPS, "0..=1000 (0 = world)")?;
        check_range("collision_thickness", self.collision_thickness, 0.0, 1.0, "0 <= m <= 1")?;
        check_range("max_depenetration_speed", self.max_depenetration_speed, 1e-6, 1.0e3, "0 < m/s <= 1000")?;
        check_range("inertia_scale", self.inertia_scale, 0.0, 1.0, "0 <= s <= 1")?;
        check_range("max_particle_speed", self.max_particle_speed, 1e-3, 1.0e6, "0.001 <= m/s <= 1e6")?;
        if let Some(r) = self.self_collision_radius {
            check_range("self_collision_radius", r, 1e-6, 1.0, "1e-6 <= m <= 1")?;
        } else if (self.self_collision || self.inter_cloth_collision) && self.collision_thickness < 1e-6 {
            return Err(ClothError::InvalidParameter {
                name: "self_collision_radius",
                value: self.collision_thickness as f64,
                expected: "a radius >= 1e-6 m: set it, or a collision_thickness >= 1e-6 m to derive it from",
            });
        }
        check_range("self_static_friction", self.self_static_friction, 0.0, 100.0, "0 <= mu_s <= 100")?;
        check_range("self_kinetic_friction", self.self_kinetic_friction, 0.0, 100.0, "0 <= mu_k <= 100")?;
        Ok(())
    }

    /// The self-collision radius r \[m\] in use: `self_collision_radius`, else `collision_thickness`.
    pub fn effective_self_collision_radius(&self) -> f32 {
        self.self_collision_radius.unwrap_or(self.collision_thickness)
    }
}

/// Everything needed to create a cloth from a render mesh.
#[derive(Clone, Copy, Debug)]
pub struct ClothDesc<'a> {
    /// Render vertex positions \[m\], `vertex_count` entries.
    pub positions: &'a [[f32; 3]],
    /// Triangle list, `3·triangle_count` render vertex indices. May be empty (free particles).
    pub indices: &'a [u32],
    /// Extra distance constraints between render vertex pairs (ropes, tassels, strands, or a
    /// particle chain), `[u32; 2] × line_count`. They behave like triangle edges without area: no
    /// bending, and a material-derived compliance of 0 (rigid) since no area backs them; set
    /// `stretch_compliance` to make them elastic. Duplicates of triangle edges are ignored.
    pub lines: &'a [[u32; 2]],
    /// Optional inverse mass per render vertex \[1/kg\], `vertex_count` entries; 0 = fixed in place.
    /// Copies of a welded vertex: the particle takes the first copy's value, or 0 if any copy is 0.
    /// `None`: masses come from the material's areal density (lumped: a third of each adjacent
    /// triangle's mass per corner).
    pub inverse_masses: Option<&'a [f32]>,
    /// Vertices closer than this \[m\] become one particle (engines split vertices at UV seams).
    /// 0 disables welding.
    pub weld_tolerance: f32,
    /// Settings that can also change later.
    pub params: ClothParams,
}

/// Default weld tolerance \[m\]: far below any real edge length, far above float noise in exported
/// duplicate positions.
pub const DEFAULT_WELD_TOLERANCE: f32 = 1.0e-6;

impl<'a> ClothDesc<'a> {
    /// A descriptor with default parameters for the given mesh.
    pub fn new(positions: &'a [[f32; 3]], indices: &'a [u32]) -> Self {
        ClothDesc {
            positions,
            indices,
            lines: &[],
            inverse_masses: None,
            weld_tolerance: DEFAULT_WELD_TOLERANCE,
            params: ClothParams::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wind_without_aerodynamic_coefficients_is_rejected_not_ignored() {
        let windy = ClothParams { wind_velocity: [4.0, 0.0, 3.0], ..ClothParams::default() };
        match windy.validate() {
            Err(ClothError::InvalidParameter { name, value, .. }) => {
                assert_eq!(name, "wind_velocity");
                assert_eq!(value, 5.0);
            }
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(ClothParams { drag_coefficient: 1.0, ..windy }.validate(), Ok(()));
        assert_eq!(ClothParams { lift_coefficient: 0.3, ..windy }.validate(), Ok(()));
    }

    /// A rejected count is reported as given: through `f32` (the old check) 4 294 967 295 and
    /// 16 777 217 came out as 4 294 967 296 and 16 777 216. The bounds themselves hold.
    #[test]
    fn rejected_counts_are_reported_exactly() {
        for (value, text) in [(u32::MAX, "4294967295"), (16_777_217, "16777217"), (1001, "1001")] {
            let error = ClothParams { substeps: value, ..ClothParams::default() }.validate().unwrap_err();
            assert!(error.to_string().contains(&format!("`substeps` = {text} is invalid")), "{error}");
            let world = crate::WorldDesc { thread_count: value, ..crate::WorldDesc::default() }.validate().unwrap_err();
            assert!(world.to_string().contains(&format!("`thread_count` = {text} is invalid")), "{world}");
        }
        assert_eq!(ClothParams { substeps: MAX_SUBSTEPS, iterations: 0, ..ClothParams::default() }.validate(), Ok(()));
        let bounds = crate::WorldDesc { substeps: 1, iterations: MAX_SUBSTEPS, thread_count: 256, ..crate::WorldDesc::default() };
        assert_eq!(bounds.validate(), Ok(()));
        assert!(crate::WorldDesc { iterations: 0, ..crate::WorldDesc::default() }.validate().is_err());
        assert!(crate::WorldDesc { thread_count: 257, ..crate::WorldDesc::default() }.validate().is_err());
    }
}
