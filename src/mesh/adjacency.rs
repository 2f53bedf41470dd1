//! Neighbour lists of the particle graph in compressed rows, for the searches that walk it
//! (tether anchors by Dijkstra, wavefront colours by breadth-first hops).

/// Each particle's neighbours with the value of the link that reaches them: particle p's are
/// `links_of(p)`, in link order (for link k = [i, j]: j is listed under i, then i under j).
pub(crate) struct Adjacency<T> {
    start: Vec<u32>,
    neighbours: Vec<(u32, T)>,
}

impl<T: Copy + Default> Adjacency<T> {
    /// The graph of `links` over `particle_count` particles; `value(k)` is attached to link k.
    pub fn new(particle_count: usize, links: &[[u32; 2]], value: impl Fn(usize) -> T) -> Self {
        let mut start = vec![0u32; particle_count + 1];
        for &[i, j] in links {
            start[i as usize + 1] += 1;
            start[j as usize + 1] += 1;
        }
        for p in 0..particle_count {
            start[p + 1] += start[p];
        }
        let mut fill = start.clone();
        let mut neighbours = vec![(0u32, T::default()); 2 * links.len()];
        for (k, &[i, j]) in links.iter().enumerate() {
            for (a, b) in [(i, j), (j, i)] {
                neighbours[fill[a as usize] as usize] = (b, value(k));
                fill[a as usize] += 1;
            }
        }
        Adjacency { start, neighbours }
    }

    /// Particle `p`'s neighbours and link values.
    #[inline]
    pub fn links_of(&self, p: usize) -> &[(u32, T)] {
        &self.neighbours[self.start[p] as usize..self.start[p + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::Adjacency;

    #[test]
    fn neighbours_are_listed_both_ways_in_link_order() {
        let links = [[0, 1], [2, 0], [1, 2], [3, 1]];
        let graph = Adjacency::new(5, &links, |k| k as f32 * 0.5);
        assert_eq!(graph.links_of(0), &[(1, 0.0), (2, 0.5)]);
        assert_eq!(graph.links_of(1), &[(0, 0.0), (2, 1.0), (3, 1.5)]);
        assert_eq!(graph.links_of(2), &[(0, 0.5), (1, 1.0)]);
        assert_eq!(graph.links_of(3), &[(1, 1.5)]);
        assert!(graph.links_of(4).is_empty());
    }
}
