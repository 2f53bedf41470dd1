//! Physical material description and the formulas that turn it into masses and compliances.
//!
//! All quantities are SI. The formulas are lumped (per mesh element) approximations; they are
//! chosen so that a parameter means the same thing at any mesh resolution, time step and substep
//! count, as far as a mass–spring/hinge discretisation allows.

use crate::error::{ClothError, check_range};

/// A thin isotropic sheet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    /// Mass per unit area \[kg/m²\]. Cotton shirting ≈ 0.1–0.2, denim ≈ 0.4.
    pub areal_density: f32,
    /// Young's modulus of the fabric \[Pa\]. Drives the derived stretch and bending compliances.
    pub youngs_modulus: f32,
    /// Poisson ratio ν [-], in `[0, 0.5)`. Only enters the flexural rigidity D (edge springs cannot
    /// represent ν independently; see [`edge_stretch_compliance`]).
    pub poisson_ratio: f32,
    /// Physical fabric thickness t \[m\] (not the collision thickness).
    pub thickness: f32,
}

impl Default for Material {
    /// A light cotton: 0.15 kg/m², E = 5 MPa, ν = 0.3, t = 0.5 mm.
    fn default() -> Self {
        Material { areal_density: 0.15, youngs_modulus: 5.0e6, poisson_ratio: 0.3, thickness: 5.0e-4 }
    }
}

impl Material {
    /// Reject impossible values (non-finite, non-positive density/modulus/thickness, ν outside
    /// `[0, 0.5)`), naming the field.
    pub fn validate(&self) -> Result<(), ClothError> {
        check_range("areal_density", self.areal_density, f32::MIN_POSITIVE, 1.0e6, "kg/m² > 0")?;
        check_range("youngs_modulus", self.youngs_modulus, f32::MIN_POSITIVE, 1.0e15, "Pa > 0")?;
        check_range("poisson_ratio", self.poisson_ratio, 0.0, 0.499, "0 <= nu < 0.5")?;
        check_range("thickness", self.thickness, f32::MIN_POSITIVE, 1.0, "m > 0")?;
        Ok(())
    }

    /// Flexural rigidity D = E·t³ / (12·(1 − ν²)) \[N·m\] (Kirchhoff–Love plate theory).
    pub fn flexural_rigidity(&self) -> f32 {
        self.flexural_rigidity_f64() as f32
    }

    /// [`Material::flexural_rigidity`] in f64, where it cannot underflow for valid materials.
    fn flexural_rigidity_f64(&self) -> f64 {
        let t = self.thickness as f64;
        let nu = self.poisson_ratio as f64;
        self.youngs_modulus as f64 * t * t * t / (12.0 * (1.0 - nu * nu))
    }
}

/// Largest compliance α accepted or derived [m/N for lengths, rad/(N·m) for bending]. The solver
/// divides it by h² (XPBD's α̃ = α/h², Macklin et al. 2016, eq. 9): at the smallest substep
/// (`MIN_TIME_STEP` / `MAX_SUBSTEPS` = 1e-8 s) α̃ is then at most 1e36, still finite in f32,
/// where a larger α overflowed to ∞ and the first projection computed ∞·0 = NaN. A constraint
/// this compliant holds with 1e-20 N per metre: none at all in practice.
pub const MAX_COMPLIANCE: f32 = 1.0e20;

/// Stretch compliance α \[m/N\] of one edge of rest length `rest_length` \[m\] whose adjacent
/// triangles have total rest area `adjacent_area` \[m²\].
///
/// Edge stiffness k = E·t·ΣA / L² (Van Gelder 1998, "Approximate simulation of elastic membranes
/// by triangulated spring meshes", eq. for the 2-D case; exact for ν = 1/3), α = 1/k. Because k is
/// proportional to the area an edge represents over its squared length, the sheet's stiffness
/// does not change with mesh resolution.
///
/// At most [`MAX_COMPLIANCE`] (a material soft enough to exceed it gives constraints that hold
/// nothing either way); 0 for a degenerate edge (k not positive).
pub fn edge_stretch_compliance(material: &Material, rest_length: f32, adjacent_area: f32) -> f32 {
    let k = material.youngs_modulus as f64 * material.thickness as f64 * adjacent_area as f64
        / (rest_length as f64 * rest_length as f64);
    compliance_of_stiffness(k)
}

/// α = 1/k capped at [`MAX_COMPLIANCE`]; 0 when k is not positive (a degenerate element).
fn compliance_of_stiffness(k: f64) -> f32 {
    if k > 0.0 { (1.0 / k).min(MAX_COMPLIANCE as f64) as f32 } else { 0.0 }
}

/// Bending compliance α \[rad/(N·m)\] of one hinge (interior edge) with rest edge length `edge_length`
/// \[m\] and adjacent rest triangle areas summing to `adjacent_area` \[m²\].
///
/// Discrete Shells (Grinspun et al. 2003, eq. 3): E_B = k_B·(θ − θ̄)²·‖ē‖/h̄_e with
/// h̄_e = (A₁ + A₂)/(3‖ē‖); with k_B = D/2 (flexural rigidity, D = E·t³/(12(1 − ν²))) this is the
/// XPBD energy ½·(θ − θ̄)²/α with α = (A₁ + A₂) / (3·D·‖ē‖²).
///
/// At most [`MAX_COMPLIANCE`]. D is [`Material::flexural_rigidity`] rounded to f32, as it always
/// was, unless that is not a normal float: for a very thin or soft material E·t³ underflowed f32
/// to 0, which made the hinge rigid instead of limp, and D is then taken in f64.
pub fn hinge_bend_compliance(material: &Material, edge_length: f32, adjacent_area: f32) -> f32 {
    let d32 = material.flexural_rigidity();
    let d = if d32.is_normal() { d32 as f64 } else { material.flexural_rigidity_f64() };
    let k = 3.0 * d * edge_length as f64 * edge_length as f64 / adjacent_area as f64;
    compliance_of_stiffness(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flexural_rigidity_matches_plate_formula() {
        let m = Material { areal_density: 1.0, youngs_modulus: 1.2e7, poisson_ratio: 0.0, thickness: 1e-3 };
        // D = 1.2e7 · 1e-9 / 12 = 1e-3 N·m
        assert!((m.flexural_rigidity() - 1e-3).abs() < 1e-9);
    }

    #[test]
    fn stretch_compliance_is_resolution_independent() {
        // A square sheet of side 1 m split into n×n quads: each axis edge has length 1/n and
        // adjacent area 1/n² (two half-quads), so k = E·t for every n.
        let m = Material::default();
        for n in [4.0f32, 32.0, 128.0] {
            let alpha = edge_stretch_compliance(&m, 1.0 / n, 1.0 / (n * n));
            let k = 1.0 / alpha;
            assert!((k / (m.youngs_modulus * m.thickness) - 1.0).abs() < 1e-4);
        }
    }

    #[test]
    fn the_softest_valid_material_gives_capped_compliances_not_infinite_or_rigid_ones() {
        let limp = Material { youngs_modulus: f32::MIN_POSITIVE, thickness: f32::MIN_POSITIVE, ..Material::default() };
        limp.validate().unwrap();
        // k = E·t·A/L² ≈ 1e-76 N/m: α = 1/k would be ∞ in f32; E·t³ underflows f32 to 0, which
        // made the hinge rigid (α = 0).
        assert_eq!(edge_stretch_compliance(&limp, 0.01, 1e-4), MAX_COMPLIANCE);
        assert_eq!(hinge_bend_compliance(&limp, 0.01, 1e-4), MAX_COMPLIANCE);
        // An ordinary material is far below the cap, and unchanged by it: α = L²/(E·t·A).
        let cotton = Material { youngs_modulus: 1.0e7, thickness: 1.0e-3, ..Material::default() };
        let alpha = edge_stretch_compliance(&cotton, 0.01, 1e-4);
        let k = 1.0e7 * 1.0e-3f32 as f64 * 1e-4f32 as f64 / (0.01f32 as f64 * 0.01f32 as f64);
        assert_eq!(alpha, (1.0 / k) as f32);
        assert!((alpha - 1e-4).abs() < 1e-9, "{alpha}");
        assert_eq!(edge_stretch_compliance(&cotton, 0.01, 0.0), 0.0, "degenerate edge");
    }

    #[test]
    fn invalid_material_names_the_field() {
        let m = Material { poisson_ratio: 0.7, ..Material::default() };
        match m.validate() {
            Err(ClothError::InvalidParameter { name, .. }) => assert_eq!(name, "poisson_ratio"),
            other => panic!("unexpected {other:?}"),
        }
    }
}
