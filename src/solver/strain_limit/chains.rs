//! The anchored pass's chains: within a hop level, the edges between the level's particles that
//! form a tree (a row of a grid hung from its corners, a row of a cape) are followed outward from
//! the tree's centre and the tree then moved back by its mass-weighted mean move, instead of
//! being swept pairwise. Gauss–Seidel over a free chain of n edges carries a correction about one
//! edge per sweep, so a row of 127 edges kept 10–27 % strain after the rounds; followed from its
//! centre it is within the limit after one pass, and the shift keeps its centre of mass where
//! the pass found it (the move has no net momentum). Measurements: docs/dev/performance-log.md,
//! "2026-12-07 — Level chains in the anchored pass; the box's ringing traced to a phantom velocity".

use crate::cloth::scratch::StrainLimitScratch;
use crate::constraints::access::SolverParticle;
use crate::constraints::layout::ConstraintLayout;
use glam::Vec3;

/// `hops` of a particle no search has reached.
const UNSEEN: u32 = u32::MAX;
/// `hops` of a particle whose component is done.
const DONE: u32 = u32::MAX - 1;

/// From the levels of `l` (`order`, `level_start`, `level`, `siblings`): each level's tree
/// components of three or more particles (groups) as (particle, parent, edge) in breadth-first
/// order from the component's centre (the middle of its longest path) into `l.chain`, group g at
/// `chain[group_start[g]..group_start[g + 1]]`, level k + 1's groups
/// `level_groups[k]..level_groups[k + 1]`; their edges leave `l.siblings`. Allocates nothing (the buffers are sized with
/// the scratch).
pub(super) fn level_chains(layout: &ConstraintLayout, l: &mut StrainLimitScratch) {
    l.chain.clear();
    l.level_groups.clear();
    l.group_start.clear();
    // Sized here for the particles and edges of now (a tear adds both, within the room reserved
    // for them: `cloth::tear::grow::reserve_strain_limit`).
    let particles = l.level.len();
    l.hops.clear();
    l.hops.resize(particles, UNSEEN);
    l.via.resize(particles, (0, 0));
    l.in_chain.clear();
    l.in_chain.resize(layout.stretch.edges().len(), false);
    for k in 0..l.level_start.len().saturating_sub(1) {
        l.level_groups.push(l.group_start.len() as u32);
        for at in l.level_start[k] as usize..l.level_start[k + 1] as usize {
            let start = l.order[at] as usize;
            if l.hops[start] == DONE {
                continue;
            }
            breadth_first(layout, l, start);
            let size = l.queue.len();
            let edges: usize = l.queue.iter().map(|&p| same_level(layout, &l.level, p as usize).count()).sum::<usize>() / 2;
            if size >= 3 && edges + 1 == size {
                // The far end of a longest path from any particle, then from it the other end;
                // the centre is halfway back along the path.
                let a = *l.queue.last().expect("a component");
                reset(l, UNSEEN);
                breadth_first(layout, l, a as usize);
                let b = *l.queue.last().expect("a component") as usize;
                let mut centre = b;
                for _ in 0..l.hops[b] / 2 {
                    centre = l.via[centre].0 as usize;
                }
                reset(l, UNSEEN);
                breadth_first(layout, l, centre);
                l.group_start.push(l.chain.len() as u32);
                for &p in &l.queue[1..] {
                    let (q, e) = l.via[p as usize];
                    l.chain.push((p, q, e));
                    l.in_chain[e as usize] = true;
                }
            }
            reset(l, DONE);
        }
    }
    l.level_groups.push(l.group_start.len() as u32);
    l.group_start.push(l.chain.len() as u32);
    drop_chain_edges(l);
}

/// The particles of `p`'s level joined to `p` by an edge, with the edge.
fn same_level<'a>(layout: &'a ConstraintLayout, level: &'a [u32], p: usize) -> impl Iterator<Item = (usize, usize)> + 'a {
    layout.edges_at(p).filter(move |&(_, q)| level[q] == level[p])
}

/// The component of `root` within its level, breadth first, into `l.queue`, with each particle's
/// hops from `root` and the (particle, edge) it was reached by.
fn breadth_first(layout: &ConstraintLayout, l: &mut StrainLimitScratch, root: usize) {
    l.queue.clear();
    l.queue.push(root as u32);
    l.hops[root] = 0;
    let mut head = 0;
    while head < l.queue.len() {
        let p = l.queue[head] as usize;
        head += 1;
        for (e, q) in same_level(layout, &l.level, p) {
            if l.hops[q] == UNSEEN {
                l.hops[q] = l.hops[p] + 1;
                l.via[q] = (p as u32, e as u32);
                l.queue.push(q as u32);
            }
        }
    }
}

/// Mark the particles of the last search `mark`.
fn reset(l: &mut StrainLimitScratch, mark: u32) {
    for &p in &l.queue {
        l.hops[p as usize] = mark;
    }
}

/// Remove the chains' edges from the levels' sibling lists, in place.
fn drop_chain_edges(l: &mut StrainLimitScratch) {
    let mut kept = 0;
    let mut begin = l.sibling_start.first().copied().unwrap_or(0) as usize;
    for k in 0..l.sibling_start.len().saturating_sub(1) {
        let end = l.sibling_start[k + 1] as usize;
        l.sibling_start[k] = kept as u32;
        for i in begin..end {
            let e = l.siblings[i];
            if !l.in_chain[e as usize] {
                l.siblings[kept] = e;
                kept += 1;
            }
        }
        begin = end;
    }
    if let Some(last) = l.sibling_start.last_mut() {
        *last = kept as u32;
    }
    l.siblings.truncate(kept);
}

/// Follow one chain group (`chain`: (particle, parent, edge) from the centre outward) within
/// `factor` times the edges' rest lengths `rest` \[m\], then move its particles back by their
/// mass-weighted mean move; `before` is a buffer. Whether anything moved.
pub(super) fn follow_group(rows: &mut [SolverParticle], chain: &[(u32, u32, u32)], rest: &[f32], factor: f32, before: &mut Vec<Vec3>) -> bool {
    let Some(&(_, centre, _)) = chain.first() else { return false };
    let particles = || std::iter::once(centre).chain(chain.iter().map(|c| c.0)).map(|p| p as usize);
    before.clear();
    before.extend(particles().map(|p| rows[p].truncate()));
    let mut moved = false;
    for &(p, q, e) in chain {
        moved |= super::follow(rows, p as usize, q as usize, factor * rest[e as usize]);
    }
    if !moved {
        return false;
    }
    let (mut sum, mut mass) = (Vec3::ZERO, 0.0);
    for (p, b) in particles().zip(before.iter()) {
        let m = 1.0 / rows[p].w;
        sum += (rows[p].truncate() - *b) * m;
        mass += m;
    }
    let shift = sum / mass;
    if shift.is_finite() {
        for p in particles() {
            rows[p] = (rows[p].truncate() - shift).extend(rows[p].w);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::test_grid::grid;

    /// A 9 × 6 grid hung from its top row: each hop level is a row of 8 edges, which becomes one
    /// chain from the row's middle particle (4), and those edges leave the sibling lists; each
    /// chain entry's parent is one hop nearer the centre.
    #[test]
    fn a_grid_row_below_its_anchored_row_is_one_chain_from_its_middle() {
        let top: Vec<u32> = (0..9).collect();
        let g = grid(9, 6, &top, true);
        let particles = g.x.len();
        let mut l = StrainLimitScratch::sized(g.layout.stretch.edges().len(), particles);
        for a in 0..9 {
            l.anchors[a / 64] |= 1 << (a % 64);
        }
        super::super::order_from_anchors(&g.layout, &mut l, true);
        // Hop level 5 (k = 4) is the bottom row, y index 5.
        let k = 4;
        let level: Vec<u32> = l.order[l.level_start[k] as usize..l.level_start[k + 1] as usize].to_vec();
        assert_eq!(level.len(), 9, "level {level:?}");
        assert!(level.iter().all(|&p| p / 9 == 5));
        assert_eq!(l.level_groups[k + 1], l.level_groups[k] + 1, "one group");
        let group = l.level_groups[k] as usize;
        let chain = &l.chain[l.group_start[group] as usize..l.group_start[group + 1] as usize];
        assert_eq!(chain.len(), 8);
        assert_eq!(chain[0].1, 5 * 9 + 4, "the centre");
        let edges = g.layout.stretch.edges();
        for &(p, q, e) in chain {
            assert!(edges[e as usize] == [p, q] || edges[e as usize] == [q, p]);
            assert_eq!((p as i32 % 9 - 4).abs(), (q as i32 % 9 - 4).abs() + 1, "{p} follows {q}");
        }
        let siblings = &l.siblings[l.sibling_start[k] as usize..l.sibling_start[k + 1] as usize];
        assert!(siblings.iter().all(|&e| !chain.iter().any(|c| c.2 == e)), "chain edges left in {siblings:?}");
    }

    /// A straight free chain of 9 particles stretched by 40 %, of unequal masses: after one follow
    /// every edge is at most s·L, and the mass-weighted centre is where it was.
    #[test]
    fn a_followed_chain_is_within_its_limit_and_keeps_its_centre_of_mass() {
        let n = 9;
        let rest = vec![0.1f32; n - 1];
        let mut rows: Vec<SolverParticle> = (0..n).map(|i| Vec3::new(i as f32 * 0.14, 0.01 * (i % 2) as f32, 0.0).extend(1.0 + i as f32)).collect();
        // Edge i joins i and i + 1; the centre is particle 4.
        let mut chain = Vec::new();
        for d in 1..=4u32 {
            chain.push((4 + d, 3 + d, 3 + d));
            chain.push((4 - d, 5 - d, 4 - d));
        }
        let centre = |rows: &[SolverParticle]| {
            let m: f32 = rows.iter().map(|r| 1.0 / r.w).sum();
            rows.iter().map(|r| r.truncate() / r.w).sum::<Vec3>() / m
        };
        let before = centre(&rows);
        let factor = 1.025;
        assert!(follow_group(&mut rows, &chain, &rest, factor, &mut Vec::new()));
        for i in 0..n - 1 {
            let length = rows[i].truncate().distance(rows[i + 1].truncate());
            assert!(length <= factor * 0.1 * (1.0 + 1e-5), "edge {i}: {length}");
        }
        assert!((centre(&rows) - before).length() < 1e-6, "{} against {before}", centre(&rows));
    }
}
