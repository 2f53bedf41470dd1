//! Building the sparse field: the nearest triangle of every node of the bricks near the surface,
//! found by propagation, then the signs and the coarse grid.
//!
//! 1. Seed: every node within one cell of a triangle's box measures that triangle; so every node
//!    closer than one cell to the surface has its exact nearest triangle.
//! 2. Propagate: each brick, padded by one node of its neighbours' last values, is swept forward
//!    and backward; a node measures the nearest triangles of its 13 already-swept neighbours and
//!    keeps the nearest (closest-point propagation, as in Bridson's SDFGen and OpenVDB's
//!    mesh-to-volume). Rounds repeat over the bricks whose neighbourhood changed until nothing
//!    does. Only triangles nearer than `reach` (the band plus a cell diagonal, so that every cell
//!    touching the band has exact corners) are kept; nodes beyond it store `reach`, a lower bound.
//!    A node is thus measured against a few triangles instead of searching a hierarchy, and the
//!    result is the exact distance wherever the nearest triangles of neighbouring nodes include
//!    its own (everywhere but near the medial axis, where the error stays far below a cell).
//! 3. Sign (closed meshes): the angle-weighted pseudo-normal of the nearest feature, or the
//!    winding number where the feature is unreliable; nodes beyond `reach` take the sign of a
//!    neighbour (no surface lies between two nodes farther from it than half their spacing).
//! 4. The coarse grid (brick corners) outside the stored bricks: a breadth-first search from the
//!    stored bricks' corners; a corner k bricks (Chebyshev) from them stores ±(band + k·brick),
//!    a lower bound of its distance (every point of a brick left out is at least the band from
//!    the surface), with the sign of the corner it was reached from.
//!
//! Every node is computed from integer grid coordinates and ties go to the lower triangle index,
//! so the field is the same bits at any thread count, and a node shared by two bricks gets one
//! value.

use super::triangles::{Tri, closest_on_triangle};
use super::winding::Winding;
use super::{BRICK, BRICK_NODES, EMPTY, NODES};
use glam::Vec3;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

const NONE: u32 = u32::MAX;
/// Nodes per axis of a brick padded by one neighbour node on each side.
const PADDED: usize = NODES + 2;
const PADDED_NODES: usize = PADDED * PADDED * PADDED;
/// Upper bound on propagation rounds (a round carries a triangle at least a brick further).
const MAX_ROUNDS: usize = 64;
/// Most sweeps over one brick in a round (they alternate direction until one changes nothing).
const SWEEPS: u32 = 8;

/// The grid of bricks the field lives on.
pub(super) struct Grid {
    pub origin: Vec3,
    pub cell: f32,
    pub bricks: [usize; 3],
}

impl Grid {
    fn brick_index(&self, b: [usize; 3]) -> usize {
        b[0] + self.bricks[0] * (b[1] + self.bricks[1] * b[2])
    }

    fn brick_coords(&self, b: usize) -> [usize; 3] {
        [b % self.bricks[0], b / self.bricks[0] % self.bricks[1], b / (self.bricks[0] * self.bricks[1])]
    }

    /// The node at integer grid coordinates `g` (the same bits from any brick).
    fn node(&self, g: [usize; 3]) -> Vec3 {
        self.origin + Vec3::new(g[0] as f32, g[1] as f32, g[2] as f32) * self.cell
    }

    /// The neighbour of brick `b` at offset `s` ∈ {−1, 0, 1}³, if inside the grid.
    fn neighbour(&self, b: [usize; 3], s: [i32; 3]) -> Option<usize> {
        let mut n = [0usize; 3];
        for a in 0..3 {
            let v = b[a] as i64 + s[a] as i64;
            if v < 0 || v >= self.bricks[a] as i64 {
                return None;
            }
            n[a] = v as usize;
        }
        Some(self.brick_index(n))
    }
}

/// The built field, in `MeshShape`'s storage.
pub(super) struct Field {
    pub brick_slot: Vec<u32>,
    pub fine: Vec<i16>,
    pub coarse: Vec<f32>,
    pub quantum: f32,
}

/// Build progress in 0..=1 (f32 bits), read by another thread for a loading bar, and a request
/// to stop early (the build's result is then discarded).
pub(crate) struct Progress {
    fraction: AtomicU32,
    cancel: std::sync::atomic::AtomicBool,
}

impl Progress {
    pub fn new() -> Progress {
        Progress { fraction: AtomicU32::new(0), cancel: std::sync::atomic::AtomicBool::new(false) }
    }

    pub fn set(&self, fraction: f32) {
        self.fraction.store(fraction.clamp(0.0, 1.0).to_bits(), Ordering::Relaxed);
    }

    pub fn get(&self) -> f32 {
        f32::from_bits(self.fraction.load(Ordering::Relaxed))
    }

    /// Ask the build to stop at its next check (between propagation rounds and stages).
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// (d², triangle) is nearer than (d2, t): by distance, then by the lower index.
#[inline(always)]
fn nearer(d2: f32, t: u32, than_d2: f32, than_t: u32) -> bool {
    d2 < than_d2 || (d2 == than_d2 && t < than_t)
}

#[inline(always)]
fn local(x: usize, y: usize, z: usize) -> usize {
    x + NODES * (y + NODES * z)
}

#[inline(always)]
fn padded(x: usize, y: usize, z: usize) -> usize {
    x + PADDED * (y + PADDED * z)
}

/// Offsets in the padded grid of the 13 neighbours before a node in x-fastest order.
fn causal_offsets() -> [isize; 13] {
    let mut out = [0isize; 13];
    let mut k = 0;
    for dz in -1isize..=1 {
        for dy in -1isize..=1 {
            for dx in -1isize..=1 {
                let before = dz < 0 || (dz == 0 && (dy < 0 || (dy == 0 && dx < 0)));
                if before {
                    out[k] = dx + PADDED as isize * (dy + PADDED as isize * dz);
                    k += 1;
                }
            }
        }
    }
    out
}

/// Where each halo node of the padded grid comes from: (neighbour offset index 0..27, local node).
fn halo_sources() -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    for z in 0..PADDED {
        for y in 0..PADDED {
            for x in 0..PADDED {
                let p = [x, y, z];
                if p.iter().all(|&c| (1..=NODES).contains(&c)) {
                    continue;
                }
                // Padded coordinate c is local c − 1: −1 is the previous brick's 7, 9 the next's 1.
                let mut s = [0i32; 3];
                let mut l = [0usize; 3];
                for a in 0..3 {
                    (s[a], l[a]) = match p[a] {
                        0 => (-1, BRICK - 1),
                        c if c == PADDED - 1 => (1, 1),
                        c => (0, c - 1),
                    };
                }
                let si = ((s[0] + 1) + 3 * ((s[1] + 1) + 3 * (s[2] + 1))) as usize;
                out.push((padded(x, y, z), si, local(l[0], l[1], l[2])));
            }
        }
    }
    out
}

/// Nodes a brick shares with its neighbours: (local node, neighbour offset index, its local node).
fn shared_copies() -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    for z in 0..NODES {
        for y in 0..NODES {
            for x in 0..NODES {
                let l = [x, y, z];
                for si in 0..27usize {
                    let s = [si % 3, si / 3 % 3, si / 9].map(|v| v as i32 - 1);
                    if s == [0, 0, 0] {
                        continue;
                    }
                    let fits = (0..3).all(|a| match s[a] {
                        -1 => l[a] == 0,
                        1 => l[a] == BRICK,
                        _ => true,
                    });
                    if fits {
                        let o = [0, 1, 2].map(|a| (l[a] as i32 - BRICK as i32 * s[a]) as usize);
                        out.push((local(x, y, z), si, local(o[0], o[1], o[2])));
                    }
                }
            }
        }
    }
    out
}

fn offset(si: usize) -> [i32; 3] {
    [si % 3, si / 3 % 3, si / 9].map(|v| v as i32 - 1)
}

/// Run `f` over the chunks in parallel or in order.
fn for_chunks<T: Send, U: Send>(parallel: bool, a: &mut [T], b: &mut [U], chunk: usize, f: impl Fn(usize, &mut [T], &mut [U]) + Sync + Send) {
    if parallel {
        a.par_chunks_mut(chunk).zip(b.par_chunks_mut(chunk)).enumerate().for_each(|(i, (x, y))| f(i, x, y));
    } else {
        a.chunks_mut(chunk).zip(b.chunks_mut(chunk)).enumerate().for_each(|(i, (x, y))| f(i, x, y));
    }
}

/// Build the field over the candidate bricks `candidates` (brick indices, ascending; `slot` maps a
/// brick to its candidate number or `EMPTY`), keeping the triangles nearer than `reach`.
#[allow(clippy::too_many_arguments)]
pub(super) fn build(
    tris: &[Tri],
    winding: Option<&Winding>,
    grid: &Grid,
    candidates: &[usize],
    slot: &[u32],
    band: f32,
    reach: f32,
    parallel: bool,
    progress: &Progress,
) -> Field {
    let n = candidates.len();
    let cell = grid.cell;
    let mut near = vec![NONE; n * BRICK_NODES];
    // Per node, the sweep in which its triangle last changed (seeds: 0; sweep s of round r is
    // 1 + SWEEPS·r + s), so that a sweep measures only the triangles new to a node's neighbourhood.
    let mut stamp = vec![0u32; n * BRICK_NODES];
    let mut d2 = vec![reach * reach; n * BRICK_NODES];
    let brick_size = cell * BRICK as f32;

    // 1. Seed: (candidate, triangle) pairs for every candidate brick a triangle's box + one cell
    // meets, sorted so that each brick measures its triangles in index order.
    let margin = Vec3::splat(cell);
    let bin = |t: usize| {
        let tri = &tris[t];
        let lo = ((tri.a.min(tri.b).min(tri.c) - margin - grid.origin) / brick_size).floor().max(Vec3::ZERO).as_uvec3();
        let hi = ((tri.a.max(tri.b).max(tri.c) + margin - grid.origin) / brick_size).floor().as_uvec3();
        let mut out = Vec::new();
        for z in lo.z as usize..=(hi.z as usize).min(grid.bricks[2] - 1) {
            for y in lo.y as usize..=(hi.y as usize).min(grid.bricks[1] - 1) {
                for x in lo.x as usize..=(hi.x as usize).min(grid.bricks[0] - 1) {
                    let s = slot[grid.brick_index([x, y, z])];
                    if s != EMPTY {
                        out.push((s, t as u32));
                    }
                }
            }
        }
        out
    };
    let mut pairs: Vec<(u32, u32)> =
        if parallel { (0..tris.len()).into_par_iter().flat_map_iter(bin).collect() } else { (0..tris.len()).flat_map(bin).collect() };
    if parallel {
        pairs.par_sort_unstable();
    } else {
        pairs.sort_unstable();
    }
    let mut starts = vec![0usize; n + 1];
    for &(s, _) in &pairs {
        starts[s as usize + 1] += 1;
    }
    for k in 0..n {
        starts[k + 1] += starts[k];
    }
    progress.set(0.2);
    for_chunks(parallel, &mut near, &mut d2, BRICK_NODES, |c, near, d2| {
        let base = grid.brick_coords(candidates[c]).map(|v| v * BRICK);
        let corner = grid.node(base);
        for &(_, t) in &pairs[starts[c]..starts[c + 1]] {
            let tri = &tris[t as usize];
            let lo = ((tri.a.min(tri.b).min(tri.c) - margin - corner) / cell).ceil().max(Vec3::ZERO);
            let hi = ((tri.a.max(tri.b).max(tri.c) + margin - corner) / cell).floor().min(Vec3::splat(BRICK as f32));
            if lo.cmpgt(hi).any() {
                continue;
            }
            let (lo, hi) = (lo.as_uvec3(), hi.as_uvec3());
            for z in lo.z as usize..=hi.z as usize {
                for y in lo.y as usize..=hi.y as usize {
                    for x in lo.x as usize..=hi.x as usize {
                        let p = grid.node([base[0] + x, base[1] + y, base[2] + z]);
                        let (q, _) = closest_on_triangle(p, tri.a, tri.b, tri.c);
                        let k = local(x, y, z);
                        let dd = (p - q).length_squared();
                        if nearer(dd, t, d2[k], near[k]) {
                            (d2[k], near[k]) = (dd, t);
                        }
                    }
                }
            }
        }
    });
    drop(pairs);
    progress.set(0.35);

    // 2. Propagate, round by round, over the bricks whose neighbourhood changed.
    let neighbours: Vec<[u32; 27]> = candidates
        .iter()
        .map(|&b| {
            let coords = grid.brick_coords(b);
            std::array::from_fn(|si| grid.neighbour(coords, offset(si)).map_or(EMPTY, |nb| slot[nb]))
        })
        .collect();
    let halo = halo_sources();
    let causal = causal_offsets();
    let mut changed = vec![true; n];
    for round in 0..MAX_ROUNDS {
        // A brick converged in its last round: it needs another only when its halo changed.
        let active: Vec<bool> = (0..n)
            .map(|c| round == 0 || neighbours[c].iter().enumerate().any(|(si, &nb)| si != 13 && nb != EMPTY && changed[nb as usize]))
            .collect();
        if !active.iter().any(|&a| a) {
            break;
        }
        let (prev_near, prev_stamp) = (near.clone(), stamp.clone());
        let flags: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
        let round = round as u32;
        let mut work: Vec<(&mut [u32], &mut [f32], &mut [u32])> =
            near.chunks_mut(BRICK_NODES).zip(d2.chunks_mut(BRICK_NODES)).zip(stamp.chunks_mut(BRICK_NODES)).map(|((a, b), c)| (a, b, c)).collect();
        let sweep = |c: usize, (near, d2, stamp): &mut (&mut [u32], &mut [f32], &mut [u32])| {
            if !active[c] {
                return;
            }
            let base = grid.brick_coords(candidates[c]).map(|v| v * BRICK);
            let mut pn = [NONE; PADDED_NODES];
            let mut ps = [0u32; PADDED_NODES];
            for z in 0..NODES {
                for y in 0..NODES {
                    let (from, to) = (local(0, y, z), padded(1, y + 1, z + 1));
                    pn[to..to + NODES].copy_from_slice(&near[from..from + NODES]);
                    ps[to..to + NODES].copy_from_slice(&stamp[from..from + NODES]);
                }
            }
            let mut halo_changed = round == 0;
            for &(to, si, from) in &halo {
                let nb = neighbours[c][si];
                if nb != EMPTY {
                    pn[to] = prev_near[nb as usize * BRICK_NODES + from];
                    // Halo nodes changed in the last round are new to every sweep of this one.
                    let changed_last_round = round == 0 || prev_stamp[nb as usize * BRICK_NODES + from] > SWEEPS * (round - 1);
                    ps[to] = if changed_last_round { u32::MAX } else { 0 };
                    halo_changed |= changed_last_round && pn[to] != NONE;
                }
            }
            if !halo_changed {
                return;
            }

            let mut any = false;
            for sweep in 0..SWEEPS {
                let backward = sweep % 2 == 1;
                let now = 1 + SWEEPS * round + sweep;
                // The brick's own nodes are new when changed in the previous sweep or this one
                // (round 0: the seeds, new to both directions).
                let recent = if round == 0 && sweep < 2 { 0 } else { now - 1 };
                let mut changed_now = false;
                for step in 0..BRICK_NODES {
                    let k = if backward { BRICK_NODES - 1 - step } else { step };
                    let (x, y, z) = (k % NODES, k / NODES % NODES, k / (NODES * NODES));
                    let pk = padded(x + 1, y + 1, z + 1);
                    let (mut best_d2, mut best_t) = (d2[k], near[k]);
                    let (mut tried, mut count) = ([NONE; 13], 0);
                    let p = grid.node([base[0] + x, base[1] + y, base[2] + z]);
                    for &o in &causal {
                        let j = (pk as isize + if backward { -o } else { o }) as usize;
                        let t = pn[j];
                        if t == NONE || ps[j] < recent || t == best_t || tried[..count].contains(&t) {
                            continue;
                        }
                        tried[count] = t;
                        count += 1;
                        let tri = &tris[t as usize];
                        let (q, _) = closest_on_triangle(p, tri.a, tri.b, tri.c);
                        let dd = (p - q).length_squared();
                        if nearer(dd, t, best_d2, best_t) {
                            (best_d2, best_t) = (dd, t);
                        }
                    }
                    if best_t != near[k] {
                        (d2[k], near[k], stamp[k]) = (best_d2, best_t, now);
                        (pn[pk], ps[pk]) = (best_t, now);
                        changed_now = true;
                    }
                }
                any |= changed_now;
                // Both directions once (the halo is new to both); then until a sweep is idle.
                if sweep >= 1 && !changed_now {
                    break;
                }
            }
            flags[c].store(any as u32, Ordering::Relaxed);
        };
        if parallel {
            work.par_iter_mut().enumerate().for_each(|(c, w)| sweep(c, w));
        } else {
            work.iter_mut().enumerate().for_each(|(c, w)| sweep(c, w));
        }
        drop(work);
        drop((prev_near, prev_stamp));
        changed = flags.iter().map(|f| f.load(Ordering::Relaxed) != 0).collect();
        progress.set(0.35 + 0.4 * (1.0 - 0.5f32.powi(round as i32 + 1)));
        if progress.cancelled() {
            break;
        }
    }
    // A node shared by several bricks takes the nearest of its copies' triangles, so every copy
    // holds the same value.
    let copies = shared_copies();
    let (prev_near, prev_d2) = (near.clone(), d2.clone());
    for_chunks(parallel, &mut near, &mut d2, BRICK_NODES, |c, near, d2| {
        for &(k, si, other) in &copies {
            let nb = neighbours[c][si];
            if nb == EMPTY {
                continue;
            }
            let (t, dd) = (prev_near[nb as usize * BRICK_NODES + other], prev_d2[nb as usize * BRICK_NODES + other]);
            if t != NONE && nearer(dd, t, d2[k], near[k]) {
                (d2[k], near[k]) = (dd, t);
            }
        }
    });
    drop((prev_near, prev_d2));
    progress.set(0.8);

    // 3. Values and signs of the candidate bricks' nodes; unknown signs beyond `reach` flooded.
    let closed = winding.is_some();
    let mut values = vec![0f32; n * BRICK_NODES];
    let mut stored = vec![false; n];
    let stored_flags: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
    let fill = |c: usize, out: &mut [f32]| {
        let base = grid.brick_coords(candidates[c]).map(|v| v * BRICK);
        let nodes = &near[c * BRICK_NODES..(c + 1) * BRICK_NODES];
        // 0: unknown sign, 1: outside, 2: inside.
        let mut sign = [0u8; BRICK_NODES];
        let mut found = false;
        for k in 0..BRICK_NODES {
            let (x, y, z) = (k % NODES, k / NODES % NODES, k / (NODES * NODES));
            let t = nodes[k];
            if t == NONE {
                out[k] = reach;
                continue;
            }
            found = true;
            let p = grid.node([base[0] + x, base[1] + y, base[2] + z]);
            let tri = &tris[t as usize];
            let (q, feature) = closest_on_triangle(p, tri.a, tri.b, tri.c);
            let d = (p - q).length();
            out[k] = d;
            sign[k] = match winding {
                None => 1,
                Some(_) if d == 0.0 => 1,
                Some(w) if tri.unreliable & (1 << feature) != 0 => 1 + (w.at(tris, p) > 0.5) as u8,
                Some(_) => 1 + ((p - q).dot(tri.normals[feature]) < 0.0) as u8,
            };
        }
        stored_flags[c].store(found as u32, Ordering::Relaxed);
        if !closed {
            return;
        }
        // Flood the known signs into the nodes beyond `reach` (6-neighbours, until settled).
        loop {
            let mut progressed = false;
            for k in 0..BRICK_NODES {
                if sign[k] != 0 {
                    continue;
                }
                let (x, y, z) = (k % NODES, k / NODES % NODES, k / (NODES * NODES));
                let from = [
                    (x > 0).then(|| k - 1),
                    (x < BRICK).then(|| k + 1),
                    (y > 0).then(|| k - NODES),
                    (y < BRICK).then(|| k + NODES),
                    (z > 0).then(|| k - NODES * NODES),
                    (z < BRICK).then(|| k + NODES * NODES),
                ];
                if let Some(s) = from.into_iter().flatten().map(|j| sign[j]).find(|&s| s != 0) {
                    sign[k] = s;
                    progressed = true;
                }
            }
            if !progressed {
                break;
            }
        }
        for k in 0..BRICK_NODES {
            if sign[k] == 0 {
                let (x, y, z) = (k % NODES, k / NODES % NODES, k / (NODES * NODES));
                let p = grid.node([base[0] + x, base[1] + y, base[2] + z]);
                sign[k] = 1 + (winding.is_some_and(|w| w.at(tris, p) > 0.5)) as u8;
            }
            if sign[k] == 2 {
                out[k] = -out[k];
            }
        }
    };
    if parallel {
        values.par_chunks_mut(BRICK_NODES).enumerate().for_each(|(c, out)| fill(c, out));
    } else {
        values.chunks_mut(BRICK_NODES).enumerate().for_each(|(c, out)| fill(c, out));
    }
    for (s, f) in stored.iter_mut().zip(&stored_flags) {
        *s = f.load(Ordering::Relaxed) != 0;
    }
    drop((near, d2));
    progress.set(0.95);

    // Storage: the candidate bricks with a node within reach, in brick order.
    let quantum = reach * (1.0 + 1e-3) / i16::MAX as f32;
    let mut brick_slot = vec![EMPTY; grid.bricks[0] * grid.bricks[1] * grid.bricks[2]];
    let mut fine = Vec::with_capacity(stored.iter().filter(|&&s| s).count() * BRICK_NODES);
    let mut next = 0u32;
    for c in 0..n {
        if stored[c] {
            brick_slot[candidates[c]] = next;
            next += 1;
            fine.extend(values[c * BRICK_NODES..(c + 1) * BRICK_NODES].iter().map(|&v| (v / quantum).round().clamp(-(i16::MAX as f32), i16::MAX as f32) as i16));
        }
    }

    // 4. The coarse grid: stored bricks' corners, then a breadth-first search through the rest.
    let dims = grid.bricks.map(|b| b + 1);
    let coarse_index = |g: [usize; 3]| g[0] + dims[0] * (g[1] + dims[1] * g[2]);
    let mut coarse = vec![f32::NAN; dims[0] * dims[1] * dims[2]];
    let mut queue = std::collections::VecDeque::new();
    for c in (0..n).filter(|&c| stored[c]) {
        let b = grid.brick_coords(candidates[c]);
        for corner in 0..8 {
            let o = [corner & 1, (corner >> 1) & 1, corner >> 2];
            let g = [b[0] + o[0], b[1] + o[1], b[2] + o[2]];
            let ci = coarse_index(g);
            if coarse[ci].is_nan() {
                coarse[ci] = values[c * BRICK_NODES + local(o[0] * BRICK, o[1] * BRICK, o[2] * BRICK)];
                queue.push_back((ci, 0u32));
            }
        }
    }
    // Sources in index order, so that the search (and every sign it hands on) is the same.
    queue.make_contiguous().sort_unstable();
    while let Some((ci, hops)) = queue.pop_front() {
        let g = [ci % dims[0], ci / dims[0] % dims[1], ci / (dims[0] * dims[1])];
        let inside = coarse[ci] < 0.0;
        for si in 0..27 {
            let s = offset(si);
            let mut m = [0usize; 3];
            let mut ok = true;
            for a in 0..3 {
                let v = g[a] as i64 + s[a] as i64;
                ok &= v >= 0 && v < dims[a] as i64;
                m[a] = v.max(0) as usize;
            }
            if !ok {
                continue;
            }
            let mi = coarse_index(m);
            if coarse[mi].is_nan() {
                let d = band + (hops + 1) as f32 * brick_size;
                coarse[mi] = if inside { -d } else { d };
                queue.push_back((mi, hops + 1));
            }
        }
    }
    progress.set(1.0);
    Field { brick_slot, fine, coarse, quantum }
}
