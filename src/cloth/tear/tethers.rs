//! The tethers of a torn cloth, built again after a batch of cuts in the buffers tearing reserved:
//! the same K-nearest-anchors search over the rest distance graph as
//! [`TetherConstraints::build`] (Kim et al. 2012, §3–4), then `straighten` and the groups' order,
//! so the result is the tethers a layout built from scratch for the torn mesh has (a test keeps
//! the two equal). A cut that separates a piece from every anchor leaves it without tethers (it
//! falls freely), and a tether whose shortest path ran across the cut gets the longer way round.

use super::work::TearWork;
use crate::constraints::TetherConstraints;
use crate::constraints::tether::TETHERS_PER_PARTICLE;
use glam::Vec3;

/// A path along the links at most this much longer than the straight line is taken to be it, on a
/// flat mesh (as `TetherConstraints::straighten`).
const STRAIGHT_SHORTCUT: f32 = 1.1;

/// Relative tolerance of "on a straight line to its anchor" (as
/// `TetherConstraints::put_straight_groups_first`).
const STRAIGHT_TOLERANCE: f32 = 1e-4;

/// Anchors whose shortest pushed distance a particle remembers (as the layout's search).
const REMEMBERED: usize = 4;

/// Rebuild `tethers` in place for `particle_count` particles: the graph of `links` with lengths
/// `link_length` \[m\], anchors the particles with `w` = 0, rest positions `rest` \[m\] when the
/// mesh is `planar`, current positions `x` \[m\] for the groups' order. Allocates nothing when
/// `work` and `tethers` have their reserved room.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rebuild(
    tethers: &mut TetherConstraints,
    work: &mut TearWork,
    particle_count: usize,
    links: &[[u32; 2]],
    link_length: &[f32],
    w: &[f32],
    rest: &[Vec3],
    planar: bool,
    x: impl Fn(usize) -> Vec3,
) {
    const K: usize = TETHERS_PER_PARTICLE;
    let n = particle_count;
    // The graph in rows, each link listed under both ends in link order.
    let (start, graph) = (&mut work.graph_start, &mut work.graph);
    start.clear();
    start.resize(n + 1, 0);
    for &[i, j] in links {
        start[i as usize + 1] += 1;
        start[j as usize + 1] += 1;
    }
    for p in 0..n {
        start[p + 1] += start[p];
    }
    graph.clear();
    graph.resize(2 * links.len(), (0, 0.0));
    for (k, &[i, j]) in links.iter().enumerate().rev() {
        for (a, b) in [(j, i), (i, j)] {
            start[a as usize + 1] -= 1;
            graph[start[a as usize + 1] as usize] = (b, link_length[k]);
        }
    }
    for p in 0..n {
        start[p] = start[p + 1];
    }
    start[n] = graph.len() as u32;

    let (labels, count, pushed, heap) = (&mut work.labels, &mut work.label_count, &mut work.pushed, &mut work.heap);
    labels.clear();
    labels.resize(n, [(0, 0.0); K]);
    count.clear();
    count.resize(n, 0);
    pushed.clear();
    pushed.resize(n, [(u32::MAX, f64::INFINITY); REMEMBERED]);
    heap.clear();
    for (p, &wp) in w[..n].iter().enumerate() {
        if wp == 0.0 {
            heap.push(heap_key(0, p as u32, p as u32));
        }
    }
    let has = |labels: &[[(u32, f64); K]], count: &[u8], p: usize, anchor: u32| labels[p][..count[p] as usize].iter().any(|&(a, _)| a == anchor);
    while let Some(key) = heap.pop() {
        let (d_bits, p, anchor) = from_heap_key(key);
        let p = p as usize;
        if count[p] as usize >= K || has(labels, count, p, anchor) {
            continue;
        }
        let d = f64::from_bits(d_bits);
        labels[p][count[p] as usize] = (anchor, d);
        count[p] += 1;
        for &(q, len) in &graph[start[p] as usize..start[p + 1] as usize] {
            let q = q as usize;
            let dq = d + len as f64;
            if (count[q] as usize) < K && !has(labels, count, q, anchor) && offer(&mut pushed[q], anchor, dq) {
                heap.push(heap_key(dq.to_bits(), q as u32, anchor));
            }
        }
    }

    // Straight distances on a flat mesh; groups: full and straight, full, the others.
    let distance = |p: usize, (anchor, d): (u32, f64)| {
        let d = d as f32;
        let straight = rest[p].distance(rest[anchor as usize]);
        if planar && d <= STRAIGHT_SHORTCUT * straight { straight } else { d }
    };
    let straight = |p: usize| labels[p].iter().any(|&l| x(p).distance(x(l.0 as usize)) >= (1.0 - STRAIGHT_TOLERANCE) * distance(p, l));
    // SAFETY: a particle's labels are pushed together, in the one pass that wants it, and only
    // particles with w > 0 get tethers, to anchors with w = 0.
    unsafe {
        tethers.edit(|t| {
            t.particle.clear();
            t.anchor.clear();
            t.geodesic_distance.clear();
            for pass in 0..3 {
                for p in (0..n).filter(|&p| w[p] > 0.0 && count[p] > 0) {
                    let full = count[p] as usize == K;
                    let wanted = match pass {
                        0 => full && straight(p),
                        1 => full && !straight(p),
                        _ => !full,
                    };
                    if !wanted {
                        continue;
                    }
                    for &label in &labels[p][..count[p] as usize] {
                        t.particle.push(p as u32);
                        t.anchor.push(label.0);
                        t.geodesic_distance.push(distance(p, label));
                    }
                }
                if pass == 1 {
                    *t.full_groups_end = t.particle.len();
                }
            }
        })
    };
}

/// The heap entry of distance bits `d_bits`, particle `p` and `anchor`: the bits inverted, so that
/// the max-heap pops the least (d, p, anchor) first, the order `TetherConstraints::build` pops in
/// (one u128 comparison instead of a tuple's three).
#[inline]
fn heap_key(d_bits: u64, p: u32, anchor: u32) -> u128 {
    !(((d_bits as u128) << 64) | ((p as u128) << 32) | anchor as u128)
}

/// The (distance bits, particle, anchor) of a [`heap_key`].
#[inline]
fn from_heap_key(key: u128) -> (u64, u32, u32) {
    let k = !key;
    ((k >> 64) as u64, (k >> 32) as u32, k as u32)
}

/// Whether distance `d` from `anchor` is worth a push for a particle that remembers `pushed`:
/// shorter than any pushed before from it (or from an anchor no longer remembered); remembers it
/// in place of the longest entry (as the layout's search).
fn offer(pushed: &mut [(u32, f64); REMEMBERED], anchor: u32, d: f64) -> bool {
    if let Some(e) = pushed.iter_mut().find(|e| e.0 == anchor) {
        if d >= e.1 {
            return false;
        }
        e.1 = d;
        return true;
    }
    let slot = (0..REMEMBERED).max_by(|&a, &b| pushed[a].1.total_cmp(&pushed[b].1).then(b.cmp(&a))).unwrap_or(0);
    pushed[slot] = (anchor, d);
    true
}
