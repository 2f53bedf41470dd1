//! The immutable part of a cloth: what its mesh determines, built once at creation. Cloths made
//! from the same mesh can share one model (`Arc`): nothing here changes while a cloth lives.

use super::normals::ParticleTriangles;
use super::state_hash::{FNV_OFFSET_BASIS, fnv1a};
use super::{ClothDesc, MeshInfo};
use crate::constraints::dihedral_angle;
use crate::constraints::layout::RestConstraints;
use crate::error::{ClothError, check_range};
use crate::material::{Material, edge_stretch_compliance, hinge_bend_compliance};
use crate::mesh::{MeshTopology, repair, validate_indices, validate_lines, validate_positions, validate_triangle_areas, weld_by_position};
use glam::Vec3;

/// Mass \[kg\] of a particle that no triangle uses, when masses come from areal density and the
/// cloth has no triangles at all to take an average from.
pub const ISOLATED_PARTICLE_MASS: f32 = 1.0e-3;

/// A cloth's welded mesh and rest values (module docs).
#[derive(Clone, Debug)]
pub struct ClothModel {
    /// Mesh facts found while creating the cloth.
    pub(crate) info: MeshInfo,
    /// Render vertex → particle, `u32[vertex_count]`.
    pub(crate) particle_of_vertex: Vec<u32>,
    /// Triangles in particle indices (for normals and wind).
    pub(crate) triangles: Vec<[u32; 3]>,
    /// Particle positions as created \[m\]: the rest pose.
    pub(crate) rest: Vec<Vec3>,
    /// Diagonal of the rest pose's bounding box \[m\] (the explosion guard's L).
    pub(crate) rest_extent: f32,
    /// The longest edge's rest length \[m\] (0 without edges): which colliders are thin enough
    /// to pass between two particles (`crate::collision::edge_contact`).
    pub(crate) longest_edge: f32,
    /// A third of the rest area of every triangle around each particle \[m²\].
    pub(crate) particle_area: Vec<f32>,
    /// Inverse masses per particle \[1/kg\] from the descriptor, or `None`: masses from areal density.
    pub(crate) given_inverse_masses: Option<Vec<f32>>,
    /// Edges, hinges and the tethers' distance graph in creation order, with rest values.
    pub(crate) constraints: RestConstraints,
    /// Rest area of the triangles around each edge \[m²\], creation order.
    pub(crate) edge_adjacent_area: Vec<f32>,
    /// Rest area of the triangles around each hinge's edge \[m²\], and that edge's length \[m\].
    pub(crate) hinge_adjacent_area: Vec<f32>,
    pub(crate) hinge_edge_length: Vec<f32>,
    /// Each particle's triangles, for summing normals and wind forces per particle.
    pub(crate) particle_triangles: ParticleTriangles,
    /// Identifies the mesh as created in snapshots (see [`super::snapshot`]); cuts keep it.
    pub(crate) fingerprint: u64,
    /// The render triangles in render vertex indices, as given (after cuts: the torn mesh's).
    pub(crate) render_triangles: Vec<[u32; 3]>,
    /// The simulated triangles enclose a volume: no boundary or non-manifold edge, every edge run
    /// in opposite directions by its two triangles (what pressure needs, `super::pressure`).
    pub(crate) closed: bool,
    /// Signed volume of the rest pose \[m³\] when `closed` (negative: wound inward), else 0.
    pub(crate) rest_volume: f32,
    /// What a cut needs and changes (`super::tear`), for a cloth created with
    /// `max_extra_vertices` > 0.
    pub(crate) tear: Option<Box<super::tear::TearTopology>>,
    /// Names the render topology (map, triangles, vertex sources): unique to this mesh as built
    /// and renewed by every change of it ([`next_topology_stamp`]), so a copy of the reads knows
    /// when to copy it again.
    pub(crate) topology_stamp: u64,
}

/// A topology stamp no mesh had before (see [`ClothModel::topology_stamp`]).
pub(crate) fn next_topology_stamp() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Whether every point of `rest` \[m\] lies within 1e-5 of the mesh's extent of the plane of the
/// first triangle (a flat rest mesh; none without triangles).
/// Render vertices that share their particle with another render vertex.
fn welded_vertices(particle_of_vertex: &[u32], particle_count: usize) -> u32 {
    let mut copies = vec![0u32; particle_count];
    for &p in particle_of_vertex {
        copies[p as usize] += 1;
    }
    particle_of_vertex.iter().filter(|&&p| copies[p as usize] > 1).count() as u32
}

fn is_planar(rest: &[Vec3], triangles: &[[u32; 3]]) -> bool {
    let Some(&[a, b, c]) = triangles.first() else { return false };
    let (a, b, c) = (rest[a as usize], rest[b as usize], rest[c as usize]);
    let normal = (b - a).cross(c - a).normalize_or_zero();
    let (lo, hi) = rest.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    let tolerance = 1e-5 * (hi - lo).length();
    normal != Vec3::ZERO && rest.iter().all(|p| (*p - a).dot(normal).abs() <= tolerance)
}

impl ClothModel {
    /// Validate the mesh of `desc` and build its model. Errors: every [`ClothError`] mesh variant,
    /// with the offending vertex, triangle or line; `InvalidParameter` for `weld_tolerance`.
    /// Nothing is allocated for the model before the input checks have passed.
    pub(crate) fn build(desc: &ClothDesc) -> Result<ClothModel, ClothError> {
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
        let mut triangles: Vec<[u32; 3]> = desc
            .indices
            .chunks_exact(3)
            .map(|t| [0, 1, 2].map(|k| weld.particle_of_vertex[t[k] as usize]))
            .collect();
        let rest = weld.particle_positions;
        validate_triangle_areas(&triangles, &rest)?;
        let repairs = repair(&mut triangles);
        let lines: Vec<[u32; 2]> = desc
            .lines
            .iter()
            .map(|l| l.map(|v| weld.particle_of_vertex.get(v as usize).copied().unwrap_or(u32::MAX)))
            .collect();
        validate_lines(desc.lines, &lines, vertex_count)?;

        let particle_count = rest.len();
        let topo = MeshTopology::build(&triangles, &lines, &rest);
        let mut particle_area = vec![0.0f32; particle_count];
        for (tri, area) in triangles.iter().zip(&topo.triangle_area) {
            for &p in tri {
                particle_area[p as usize] += area / 3.0;
            }
        }
        // Copies of a welded vertex: the first copy's value, or 0 if any copy is 0.
        let given_inverse_masses = desc.inverse_masses.map(|inv| {
            let mut w = vec![0.0f32; particle_count];
            let mut seen = vec![false; particle_count];
            for (v, &p) in weld.particle_of_vertex.iter().enumerate() {
                let p = p as usize;
                if !seen[p] {
                    w[p] = inv[v];
                    seen[p] = true;
                } else if inv[v] == 0.0 {
                    w[p] = 0.0;
                }
            }
            w
        });

        let rest_length: Vec<f32> = topo.edges.iter().map(|&[i, j]| rest[i as usize].distance(rest[j as usize])).collect();
        let rest_angle = topo.hinges.iter().map(|h| dihedral_angle(h.map(|i| rest[i as usize])).unwrap_or(0.0)).collect();
        let mut distance_links = topo.edges.clone();
        let mut distance_length = rest_length.clone();
        for h in &topo.hinges {
            distance_links.push([h[0], h[1]]);
            distance_length.push(rest[h[0] as usize].distance(rest[h[1] as usize]));
        }
        let hinge_adjacent_area = topo.hinge_edge.iter().map(|&e| topo.edge_adjacent_area[e as usize]).collect();
        let hinge_edge_length = topo.hinge_edge.iter().map(|&e| rest_length[e as usize]).collect();
        let info = MeshInfo {
            vertex_count: vertex_count as u32,
            particle_count: particle_count as u32,
            triangle_count: triangles.len() as u32,
            edge_count: topo.edges.len() as u32,
            hinge_count: topo.hinges.len() as u32,
            boundary_edges: topo.boundary_edges,
            non_manifold_edges: repairs.non_manifold_edges,
            isolated_particles: particle_area.iter().filter(|&&a| a == 0.0).count() as u32,
            welded_vertices: welded_vertices(&weld.particle_of_vertex, particle_count),
            duplicate_triangles: repairs.duplicate_triangles,
            inconsistent_winding_edges: repairs.inconsistent_edges,
            flipped_triangles: repairs.flipped_triangles,
            skipped_hinges: topo.non_manifold_edges + topo.two_triangle_edges - topo.hinges.len() as u32,
            closed: false,
        };
        let (lo, hi) = rest.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        let planar = is_planar(&rest, &triangles);
        let closed = super::pressure::is_closed(&triangles);
        let info = MeshInfo { closed, ..info };
        let rest_volume = if closed { super::pressure::enclosed_volume(&rest, &triangles) as f32 } else { 0.0 };
        let render_triangles: Vec<[u32; 3]> = desc.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
        let mut model = ClothModel {
            info,
            particle_triangles: ParticleTriangles::build(&triangles, particle_count),
            particle_of_vertex: weld.particle_of_vertex,
            triangles,
            rest_extent: if rest.is_empty() { 0.0 } else { (hi - lo).length() },
            longest_edge: rest_length.iter().copied().fold(0.0, f32::max),
            particle_area,
            given_inverse_masses,
            constraints: RestConstraints {
                particle_count,
                edges: topo.edges,
                rest_length,
                hinges: topo.hinges,
                rest_angle,
                distance_links,
                distance_length,
                planar,
                positions: rest.clone(),
            },
            edge_adjacent_area: topo.edge_adjacent_area,
            hinge_adjacent_area,
            hinge_edge_length,
            rest,
            fingerprint: 0,
            render_triangles,
            closed,
            rest_volume,
            tear: None,
            topology_stamp: next_topology_stamp(),
        };
        model.fingerprint = model.compute_fingerprint();
        if desc.max_extra_vertices > 0 {
            let tear = super::tear::TearTopology::build(&model, &topo.hinge_edge, desc.max_extra_vertices);
            model.tear = Some(Box::new(tear));
            // The mesh as created, for replaying a snapshot's cuts on.
            let created = std::sync::Arc::new(model.clone());
            model.tear.as_mut().expect("set above").created = Some(created);
        }
        Ok(model)
    }

    /// Particles after welding.
    pub(crate) fn particle_count(&self) -> usize {
        self.rest.len()
    }

    /// Inverse mass of each particle when free \[1/kg\] into `w_free` (`f32[particle count]`): the
    /// given ones, or from `material`'s areal density, lumped (a third of each adjacent triangle's
    /// mass per corner; a particle of no triangle gets the mean particle mass, or
    /// [`ISOLATED_PARTICLE_MASS`] without triangles).
    pub(crate) fn free_inverse_masses(&self, material: &Material, w_free: &mut [f32]) {
        if let Some(given) = &self.given_inverse_masses {
            w_free.copy_from_slice(given);
            return;
        }
        let total_area: f32 = self.particle_area.iter().sum();
        let with_area = self.particle_area.iter().filter(|&&a| a > 0.0).count();
        let isolated_mass = if with_area > 0 { material.areal_density * total_area / with_area as f32 } else { ISOLATED_PARTICLE_MASS };
        for (w, &a) in w_free.iter_mut().zip(&self.particle_area) {
            let mass = if a > 0.0 { material.areal_density * a } else { isolated_mass };
            *w = 1.0 / mass;
        }
    }

    /// Stretch compliance α \[m/N\] of edge `e` (creation index) derived from `material`.
    pub(crate) fn edge_compliance(&self, material: &Material, e: usize) -> f32 {
        edge_stretch_compliance(material, self.constraints.rest_length[e], self.edge_adjacent_area[e])
    }

    /// Bending compliance α \[rad/(N·m)\] of hinge `h` (creation index) derived from `material`.
    pub(crate) fn hinge_compliance(&self, material: &Material, h: usize) -> f32 {
        hinge_bend_compliance(material, self.hinge_edge_length[h], self.hinge_adjacent_area[h])
    }

    /// FNV-1a 64 of what identifies the mesh: the render→particle map, the triangles (particle
    /// indices) and the bits of the rest positions.
    fn compute_fingerprint(&self) -> u64 {
        let mut h = fnv1a(FNV_OFFSET_BASIS, &(self.particle_of_vertex.len() as u64).to_le_bytes());
        for &p in &self.particle_of_vertex {
            h = fnv1a(h, &p.to_le_bytes());
        }
        for t in &self.triangles {
            t.iter().for_each(|i| h = fnv1a(h, &i.to_le_bytes()));
        }
        for r in &self.rest {
            r.to_array().iter().for_each(|c| h = fnv1a(h, &c.to_bits().to_le_bytes()));
        }
        h
    }
}
