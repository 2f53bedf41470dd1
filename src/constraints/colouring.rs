//! Greedy graph colouring of constraints (DESIGN §4): constraints of one colour share no particle,
//! so a colour can be projected in parallel and the result does not depend on how its constraints
//! are split among threads — projecting them in any order gives the same bits.

/// Colours of `constraints` (each a list of `K` particle indices < `particle_count`), greedily in
/// storage order: each constraint takes the smallest colour none of its particles has yet.
/// Storage order is the priority, so a constraint keeps its place relative to the constraints of
/// its own colour. A K-particle constraint with at most D neighbours per particle needs at most
/// K·(D − 1) + 1 colours. Deterministic; runs at creation and when pins change, never per step.
pub fn greedy_colours<const K: usize>(constraints: &[[u32; K]], particle_count: usize) -> Vec<u32> {
    // Colours already taken at each particle, as a bit set per block of 64 colours.
    let mut taken: Vec<Vec<u64>> = vec![Vec::new(); particle_count];
    constraints
        .iter()
        .map(|ids| {
            let mut colour = 0u32;
            loop {
                let (block, bit) = ((colour / 64) as usize, colour % 64);
                let used = ids.iter().fold(0u64, |m, &p| m | taken[p as usize].get(block).copied().unwrap_or(0));
                let free = !used >> bit;
                if free != 0 {
                    colour += free.trailing_zeros();
                    break;
                }
                colour = (block as u32 + 1) * 64;
            }
            let (block, bit) = ((colour / 64) as usize, colour % 64);
            for &p in ids {
                let t = &mut taken[p as usize];
                if t.len() <= block {
                    t.resize(block + 1, 0);
                }
                t[block] |= 1 << bit;
            }
            colour
        })
        .collect()
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

/// True if no two constraints within any colour range of `colour_start` share a particle.
pub fn colouring_is_valid<const K: usize>(constraints: &[[u32; K]], colour_start: &[u32], particle_count: usize) -> bool {
    let mut seen_in = vec![u32::MAX; particle_count];
    colour_start.windows(2).enumerate().all(|(colour, range)| {
        constraints[range[0] as usize..range[1] as usize].iter().all(|ids| {
            ids.iter().all(|&p| std::mem::replace(&mut seen_in[p as usize], colour as u32) != colour as u32)
        })
    }) && colour_start.last().is_none_or(|&end| end as usize == constraints.len())
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn validity_check_finds_a_shared_particle() {
        assert!(colouring_is_valid(&[[0, 1], [2, 3], [1, 2]], &[0, 2, 3], 4));
        assert!(!colouring_is_valid(&[[0, 1], [1, 2], [2, 3]], &[0, 2, 3], 4));
        assert!(!colouring_is_valid(&[[0, 1], [2, 3]], &[0, 1], 4), "a constraint left out");
    }
}
