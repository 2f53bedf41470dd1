//! Creating a cloth: validate everything, then weld, build topology and constraints.
//! Nothing is allocated for the cloth before all input checks have passed.

use super::{Cloth, ClothDesc, ClothParams, MeshInfo, ParticleTriangles, Particles, Pins, UnstableRecovery};
use crate::collision::contact::ContactScratch;
use crate::collision::self_collision::SelfCollision;
use crate::constraints::{BendingConstraints, StretchConstraints, TetherConstraints, dihedral_angle};
use crate::constraints::access::RowOffsets;
use crate::error::{ClothError, check_range};
use crate::material::{edge_stretch_compliance, hinge_bend_compliance};
use crate::mesh::{
    MeshTopology, validate_indices, validate_lines, validate_positions, validate_triangle_areas, weld_by_position,
};
use crate::stats::ClothStats;
use glam::Vec3;

/// Mass \[kg\] of a particle that no triangle uses, when masses come from areal density and the
/// cloth has no triangles at all to take an average from.
pub const ISOLATED_PARTICLE_MASS: f32 = 1.0e-3;

/// Whether a new cloth's constraints are coloured (see [`Cloth::set_constraint_colouring`]). On:
/// the sweeps use the lane-wise kernels (1.3× fewer instructions per projection) and large cloths
/// split each colour over the world's threads, and the coloured order has lower residuals on the
/// light stiff validation cloth (48², 2 s: p95 |C| stretch 5.8e-4 vs 6.0e-4 m, bending 0.089 vs
/// 0.30 rad; tests/colouring.rs). It was off while the greedy edge colouring carried a pin's
/// motion into the cloth one colour per edge per sweep: after pins jumped 2 m in one step the
/// strain no longer grew with the inertia scale (1.03 at s = 0.5 vs 0.71 at s = 1,
/// tests/robustness.rs). With the wavefront edge colouring: 0.81 vs 0.91 (anchor order 0.70 vs
/// 0.72). The 128² light stiff cloth ends 10 s at 48.7 % max strain against 34 % in the anchor
/// order (tests/colouring.rs allows 60 %).
pub const DEFAULT_CONSTRAINT_COLOURING: bool = true;

impl Cloth {
    /// Validate `desc` and build the cloth. Errors: every [`ClothError`] mesh variant, with the
    /// offending vertex or triangle; `InvalidParameter` for descriptor fields.
    pub(crate) fn new(desc: &ClothDesc) -> Result<Cloth, ClothError> {
        desc.params.validate()?;
        check_range("weld_tolerance", desc.weld_tolerance, 0.0, 1.0, "0 <= m <= 1")?;
        validate_positions(desc.positions)?;
        let vertex_count = desc.positions.len();
        validate_indices(desc.indices, vertex_count)?;
        if let Some(inv) = desc.inverse_masses {
            if inv.len() != vertex_count {
                return Err(ClothError::InverseMassCountMismatch { expected: vertex_count, got: inv.len() });
            }
            if let Some(v) = inv.iter().position(|w| !(w.is_finite() && *w >= 0.0)) {
                return Err(ClothError::InvalidInverseMass { vertex: v as u32, value: inv[v] });
            }
        }

        let weld = weld_by_position(desc.positions, desc.weld_tolerance);
        let triangles: Vec<[u32; 3]> = desc
            .indices
            .chunks_exact(3)
            .map(|t| [0, 1, 2].map(|k| weld.particle_of_vertex[t[k] as usize]))
            .collect();
        let rest = weld.particle_positions;
        validate_triangle_areas(&triangles, &rest)?;
        let lines: Vec<[u32; 2]> = desc
            .lines
            .iter()
            .map(|l| l.map(|v| weld.particle_of_vertex.get(v as usize).copied().unwrap_or(u32::MAX)))
            .collect();
        validate_lines(desc.lines, &lines, vertex_count)?;

        let particle_count = rest.len();
        let self_collision = SelfCollision::new(&rest);
        let topo = MeshTopology::build(&triangles, &lines, &rest);
        let mut particle_area = vec![0.0f32; particle_count];
        for (tri, area) in triangles.iter().zip(&topo.triangle_area) {
            for &p in tri {
                particle_area[p as usize] += area / 3.0;
            }
        }

        let mut w_free = vec![0.0f32; particle_count];
        if let Some(inv) = desc.inverse_masses {
            let mut seen = vec![false; particle_count];
            for (v, &p) in weld.particle_of_vertex.iter().enumerate() {
                let p = p as usize;
                if !seen[p] {
                    w_free[p] = inv[v];
                    seen[p] = true;
                } else if inv[v] == 0.0 {
                    w_free[p] = 0.0;
                }
            }
        }

        let rest_length: Vec<f32> = topo
            .edges
            .iter()
            .map(|&[i, j]| rest[i as usize].distance(rest[j as usize]))
            .collect();
        let edge_count = topo.edges.len();
        let stretch = StretchConstraints {
            edges: topo.edges.clone(),
            rest_length: rest_length.clone(),
            compliance: vec![0.0; edge_count],
            lambda: vec![0.0; edge_count],
            colour_start: Vec::new(),
            row_offsets: RowOffsets::with_capacity(edge_count),
        };
        let hinge_count = topo.hinges.len();
        let bending = BendingConstraints {
            hinges: topo.hinges.clone(),
            rest_angle: topo
                .hinges
                .iter()
                .map(|h| dihedral_angle(h.map(|i| rest[i as usize])).unwrap_or(0.0))
                .collect(),
            compliance: vec![0.0; hinge_count],
            lambda: vec![0.0; hinge_count],
            colour_start: Vec::new(),
            row_offsets: RowOffsets::with_capacity(hinge_count),
        };
        let hinge_adjacent_area = topo.hinge_edge.iter().map(|&e| topo.edge_adjacent_area[e as usize]).collect();
        let hinge_edge_length = topo.hinge_edge.iter().map(|&e| rest_length[e as usize]).collect();
        let mut distance_graph = (topo.edges.clone(), rest_length.clone());
        for h in &topo.hinges {
            distance_graph.0.push([h[0], h[1]]);
            distance_graph.1.push(rest[h[0] as usize].distance(rest[h[1] as usize]));
        }
        let isolated_particles = particle_area.iter().filter(|&&a| a == 0.0).count() as u32;

        let info = MeshInfo {
            vertex_count: vertex_count as u32,
            particle_count: particle_count as u32,
            triangle_count: triangles.len() as u32,
            edge_count: edge_count as u32,
            hinge_count: hinge_count as u32,
            boundary_edges: topo.boundary_edges,
            non_manifold_edges: topo.non_manifold_edges,
            isolated_particles,
        };
        let particle_triangles = ParticleTriangles::build(&triangles, particle_count);
        let per_triangle = vec![glam::Vec3A::ZERO; triangles.len()];
        let mut cloth = Cloth {
            info,
            particle_of_vertex: weld.particle_of_vertex,
            triangles,
            edge_adjacent_area: topo.edge_adjacent_area,
            hinge_adjacent_area,
            hinge_edge_length,
            edge_creation_index: (0..edge_count as u32).collect(),
            hinge_creation_index: (0..hinge_count as u32).collect(),
            distance_graph,
            masses_from_density: desc.inverse_masses.is_none(),
            particle_area,
            guard: super::guard::Guard::new(&rest),
            mesh_fingerprint: 0,
            particles: Particles {
                x: rest.clone(),
                x_prev: rest,
                v: vec![Vec3::ZERO; particle_count],
                w: w_free.clone(),
                w_free,
            },
            pins: Pins::default(),
            stretch,
            bending,
            tethers: TetherConstraints::default(),
            params: desc.params,
            colouring: DEFAULT_CONSTRAINT_COLOURING,
            contacts: ContactScratch::new(particle_count),
            self_collision,
            inter_cloth: Default::default(),
            world_key: 0,
            normals: vec![Vec3::ZERO; particle_count],
            sweep_rows: vec![glam::Vec4::ZERO; particle_count],
            particle_triangles,
            per_triangle,
            stats: ClothStats::default(),
            residuals: super::residuals::LazyResiduals::with_capacity(
                edge_count.max(particle_count * crate::constraints::tether::TETHERS_PER_PARTICLE).max(hinge_count),
            ),
            last_substep: 0.0,
        };
        cloth.apply_params(desc.params); // orders (and colours) the edges with the tethers
        cloth.order_bending();
        cloth.update_normals(false);
        cloth.mesh_fingerprint = cloth.compute_mesh_fingerprint();
        Ok(cloth)
    }

    /// Change the settings; takes effect at the next step, without moving any particle.
    /// Errors: `InvalidParameter` naming the field (state unchanged).
    pub fn set_params(&mut self, params: ClothParams) -> Result<(), ClothError> {
        let _change = self.begin_change();
        params.validate()?;
        self.apply_params(params);
        Ok(())
    }

    /// Derive compliances and (density-based) masses from validated `params`.
    fn apply_params(&mut self, params: ClothParams) {
        let m = &params.material;
        for e in 0..self.stretch.edges.len() {
            self.stretch.compliance[e] = params.stretch_compliance.unwrap_or_else(|| {
                edge_stretch_compliance(m, self.stretch.rest_length[e], self.edge_adjacent_area[e])
            });
        }
        for h in 0..self.bending.hinges.len() {
            self.bending.compliance[h] = params.bend_compliance.unwrap_or_else(|| {
                hinge_bend_compliance(m, self.hinge_edge_length[h], self.hinge_adjacent_area[h])
            });
        }
        if self.masses_from_density {
            let total_area: f32 = self.particle_area.iter().sum();
            let with_area = self.particle_area.iter().filter(|&&a| a > 0.0).count();
            let isolated_mass = if with_area > 0 {
                m.areal_density * total_area / with_area as f32
            } else {
                ISOLATED_PARTICLE_MASS
            };
            for (w, &a) in self.particles.w_free.iter_mut().zip(&self.particle_area) {
                let mass = if a > 0.0 { m.areal_density * a } else { isolated_mass };
                *w = 1.0 / mass;
            }
        }
        if params.self_collision {
            self.self_collision.prepare(); // allocate outside the step
        }
        let tethers_were_enabled = self.params.enable_tethers;
        if self.params.unstable_recovery == UnstableRecovery::Disabled {
            // The guard kept no state while disabled: it starts from the current one.
            self.remember_good_state();
        }
        self.params = params;
        self.refresh_inverse_masses();
        if self.tethers.particle.is_empty() || tethers_were_enabled != params.enable_tethers {
            self.rebuild_tethers();
        }
    }
}
