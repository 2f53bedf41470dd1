//! Greedy graph colouring of constraints (docs/design.md, "Colouring"): constraints of one colour
//! share no particle, so a colour can be projected in parallel and the result does not depend on
//! how its constraints are split among threads — projecting them in any order gives the same bits.

use crate::mesh::adjacency::Adjacency;

/// Colours already taken at each particle: a bit set of `blocks` blocks of 64 colours per particle,
/// stored flat (most meshes need one block; a colour beyond them widens every particle's set).
struct TakenColours {
    bits: Vec<u64>,
    blocks: usize,
}

impl TakenColours {
    fn new(particle_count: usize) -> Self {
        TakenColours { bits: vec![0; particle_count], blocks: 1 }
    }

    #[inline]
    fn block(&self, p: u32, block: usize) -> u64 {
        if block < self.blocks { self.bits[p as usize * self.blocks + block] } else { 0 }
    }

    /// The smallest colour ≥ `from` that none of `ids` has taken.
    fn first_free(&self, ids: &[u32], from: u32) -> u32 {
        let mut colour = from;
        loop {
            let (block, bit) = ((colour / 64) as usize, colour % 64);
            let used = ids.iter().fold(0u64, |m, &p| m | self.block(p, block));
            let free = !used >> bit;
            if free != 0 {
                return colour + free.trailing_zeros();
            }
            colour = (block as u32 + 1) * 64;
        }
    }

    fn take(&mut self, ids: &[u32], colour: u32) {
        let (block, bit) = ((colour / 64) as usize, colour % 64);
        if block >= self.blocks {
            self.widen(block + 1);
        }
        for &p in ids {
            self.bits[p as usize * self.blocks + block] |= 1 << bit;
        }
    }

    /// Room for `blocks` blocks per particle, the colours taken kept.
    fn widen(&mut self, blocks: usize) {
        let particles = self.bits.len() / self.blocks;
        let mut bits = vec![0u64; particles * blocks];
        for (new, old) in bits.chunks_exact_mut(blocks).zip(self.bits.chunks_exact(self.blocks)) {
            new[..old.len()].copy_from_slice(old);
        }
        (self.bits, self.blocks) = (bits, blocks);
    }
}

/// Colours of `constraints` (each a list of `K` particle indices < `particle_count`), greedily in
/// storage order: each constraint takes the smallest colour none of its particles has yet.
/// Storage order is the priority, so a constraint keeps its place relative to the constraints of
/// its own colour. A K-particle constraint with at most D neighbours per particle needs at most
/// K·(D − 1) + 1 colours. Deterministic; runs at creation and when pins change, never per step.
pub fn greedy_colours<const K: usize>(constraints: &[[u32; K]], particle_count: usize) -> Vec<u32> {
    let mut taken = TakenColours::new(particle_count);
    constraints
        .iter()
        .map(|ids| {
            let colour = taken.first_free(ids, 0);
            taken.take(ids, colour);
            colour
        })
        .collect()
}

/// Edge hops from each particle to the nearest anchor (`is_anchor`), breadth-first over `edges`
/// (particle pairs): `u32[particle_count]`, 0 at anchors, `u32::MAX` where no anchor is reachable.
pub fn anchor_hops(edges: &[[u32; 2]], particle_count: usize, is_anchor: impl Fn(usize) -> bool) -> Vec<u32> {
    let graph = Adjacency::new(particle_count, edges, |_| ());
    let mut hop = vec![u32::MAX; particle_count];
    let mut queue: Vec<u32> = (0..particle_count as u32).filter(|&p| is_anchor(p as usize)).collect();
    for &p in &queue {
        hop[p as usize] = 0;
    }
    let mut head = 0;
    while let Some(&p) = queue.get(head) {
        head += 1;
        for &(q, ()) in graph.links_of(p as usize) {
            if hop[q as usize] == u32::MAX {
                hop[q as usize] = hop[p as usize] + 1;
                queue.push(q);
            }
        }
    }
    hop
}

/// Wavefront colours of `edges` for a Gauss–Seidel sweep that should carry the anchors'
/// corrections outward (`hop` from [`anchor_hops`]). An edge's near particle is reached from the
/// anchors through edges coloured before it; the edge prefers the colour one past the largest of
/// theirs (of both particles' for an edge between equally near particles), so that along an
/// outward path the colours increase and a correction crosses up to `palette` edges in one
/// colour-by-colour sweep. It takes the first colour, cyclically from the preferred one through
/// `0 .. palette`, that none of its two particles has, and a colour ≥ `palette` only when all are
/// taken. Edges are visited by the hop of their near particle, then in storage order. Without
/// anchors (all hops `u32::MAX`) nothing is preferred and this is [`greedy_colours`].
///
/// The greedy colouring has no such order: an outward path's colours are arbitrary, so a
/// correction may wait a sweep at every edge, where the uncoloured anchor-outward sweep carries it
/// through the whole cloth. A `palette` above the greedy colour count leaves room for the
/// preferred colour; one colour per hop level lets a sweep reach as far as the anchor order. Returns one colour per edge (`u32[edges.len()]`). Deterministic; runs at
/// creation and when pins change, never per step.
pub fn wavefront_colours(edges: &[[u32; 2]], hop: &[u32], palette: u32) -> Vec<u32> {
    // By hop, ties in storage order: (hop, index) keys are unique, so an unstable sort.
    let mut keyed: Vec<u64> = edges.iter().enumerate().map(|(e, &[i, j])| ((hop[i as usize].min(hop[j as usize]) as u64) << 32) | e as u64).collect();
    keyed.sort_unstable();
    let visit = keyed.iter().map(|&k| k as u32);
    let mut taken = TakenColours::new(hop.len());
    // The largest colour of the edges that reached each particle from a nearer one.
    let mut reached_by: Vec<Option<u32>> = vec![None; hop.len()];
    let mut colours = vec![0u32; edges.len()];
    for e in visit {
        let ids = edges[e as usize];
        let [i, j] = ids.map(|p| p as usize);
        let (near, far) = if hop[i] <= hop[j] { (i, j) } else { (j, i) };
        let lateral = hop[near] == hop[far];
        let latest = if lateral { reached_by[near].max(reached_by[far]) } else { reached_by[near] };
        let preferred = latest.map_or(0, |c| (c + 1) % palette.max(1));
        let colour = match taken.first_free(&ids, preferred) {
            c if c < palette => c,
            beyond => match taken.first_free(&ids, 0) {
                c if c < preferred => c,
                _ => beyond,
            },
        };
        taken.take(&ids, colour);
        colours[e as usize] = colour;
        if !lateral {
            reached_by[far] = reached_by[far].max(Some(colour));
        }
    }
    colours
}

/// The stable permutation that sorts constraints by colour, and the start of each colour in it
/// (`colour_count + 1` entries, the last one the constraint count).
pub fn colour_order(colours: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let colour_count = colours.iter().max().map_or(0, |&c| c as usize + 1);
    let mut start = vec![0u32; colour_count + 1];
    for &c in colours {
        start[c as usize + 1] += 1;
    }
    for c in 0..colour_count {
        start[c + 1] += start[c];
    }
    let mut fill = start.clone();
    let mut order = vec![0u32; colours.len()];
    for (k, &c) in colours.iter().enumerate() {
        order[fill[c as usize] as usize] = k as u32;
        fill[c as usize] += 1;
    }
    (order, start)
}

/// [`colour_order`], and within each colour the constraints by their lowest particle index (ties
/// in storage order). A colour's constraints share no particle, so the order within it changes
/// no result bit; it is for the threads that split every colour into the same shares
/// (`constraints::team`): with every colour of every type in particle order, a thread gets
/// roughly the same particles in each colour, and they stay in its core's cache
/// (docs/dev/performance-log.md, "2026-11-30 — Constraints in particle order within a colour").
///
/// `colours`: `u32[n]`, `constraints`: `n` constraints of `K` particles; returns the permutation
/// (`u32[n]`, new position k holds constraint `order[k]`) and the colour starts
/// (`u32[colour_count + 1]`).
pub fn colour_order_by_particle<const K: usize>(colours: &[u32], constraints: &[[u32; K]]) -> (Vec<u32>, Vec<u32>) {
    let (order, start) = colour_order(colours);
    // (lowest particle, storage index) keys are unique: an unstable sort gives the stable order.
    let mut keyed: Vec<u64> = order.iter().map(|&k| ((lowest_particle(&constraints[k as usize]) as u64) << 32) | k as u64).collect();
    for range in start.windows(2) {
        keyed[range[0] as usize..range[1] as usize].sort_unstable();
    }
    (keyed.iter().map(|&k| k as u32).collect(), start)
}

/// The lowest particle index of a constraint: the key [`colour_order_by_particle`] sorts a colour
/// by, and the one the team's particle bounds rely on (`access::ColourReach`).
#[inline]
pub(crate) fn lowest_particle<const K: usize>(constraint: &[u32; K]) -> u32 {
    constraint.iter().copied().min().unwrap_or(0)
}

/// True if no two constraints within any colour range of `colour_start` share a particle.
#[cfg(test)]
pub fn colouring_is_valid<const K: usize>(constraints: &[[u32; K]], colour_start: &[u32], particle_count: usize) -> bool {
    let mut seen_in = vec![u32::MAX; particle_count];
    colour_start.windows(2).enumerate().all(|(colour, range)| {
        constraints[range[0] as usize..range[1] as usize].iter().all(|ids| {
            ids.iter().all(|&p| std::mem::replace(&mut seen_in[p as usize], colour as u32) != colour as u32)
        })
    }) && colour_start.last().is_none_or(|&end| end as usize == constraints.len())
}

/// Reorder `v` so that `v[k]` is the old `v[order[k]]` (`order` a permutation of `0..v.len()`),
/// e.g. to store constraints in a colour order. Allocates a copy; for set-up, not per step.
pub(crate) fn permute<T: Copy>(v: &mut [T], order: &[u32]) {
    let old = v.to_vec();
    for (dst, &src) in v.iter_mut().zip(order) {
        *dst = old[src as usize];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same colour ranges as `colour_order`, each colour's constraints ascending by their
    /// lowest particle (ties in storage order), and a permutation.
    #[test]
    fn colour_order_by_particle_sorts_within_colours_only() {
        let edges: Vec<[u32; 2]> = vec![[7, 8], [0, 1], [5, 3], [2, 6], [4, 9], [3, 0], [8, 1]];
        let colours = [0, 1, 0, 0, 1, 1, 0];
        let (plain, plain_start) = colour_order(&colours);
        let (order, start) = colour_order_by_particle(&colours, &edges);
        assert_eq!(start, plain_start);
        assert_eq!(start, [0, 4, 7]);
        // Colour 0: edges 0 [7, 8], 2 [5, 3], 3 [2, 6], 6 [8, 1] -> by lowest particle 1, 2, 3, 7.
        // Colour 1: edges 1 [0, 1], 4 [4, 9], 5 [3, 0] -> 0 (edge 1), 0 (edge 5), 4: a tie kept in
        // storage order.
        assert_eq!(order, [6, 3, 2, 0, 1, 5, 4]);
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(sorted, (0..7).collect::<Vec<u32>>());
        for range in start.windows(2) {
            let mut a: Vec<u32> = plain[range[0] as usize..range[1] as usize].to_vec();
            let mut b: Vec<u32> = order[range[0] as usize..range[1] as usize].to_vec();
            a.sort();
            b.sort();
            assert_eq!(a, b, "the same constraints in each colour");
        }
    }

    #[test]
    fn a_chain_takes_two_colours_and_a_star_one_per_edge() {
        let chain: Vec<[u32; 2]> = (0..9).map(|i| [i, i + 1]).collect();
        let colours = greedy_colours(&chain, 10);
        assert_eq!(colours, [0, 1, 0, 1, 0, 1, 0, 1, 0]);
        let (order, start) = colour_order(&colours);
        assert_eq!(start, [0, 5, 9]);
        assert_eq!(order, [0, 2, 4, 6, 8, 1, 3, 5, 7]);
        let star: Vec<[u32; 2]> = (1..=100).map(|i| [0, i]).collect();
        let colours = greedy_colours(&star, 101);
        assert_eq!(colours, (0..100).collect::<Vec<u32>>(), "past 64 colours too");
        let (order, start) = colour_order(&colours);
        let sorted: Vec<[u32; 2]> = order.iter().map(|&k| star[k as usize]).collect();
        assert!(colouring_is_valid(&sorted, &start, 101));
    }

    #[test]
    fn wavefront_colours_rise_along_a_chain_from_its_anchor_and_wrap_at_the_palette() {
        // Stored far end first, so the visit by hop is what orders the wave.
        let chain: Vec<[u32; 2]> = (0..12).rev().map(|i| [i + 1, i]).collect();
        let hop = anchor_hops(&chain, 13, |p| p == 0);
        assert_eq!(hop, (0..13).collect::<Vec<u32>>());
        let colours = wavefront_colours(&chain, &hop, 3);
        // Edge [i + 1, i] is stored at 11 − i.
        let expected: Vec<u32> = (0..12).rev().map(|i| i % 3).collect();
        assert_eq!(colours, expected, "a correction crosses 3 edges per sweep (greedy: 1)");
        // Anchored in the middle: the wave runs both ways, the second side (visited later) one
        // colour behind because its first edge shares the anchor with the first side's.
        let hop = anchor_hops(&chain, 13, |p| p == 6);
        let colours = wavefront_colours(&chain, &hop, 2);
        let expected: Vec<u32> = (0..12u32).rev().map(|i| if i >= 6 { (i - 6) % 2 } else { (6 - i) % 2 }).collect();
        assert_eq!(colours, expected);
    }

    #[test]
    fn wavefront_colours_go_beyond_a_full_palette_and_equal_greedy_without_anchors() {
        let star: Vec<[u32; 2]> = (1..=100).map(|i| [0, i]).collect();
        let hop = anchor_hops(&star, 101, |p| p == 0);
        let colours = wavefront_colours(&star, &hop, 3);
        assert_eq!(colours, (0..100).collect::<Vec<u32>>());
        // A 5 × 5 grid of quads with both diagonals: no anchor, so no preference.
        let id = |x: u32, y: u32| y * 6 + x;
        let mut edges = Vec::new();
        for y in 0..6 {
            for x in 0..6 {
                if x < 5 {
                    edges.push([id(x, y), id(x + 1, y)]);
                }
                if y < 5 {
                    edges.push([id(x, y), id(x, y + 1)]);
                }
                if x < 5 && y < 5 {
                    edges.extend([[id(x, y), id(x + 1, y + 1)], [id(x + 1, y), id(x, y + 1)]]);
                }
            }
        }
        let hop = anchor_hops(&edges, 36, |_| false);
        assert!(hop.iter().all(|&h| h == u32::MAX));
        let greedy = greedy_colours(&edges, 36);
        assert_eq!(wavefront_colours(&edges, &hop, 9), greedy);
        // Anchored at a corner: valid, and within the palette of greedy count + 1.
        let hop = anchor_hops(&edges, 36, |p| p == 0);
        assert_eq!((hop[id(5, 5) as usize], hop[id(5, 0) as usize], hop[id(2, 4) as usize]), (5, 5, 4));
        let palette = greedy.iter().max().unwrap() + 2;
        let colours = wavefront_colours(&edges, &hop, palette);
        let (order, start) = colour_order(&colours);
        let sorted: Vec<[u32; 2]> = order.iter().map(|&k| edges[k as usize]).collect();
        assert!(colouring_is_valid(&sorted, &start, 36));
        assert!(colours.iter().all(|&c| c < palette), "{colours:?}");
    }

    #[test]
    fn validity_check_finds_a_shared_particle() {
        assert!(colouring_is_valid(&[[0, 1], [2, 3], [1, 2]], &[0, 2, 3], 4));
        assert!(!colouring_is_valid(&[[0, 1], [1, 2], [2, 3]], &[0, 2, 3], 4));
        assert!(!colouring_is_valid(&[[0, 1], [2, 3]], &[0, 1], 4), "a constraint left out");
    }
}
