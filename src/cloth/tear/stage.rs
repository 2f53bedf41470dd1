//! The step's `Tear` stage (`solver/plan.rs`): the edges still longer than (1 + `tear_strain`)·L
//! after the strain limit tear, the most strained first, at most `tear_max_per_step` of them.
//!
//! An over-strained edge (p, q) tears across, at one end: there the cloth is cut along the other
//! edges of the edge's triangles at that end, which separates the edge and its triangles from the
//! rest of the particle's triangles (the particle is split). So the crack runs across the pull, as
//! woven cloth tears across the threads that break, and the edge itself is released: the strain
//! limit after the stage pulls it back within its limit. The end taken is one where the cloth is
//! already open (a boundary or the tip of a tear), so tears grow from their tips; else the lower
//! particle. Where neither end can open that way (a corner triangle), the edge itself is cut if
//! that separates anything. A particle split in a stage tears no further in it: the edges around
//! it are measured again after the next step's substeps.

use super::super::Cloth;
use super::super::model::ClothModel;
use super::topology::{crack, edge_bit, fan, parts};
use super::work::TearWork;
use crate::error::ClothError;
use std::sync::Arc;

impl Cloth {
    /// A round of the `Tear` stage of a step whose positions are in the sweeps' rows: tear the
    /// over-strained edges (within what is left of `tear_max_per_step` in the step) and repair
    /// what the cuts touched. `parallel`: the scan of the edges is split over the pool. Adds the
    /// edges cut to the step's count for the statistics; returns whether any was.
    pub(crate) fn tear_by_strain(&mut self, parallel: bool) -> bool {
        let (Some(strain), true) = (self.config.params.tear_strain, self.model.tear.is_some()) else { return false };
        if self.state.animation.skin.is_some() || self.scratch.tear.tears_this_step >= self.config.params.tear_max_per_step {
            return false;
        }
        // The edges over the strain, in storage order.
        let s = &mut self.scratch;
        let l = &mut s.strain_limit;
        l.candidates.clear();
        let split = parallel.then_some(&mut l.second_half);
        // SAFETY: the layout's indices were checked for these rows at the top of the step
        // (`ConstraintLayout::rows_ready`), and nothing changed them since.
        unsafe { self.layout.stretch.over_limit(&mut s.rows, 1.0 + strain, &mut l.candidates, split) };
        if l.candidates.is_empty() {
            return false;
        }
        // The most strained first (strain bits order as the positive strains do), then by creation.
        let stretch = &self.layout.stretch;
        let work = &mut s.tear;
        work.order.clear();
        for &e in &l.candidates {
            let [i, j] = stretch.edges()[e as usize];
            let length = s.rows[i as usize].truncate().distance(s.rows[j as usize].truncate());
            let strain = (length / stretch.rest_length()[e as usize] - 1.0).max(0.0);
            let creation = self.layout.edge_creation[e as usize];
            work.order.push((((u32::MAX - strain.to_bits()) as u64) << 32 | creation as u64, e));
        }
        self.own_topology();
        let (particles, edges) = (self.model.rest.len(), self.model.constraints.edges.len());
        let model = Arc::get_mut(&mut self.model).expect("owned above");
        let work = &mut self.scratch.tear;
        work.stage = work.stage.wrapping_add(1).max(1);
        work.split_in.resize(particles, 0);
        let (max_tears, mut tears) = (self.config.params.tear_max_per_step.saturating_sub(work.tears_this_step), 0);
        let version = model.tear.as_ref().map_or(0, |t| t.version);
        // Sorted a block at a time: a low tear strain can put most of the cloth's edges over it,
        // and only the most strained few are torn. The keys are unique (creation index), so the
        // blocks are the full sort's order.
        let block = (2 * max_tears as usize).max(64);
        let mut sorted = 0;
        for k in 0..work.order.len() {
            if tears >= max_tears {
                break;
            }
            if k == sorted {
                sorted = sort_next_block(&mut work.order, sorted, block);
            }
            let creation = (work.order[k].0 & 0xffff_ffff) as usize;
            let [p, q] = model.constraints.edges[creation];
            if work.split_in[p as usize] == work.stage || work.split_in[q as usize] == work.stage {
                continue;
            }
            let before = model.rest.len();
            let result = tear_across(model, work, p, q);
            if model.rest.len() > before {
                tears += 1;
                work.split_in.resize(model.rest.len(), work.stage);
                work.split_in[p as usize] = work.stage;
                work.split_in[q as usize] = work.stage;
            }
            if result.is_err() {
                break; // out of reserved vertices: the cloth tears no further
            }
        }
        work.tears_this_step += tears;
        // Every crack that changed the mesh counted once (the topology version's growth).
        let cut = model.tear.as_ref().map_or(0, |t| t.version) - version;
        if cut > 0 {
            self.finish_tearing(particles, edges, true);
        }
        self.scratch.tear.torn_last_step += cut;
        cut > 0
    }
}

/// Put the `block` smallest entries of `order[from..]` (or all) in order at `from..`; returns the end
/// of the sorted prefix.
fn sort_next_block(order: &mut [(u64, u32)], from: usize, block: usize) -> usize {
    let rest = &mut order[from..];
    if rest.len() > block {
        rest.select_nth_unstable(block - 1);
        rest[..block].sort_unstable();
        from + block
    } else {
        rest.sort_unstable();
        order.len()
    }
}

/// Tear the over-strained edge between particles `p` and `q` across, at one end (module docs).
/// Errors: `TearCapacityExceeded` (a cut of it may have been made).
fn tear_across(model: &mut ClothModel, work: &mut TearWork, p: u32, q: u32) -> Result<(), ClothError> {
    let topo = model.tear.as_deref().expect("a tearable cloth");
    fan(model, topo, p, work);
    work.edge_tris.clear();
    work.edge_tris.extend(work.fan.iter().copied().filter(|&t| model.triangles[t as usize].contains(&q)));
    if work.edge_tris.is_empty() {
        return Ok(());
    }
    let open_p = parts(model, topo, p, &[], work);
    fan(model, topo, q, work);
    let open_q = parts(model, topo, q, &[], work);
    let ends = if open_q && !open_p { [q, p] } else { [p, q] };
    let never = [u32::MAX; 2];
    for x in ends {
        let other = if x == p { q } else { p };
        if !opens_at(model, work, x, other) {
            continue;
        }
        for k in 0..work.cuts.len() {
            let r = work.cuts[k];
            match crack(model, work, x, r, never) {
                // An earlier cut of the two split x: that side is apart already.
                Err(ClothError::NotAnEdge { .. }) => {}
                other => {
                    other?;
                }
            }
        }
        return Ok(());
    }
    if open_p || open_q {
        crack(model, work, p, q, never)?;
    }
    Ok(())
}

/// Whether cutting, at `x`, the other edges of the triangles of the edge to `other` (those in
/// `work.edge_tris`; left in `work.cuts`, without edges already cut or on the boundary) would
/// separate those triangles from some of the others around `x`.
fn opens_at(model: &ClothModel, work: &mut TearWork, x: u32, other: u32) -> bool {
    let topo = model.tear.as_deref().expect("a tearable cloth");
    fan(model, topo, x, work);
    work.cuts.clear();
    for &t in &work.edge_tris {
        let tri = model.triangles[t as usize];
        let Some(r) = tri.iter().copied().find(|&r| r != x && r != other) else { continue };
        let shared = work.fan.iter().filter(|&&f| model.triangles[f as usize].contains(&r)).count() >= 2;
        let cut = topo.cut[t as usize] & edge_bit(tri, x, r) != 0;
        if shared && !cut && !work.cuts.contains(&r) {
            work.cuts.push(r);
        }
    }
    if work.cuts.is_empty() {
        return false;
    }
    parts(model, topo, x, &[], work);
    let first = work.fan.iter().position(|&f| f == work.edge_tris[0]).expect("in the fan");
    // The parts before, kept in `vertices` (a spare buffer) while the parts after are found.
    work.vertices.clear();
    work.vertices.extend_from_slice(&work.part);
    let cuts = std::mem::take(&mut work.cuts);
    parts(model, topo, x, &cuts, work);
    work.cuts = cuts;
    let (before, after) = (&work.vertices, &work.part);
    (0..before.len()).any(|k| before[k] == before[first] && after[k] != after[first])
}
