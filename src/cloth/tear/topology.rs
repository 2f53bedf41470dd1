//! The torn mesh and the one operation that tears it: a *crack* of the edge between two particles
//! separates the triangles that share it (docs/design.md, "Tearing"). After a crack, each end
//! particle whose triangles no longer hang together across uncut edges is split: the triangles of
//! the part that holds the lowest triangle index keep it, every other part gets a new particle at the
//! same place (and new render vertices where a render vertex is shared with the part that stays).
//! So the particles always say which triangles are joined: two triangles share a particle exactly
//! when a chain of uncut edges around it joins them, and the pieces of the mesh are the pieces its
//! cut edges imply.
//!
//! Everything here changes only what the crack touches: the fans of its two ends, the edges and
//! hinges of the triangles that move, their render triangles. The arrays a crack grows were given
//! their room at creation, so a crack allocates nothing.

use super::super::model::ClothModel;
use super::work::TearWork;
use crate::error::ClothError;
use std::collections::HashMap;

/// No hinge (an edge of one or three triangles, or a hinge dropped by a cut).
pub(crate) const NONE: u32 = u32::MAX;

/// The key of the undirected edge between particles `a` and `b`.
#[inline]
pub(crate) fn edge_key(a: u32, b: u32) -> u64 {
    ((a.min(b) as u64) << 32) | a.max(b) as u64
}

/// The most render vertices, or particles, that cuts can add to `model`: cut everywhere, every
/// corner of every triangle is its own render vertex and particle, so neither count can pass the
/// corners (3 × triangles) less those as created that a triangle uses. Room beyond it would be
/// memory no cut can use (a 1 << 28 request on an 81-vertex sheet asked for 38 GB), so the
/// reservation stops there.
pub(crate) fn reachable_extra(model: &ClothModel) -> u32 {
    let corners = 3 * model.render_triangles.len().max(model.triangles.len());
    let mut used = vec![false; model.particle_of_vertex.len()];
    for &v in model.render_triangles.as_flattened() {
        used[v as usize] = true;
    }
    let vertices = used.iter().filter(|&&u| u).count();
    let mut used = vec![false; model.rest.len()];
    for &p in model.triangles.as_flattened() {
        used[p as usize] = true;
    }
    let particles = used.iter().filter(|&&u| u).count();
    let room = corners.saturating_sub(vertices.min(particles));
    room.min(u32::MAX as usize) as u32
}

/// What a tearable cloth's model keeps to tear: the cuts so far and the lookups a crack needs.
#[derive(Clone, Debug)]
pub(crate) struct TearTopology {
    /// Render vertices and particles as created, and how many more were reserved.
    pub created_vertices: u32,
    pub created_particles: u32,
    pub max_extra: u32,
    /// Per render vertex made by a cut (index `created_vertices + k`): the render vertex as created
    /// it descends from (for UVs).
    pub vertex_source: Vec<u32>,
    /// Per particle made by a cut (index `created_particles + k`): the particle it was split from.
    pub particle_parent: Vec<u32>,
    /// The render triangles of each simulated triangle (one, or more where duplicates were
    /// dropped): `render_list[render_start[t]..render_start[t + 1]]`.
    render_start: Vec<u32>,
    render_list: Vec<u32>,
    /// Per simulated triangle, bit k: its edge (t\[k\], t\[k + 1\]) is cut.
    pub cut: Vec<u8>,
    /// Every edge's creation index by its two particles ([`edge_key`]).
    pub edge_index: HashMap<u64, u32>,
    /// Per edge (creation order), its hinge (creation order), or [`NONE`].
    pub edge_hinge: Vec<u32>,
    /// Per hinge, its two triangles: A = (x2, x3, x0) and B, the one with x1.
    pub hinge_triangles: Vec<[u32; 2]>,
    /// Hinges cut since the last compaction ([`TearTopology::compact_hinges`]).
    pub hinge_dead: Vec<bool>,
    /// The cracks so far, in order, as the two particles of each at its time: replayed on the
    /// mesh as created they give this mesh again, bit for bit (snapshots).
    pub log: Vec<[u32; 2]>,
    /// Grows with every crack that changed the mesh.
    pub version: u32,
    /// Particles the model's `particle_triangles` rows cover: those at the start of the current
    /// batch of cracks (a later particle's triangles are in the row of its ancestor among them).
    pub rows_cover: u32,
    /// The model as created (uncut), which a snapshot's cuts are replayed on
    /// ([`super::super::Cloth::restore_state`]); None in that copy itself.
    pub created: Option<std::sync::Arc<ClothModel>>,
}

/// What one crack did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Crack {
    /// The mesh changed (false: the edge was already cut or on the boundary).
    pub changed: bool,
    /// Particles split off.
    pub splits: u32,
}

impl TearTopology {
    /// The lookups of `model` as created, with room for `max_extra` more vertices and particles
    /// (no more than [`reachable_extra`]).
    /// `hinge_edge`: each hinge's edge (creation order).
    pub fn build(model: &ClothModel, hinge_edge: &[u32], max_extra: u32) -> TearTopology {
        let (vertices, particles) = (model.particle_of_vertex.len(), model.rest.len());
        let max_extra = max_extra.min(reachable_extra(model));
        let edges = &model.constraints.edges;
        let extra = max_extra as usize;
        let mut edge_index = HashMap::with_capacity(edges.len() + 2 * extra);
        for (e, &[i, j]) in edges.iter().enumerate() {
            edge_index.insert(edge_key(i, j), e as u32);
        }
        let mut edge_hinge = Vec::with_capacity(edges.len() + 2 * extra);
        edge_hinge.resize(edges.len(), NONE);
        for (h, &e) in hinge_edge.iter().enumerate() {
            edge_hinge[e as usize] = h as u32;
        }
        let incident = &model.particle_triangles;
        let find = |a: u32, b: u32, c: u32| -> u32 {
            let t = incident.of(a as usize).iter().find(|&&t| {
                let tri = model.triangles[t as usize];
                tri.contains(&b) && tri.contains(&c)
            });
            *t.expect("a hinge's triangles exist")
        };
        let hinge_triangles = model.constraints.hinges.iter().map(|&[x0, x1, x2, x3]| [find(x2, x3, x0), find(x2, x3, x1)]).collect();
        // Each render triangle's simulated triangle: the one with its three particles (the first
        // of duplicates, which repair keeps).
        let sim_of: HashMap<[u32; 3], u32> = model
            .triangles
            .iter()
            .enumerate()
            .map(|(t, tri)| {
                let mut key = *tri;
                key.sort_unstable();
                (key, t as u32)
            })
            .collect();
        let mut render_start = vec![0u32; model.triangles.len() + 1];
        let of_render: Vec<u32> = model
            .render_triangles
            .iter()
            .map(|r| {
                let mut key = r.map(|v| model.particle_of_vertex[v as usize]);
                key.sort_unstable();
                sim_of[&key]
            })
            .collect();
        for &t in &of_render {
            render_start[t as usize + 1] += 1;
        }
        for t in 0..model.triangles.len() {
            render_start[t + 1] += render_start[t];
        }
        let mut fill = render_start.clone();
        let mut render_list = vec![0u32; of_render.len()];
        for (r, &t) in of_render.iter().enumerate() {
            render_list[fill[t as usize] as usize] = r as u32;
            fill[t as usize] += 1;
        }
        TearTopology {
            created_vertices: vertices as u32,
            created_particles: particles as u32,
            max_extra,
            vertex_source: Vec::with_capacity(extra),
            particle_parent: Vec::with_capacity(extra),
            render_start,
            render_list,
            cut: vec![0; model.triangles.len()],
            edge_index,
            edge_hinge,
            hinge_triangles,
            hinge_dead: vec![false; model.constraints.hinges.len()],
            log: Vec::with_capacity(edges.len() + 2 * extra),
            version: 0,
            rows_cover: particles as u32,
            created: None,
        }
    }

    /// A render triangle of simulated triangle `t` (the first; None if it has none). Cuts keep
    /// triangle indices and give both the same new corners.
    pub fn render_triangle_of(&self, t: u32) -> Option<u32> {
        let (begin, end) = (self.render_start[t as usize] as usize, self.render_start[t as usize + 1] as usize);
        (begin < end).then(|| self.render_list[begin])
    }

    /// (render vertices, particles) the cloth may still add, having `vertices` and `particles`.
    /// At most [`reachable_extra`] of each as created.
    pub fn room(&self, vertices: usize, particles: usize) -> (u32, u32) {
        let limit = |created: u32, now: usize| (created as usize + self.max_extra as usize).saturating_sub(now) as u32;
        (limit(self.created_vertices, vertices), limit(self.created_particles, particles))
    }

    /// The render vertex as created that render vertex `v` descends from.
    pub fn source_of(&self, v: u32) -> u32 {
        match v.checked_sub(self.created_vertices) {
            Some(k) => self.vertex_source[k as usize],
            None => v,
        }
    }

    /// The particle among those the model's triangle rows cover that particle `x` descends from.
    fn row_of(&self, mut x: u32) -> u32 {
        while x >= self.rows_cover {
            x = self.particle_parent[(x - self.created_particles) as usize];
        }
        x
    }

    /// The render triangles of simulated triangle `t`.
    fn render_of(&self, t: u32) -> &[u32] {
        &self.render_list[self.render_start[t as usize] as usize..self.render_start[t as usize + 1] as usize]
    }
}

/// Which bit of a triangle's cut flags is its edge between `a` and `b` (both corners of it).
pub(crate) fn edge_bit(tri: [u32; 3], a: u32, b: u32) -> u8 {
    (0..3).find(|&k| {
        let (u, v) = (tri[k], tri[(k + 1) % 3]);
        (u == a && v == b) || (u == b && v == a)
    }).map_or(0, |k| 1 << k)
}

/// The triangles around particle `x` into `work.fan` (increasing index).
pub(crate) fn fan(model: &ClothModel, topo: &TearTopology, x: u32, work: &mut TearWork) {
    work.fan.clear();
    let row = topo.row_of(x);
    work.fan.extend(model.particle_triangles.of(row as usize).iter().copied().filter(|&t| model.triangles[t as usize].contains(&x)));
}

/// The parts of the fan of `x` (in `work.fan`, [`fan`]) that hang together across uncut edges,
/// edges (x, r) for r in `extra` counting as cut too: `work.part[k]` is the part of `work.fan[k]`
/// (the position in the fan of its first triangle). Returns whether the fan is open (an edge at `x`
/// with one triangle, or cut): a particle on the boundary or at the tip of a cut.
pub(crate) fn parts(model: &ClothModel, topo: &TearTopology, x: u32, extra: &[u32], work: &mut TearWork) -> bool {
    let TearWork { fan, part, sides, .. } = work;
    part.clear();
    part.extend(0..fan.len() as u32);
    sides.clear();
    for (k, &t) in fan.iter().enumerate() {
        for &r in &model.triangles[t as usize] {
            if r != x {
                sides.push((r, k as u32));
            }
        }
    }
    sides.sort_unstable();
    fn root(part: &mut [u32], mut k: u32) -> u32 {
        while part[k as usize] != k {
            part[k as usize] = part[part[k as usize] as usize];
            k = part[k as usize];
        }
        k
    }
    let mut open = false;
    for run in sides.chunk_by(|a, b| a.0 == b.0) {
        let r = run[0].0;
        let cut = extra.contains(&r) || run.iter().any(|&(_, k)| {
            let t = fan[k as usize];
            topo.cut[t as usize] & edge_bit(model.triangles[t as usize], x, r) != 0
        });
        if cut || run.len() == 1 {
            open = true;
            continue;
        }
        for pair in run.windows(2) {
            let (a, b) = (root(part, pair[0].1), root(part, pair[1].1));
            // The lower position is the root: a part is named by its first triangle.
            let (lo, hi) = (a.min(b), a.max(b));
            part[hi as usize] = lo;
        }
    }
    for k in 0..part.len() as u32 {
        part[k as usize] = root(part, k);
    }
    open
}

/// Cut the edge between particles `p` and `q`: separate the triangles that share it and split the
/// ends whose triangles no longer hang together (module docs). Errors: `NotAnEdge` (no triangle has
/// both; render vertices `render` name them), `TearCapacityExceeded` (nothing changed).
pub(crate) fn crack(model: &mut ClothModel, work: &mut TearWork, p: u32, q: u32, render: [u32; 2]) -> Result<Crack, ClothError> {
    let mut topo = model.tear.take().expect("a tearable cloth");
    let result = crack_with(model, &mut topo, work, p, q, render);
    model.tear = Some(topo);
    result
}

fn crack_with(model: &mut ClothModel, topo: &mut TearTopology, work: &mut TearWork, p: u32, q: u32, render: [u32; 2]) -> Result<Crack, ClothError> {
    fan(model, topo, p, work);
    work.edge_tris.clear();
    work.edge_tris.extend(work.fan.iter().copied().filter(|&t| model.triangles[t as usize].contains(&q)));
    if work.edge_tris.is_empty() {
        return Err(ClothError::NotAnEdge { a: render[0], b: render[1] });
    }
    let uncut = work.edge_tris.iter().any(|&t| topo.cut[t as usize] & edge_bit(model.triangles[t as usize], p, q) == 0);
    if work.edge_tris.len() < 2 || !uncut {
        return Ok(Crack::default());
    }
    // What the splits will need, counted before anything changes.
    let (mut particles, mut vertices) = (0, 0);
    for (x, other) in [(p, q), (q, p)] {
        let (np, nv) = split_needs(model, topo, work, x, other);
        (particles, vertices) = (particles + np, vertices + nv);
    }
    let (room_vertices, room_particles) = topo.room(model.particle_of_vertex.len(), model.rest.len());
    if vertices > room_vertices {
        return Err(ClothError::TearCapacityExceeded { needed: vertices, left: room_vertices });
    }
    if particles > room_particles {
        return Err(ClothError::TearCapacityExceeded { needed: particles, left: room_particles });
    }
    // Cut: flag the edge in every triangle that has it and drop its hinge.
    for &t in &work.edge_tris {
        topo.cut[t as usize] |= edge_bit(model.triangles[t as usize], p, q);
    }
    let e = topo.edge_index[&edge_key(p, q)];
    let h = topo.edge_hinge[e as usize];
    if h != NONE {
        topo.hinge_dead[h as usize] = true;
    }
    let sides = work.edge_tris.len() as u32;
    model.info.boundary_edges += sides;
    if sides > 2 {
        model.info.non_manifold_edges = model.info.non_manifold_edges.saturating_sub(1);
    }
    model.closed = false;
    model.info.closed = false;
    topo.log.push([p, q]);
    topo.version += 1;
    let mut splits = 0;
    for x in [p, q] {
        splits += split_apart(model, topo, work, x);
    }
    Ok(Crack { changed: true, splits })
}

/// The particles and render vertices (at most) a cut of the edge of `work.edge_tris` between `x`
/// and `other` makes at `x`: one particle per part of its fan, beyond the lowest, that holds a
/// triangle of the edge once the edge is cut, and the render vertices of `x` those parts use.
fn split_needs(model: &ClothModel, topo: &TearTopology, work: &mut TearWork, x: u32, other: u32) -> (u32, u32) {
    fan(model, topo, x, work);
    parts(model, topo, x, &[other], work);
    work.moving.clear();
    for &t in &work.edge_tris {
        let k = work.fan.iter().position(|&f| f == t).expect("an edge triangle is in the fan of its ends");
        if !work.moving.contains(&work.part[k]) {
            work.moving.push(work.part[k]);
        }
    }
    // Parts are named by their first (lowest) triangle's fan position: the lowest stays.
    work.moving.sort_unstable();
    let (mut particles, mut vertices) = (0, 0);
    for &part in &work.moving[1..] {
        particles += 1;
        work.vertices.clear();
        for (k, &t) in work.fan.iter().enumerate() {
            if work.part[k] != part {
                continue;
            }
            for &r in topo.render_of(t) {
                for v in model.render_triangles[r as usize] {
                    if model.particle_of_vertex[v as usize] == x && !work.vertices.contains(&v) {
                        work.vertices.push(v);
                    }
                }
            }
        }
        vertices += work.vertices.len() as u32;
    }
    (particles, vertices)
}

/// Split particle `x` where its fan falls apart across the cut edges (the parts holding a
/// triangle of `work.edge_tris` other than the lowest). Returns the particles made.
fn split_apart(model: &mut ClothModel, topo: &mut TearTopology, work: &mut TearWork, x: u32) -> u32 {
    fan(model, topo, x, work);
    parts(model, topo, x, &[], work);
    work.moving.clear();
    for &t in &work.edge_tris {
        if let Some(k) = work.fan.iter().position(|&f| f == t) {
            let part = work.part[k];
            if !work.moving.contains(&part) {
                work.moving.push(part);
            }
        }
    }
    work.moving.sort_unstable();
    if work.moving.len() < 2 {
        return 0;
    }
    let mut made = 0;
    for m in 1..work.moving.len() {
        // The fan of x changes with each split: find the part again.
        let part = work.moving[m];
        work.moved.clear();
        for (k, &t) in work.fan.iter().enumerate() {
            if work.part[k] == part {
                work.moved.push(t);
            }
        }
        work.kept.clear();
        work.kept.extend(work.fan.iter().copied().filter(|t| model.triangles[*t as usize].contains(&x) && !work.moved.contains(t)));
        split(model, topo, work, x);
        made += 1;
    }
    made
}

/// Move the triangles `work.moved` (of the fan of `x`; the rest of it is `work.kept`) to a new
/// particle: their edges to it, their hinges, their render triangles, the areas and masses.
fn split(model: &mut ClothModel, topo: &mut TearTopology, work: &mut TearWork, x: u32) {
    let x2 = model.rest.len() as u32;
    let TearWork { moved, kept, neighbours, touched, vertex_map, .. } = work;
    // Hinges of the moved triangles' edges: x becomes x2 in the corners of moved triangles.
    for &t in moved.iter() {
        let tri = model.triangles[t as usize];
        for k in 0..3 {
            let e = topo.edge_index[&edge_key(tri[k], tri[(k + 1) % 3])];
            let h = topo.edge_hinge[e as usize];
            if h == NONE || topo.hinge_dead[h as usize] {
                continue;
            }
            let [a, b] = topo.hinge_triangles[h as usize];
            let hinge = &mut model.constraints.hinges[h as usize];
            for (triangle, slots) in [(a, [0, 2, 3]), (b, [1, 2, 3])] {
                if moved.contains(&triangle) {
                    for s in slots {
                        if hinge[s] == x {
                            hinge[s] = x2;
                        }
                    }
                }
            }
        }
    }
    // Edges: one to each neighbour of the moved triangles, shared with the kept ones (a cut edge)
    // or theirs alone (moved to x2).
    neighbours.clear();
    touched.clear();
    for &t in moved.iter() {
        for r in model.triangles[t as usize] {
            if r != x && !neighbours.contains(&r) {
                neighbours.push(r);
            }
        }
    }
    for &r in neighbours.iter() {
        let e = topo.edge_index[&edge_key(x, r)];
        let shared = kept.iter().any(|&t| model.triangles[t as usize].contains(&r));
        if shared {
            let e2 = model.constraints.edges.len() as u32;
            model.constraints.edges.push([x2.min(r), x2.max(r)]);
            let length = model.constraints.rest_length[e as usize];
            model.constraints.rest_length.push(length);
            model.edge_adjacent_area.push(0.0);
            topo.edge_hinge.push(NONE);
            topo.edge_index.insert(edge_key(x2, r), e2);
            model.info.edge_count += 1;
            touched.push(e);
            touched.push(e2);
        } else {
            model.constraints.edges[e as usize] = [x2.min(r), x2.max(r)];
            topo.edge_index.remove(&edge_key(x, r));
            topo.edge_index.insert(edge_key(x2, r), e);
        }
    }
    for &t in moved.iter() {
        for c in &mut model.triangles[t as usize] {
            if *c == x {
                *c = x2;
            }
        }
    }
    // Render triangles: a render vertex of x that a kept triangle also uses is copied, one used
    // by moved triangles only moves to x2.
    vertex_map.clear();
    for &t in moved.iter() {
        for k in topo.render_start[t as usize]..topo.render_start[t as usize + 1] {
            let r = topo.render_list[k as usize];
            for c in 0..3 {
                let v = model.render_triangles[r as usize][c];
                let mapped = vertex_map.iter().find(|m| m.0 == v).map(|m| m.1);
                let v2 = match mapped {
                    Some(v2) => v2,
                    None if model.particle_of_vertex[v as usize] != x => continue,
                    None => {
                        let shared = kept.iter().any(|&k| topo.render_of(k).iter().any(|&r2| model.render_triangles[r2 as usize].contains(&v)));
                        let v2 = if shared {
                            let v2 = model.particle_of_vertex.len() as u32;
                            model.particle_of_vertex.push(x2);
                            topo.vertex_source.push(topo.source_of(v));
                            model.info.vertex_count += 1;
                            v2
                        } else {
                            model.particle_of_vertex[v as usize] = x2;
                            v
                        };
                        vertex_map.push((v, v2));
                        v2
                    }
                };
                model.render_triangles[r as usize][c] = v2;
            }
        }
    }
    // The new particle: rest position, areas, masses.
    let rest = model.rest[x as usize];
    model.rest.push(rest);
    model.constraints.positions.push(rest);
    model.constraints.particle_count += 1;
    model.info.particle_count += 1;
    topo.particle_parent.push(x);
    let third = |t: &u32| triangle_area(model, *t) / 3.0;
    let (area_x, area_x2) = (kept.iter().map(third).sum::<f32>(), moved.iter().map(third).sum::<f32>());
    model.particle_area[x as usize] = area_x;
    model.particle_area.push(area_x2);
    if let Some(w) = &mut model.given_inverse_masses {
        // The mass splits as the area does (an inverse mass 0 stays 0 on both sides).
        let wx = w[x as usize];
        let total = area_x + area_x2;
        let (share_x, share_x2) = if total > 0.0 { (area_x / total, area_x2 / total) } else { (0.5, 0.5) };
        let part = |share: f32| if wx == 0.0 || share == 0.0 { wx } else { wx / share };
        w[x as usize] = part(share_x);
        w.push(part(share_x2));
    }
    for &e in touched.iter() {
        let [a, b] = model.constraints.edges[e as usize];
        let row = topo.row_of(a);
        let area = model.particle_triangles.of(row as usize).iter().filter(|&&t| {
            let tri = model.triangles[t as usize];
            tri.contains(&a) && tri.contains(&b)
        });
        model.edge_adjacent_area[e as usize] = area.map(|&t| triangle_area(model, t)).sum();
    }
}

/// The rest area of simulated triangle `t` \[m²\], as creation computes it.
fn triangle_area(model: &ClothModel, t: u32) -> f32 {
    let [a, b, c] = model.triangles[t as usize].map(|i| model.rest[i as usize]);
    0.5 * (b - a).cross(c - a).length()
}

impl TearTopology {
    /// Drop the hinges cut since the last call from the model (creation order kept among the
    /// others) and renumber `edge_hinge`; `remap` receives each old hinge's new index or [`NONE`].
    pub fn compact_hinges(model: &mut ClothModel, remap: &mut Vec<u32>) {
        let mut topo = model.tear.take().expect("a tearable cloth");
        remap.clear();
        let mut next = 0u32;
        for &dead in &topo.hinge_dead {
            remap.push(if dead { NONE } else { next });
            next += u32::from(!dead);
        }
        let keep = |k: usize| remap[k] != NONE;
        retain_indexed(&mut model.constraints.hinges, keep);
        retain_indexed(&mut model.constraints.rest_angle, keep);
        retain_indexed(&mut model.hinge_adjacent_area, keep);
        retain_indexed(&mut model.hinge_edge_length, keep);
        retain_indexed(&mut topo.hinge_triangles, keep);
        topo.hinge_dead.clear();
        topo.hinge_dead.resize(next as usize, false);
        for h in topo.edge_hinge.iter_mut().filter(|h| **h != NONE) {
            *h = remap[*h as usize];
        }
        model.info.hinge_count = next;
        model.tear = Some(topo);
    }
}

/// Keep the elements k of `v` for which `keep(k)`, in order.
fn retain_indexed<T>(v: &mut Vec<T>, keep: impl Fn(usize) -> bool) {
    let mut k = 0;
    v.retain(|_| {
        k += 1;
        keep(k - 1)
    });
}
