//! Each particle's triangles in compressed rows, for summing per-triangle vectors per particle in
//! a fixed order (normals, wind, the volume gradient) and for walking a particle's triangle fan
//! (tearing).

use glam::Vec3A;

/// Particle → incident triangles, compressed: the triangles of particle i are
/// `triangle[start[i] .. start[i + 1]]`, in increasing triangle index (a triangle that names a
/// particle twice appears twice, as it would add twice in a scatter).
#[derive(Clone, Debug, Default)]
pub(crate) struct ParticleTriangles {
    /// `particle_count + 1` offsets into `triangle`.
    start: Vec<u32>,
    /// `3 × triangle_count` triangle indices.
    triangle: Vec<u32>,
}

impl ParticleTriangles {
    /// Counting sort of the triangles' corners by particle; walking the triangles in order keeps
    /// each particle's list sorted.
    pub fn build(triangles: &[[u32; 3]], particle_count: usize) -> Self {
        let mut start = vec![0u32; particle_count + 1];
        for &i in triangles.iter().flatten() {
            start[i as usize + 1] += 1;
        }
        for i in 0..particle_count {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut triangle = vec![0u32; 3 * triangles.len()];
        for (t, corners) in triangles.iter().enumerate() {
            for &i in corners {
                triangle[next[i as usize] as usize] = t as u32;
                next[i as usize] += 1;
            }
        }
        ParticleTriangles { start, triangle }
    }

    /// Incident triangles of particle `i`, in increasing index.
    #[inline]
    pub fn of(&self, i: usize) -> &[u32] {
        &self.triangle[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// Σ `per_triangle[t]` over the triangles t of particle `i`, from zero in increasing t: the
    /// bits a scatter-add over the triangles in storage order leaves in particle i.
    #[inline]
    pub fn sum(&self, i: usize, per_triangle: &[Vec3A]) -> Vec3A {
        self.of(i).iter().fold(Vec3A::ZERO, |s, &t| s + per_triangle[t as usize])
    }
}

impl ParticleTriangles {
    /// The rows of `triangles` over `particle_count` particles again (the same rows as
    /// [`Self::build`]), in the vectors already held: allocates nothing when they have the room (a
    /// tearable cloth reserves it, `cloth::tear`).
    pub fn rebuild(&mut self, triangles: &[[u32; 3]], particle_count: usize) {
        let start = &mut self.start;
        start.clear();
        start.resize(particle_count + 1, 0);
        for &i in triangles.iter().flatten() {
            start[i as usize + 1] += 1;
        }
        // start[i + 1] = the end of row i.
        for i in 0..particle_count {
            start[i + 1] += start[i];
        }
        self.triangle.resize(3 * triangles.len(), 0);
        // Each row filled from its end in decreasing triangle order (increasing once filled),
        // which leaves start[i + 1] at the beginning of row i.
        for (t, corners) in triangles.iter().enumerate().rev() {
            for &i in corners.iter().rev() {
                start[i as usize + 1] -= 1;
                self.triangle[start[i as usize + 1] as usize] = t as u32;
            }
        }
        for i in 0..particle_count {
            start[i] = start[i + 1];
        }
        start[particle_count] = self.triangle.len() as u32;
    }

    /// Room for the row starts of `particles` particles.
    pub fn reserve_particles(&mut self, particles: usize) {
        self.start.reserve((particles + 1).saturating_sub(self.start.len()));
    }
}

#[cfg(test)]
mod tests {
    use super::ParticleTriangles;

    /// A rebuild gives the rows `build` gives, in place.
    #[test]
    fn a_rebuild_in_place_equals_a_fresh_build() {
        let triangles = [[0, 1, 2], [2, 1, 3], [3, 0, 4], [4, 2, 0]];
        let mut rows = ParticleTriangles::build(&triangles[..2], 4);
        rows.rebuild(&triangles, 6);
        let fresh = ParticleTriangles::build(&triangles, 6);
        assert_eq!((&rows.start, &rows.triangle), (&fresh.start, &fresh.triangle));
        assert_eq!(rows.of(0), [0, 2, 3]);
        assert!(rows.of(5).is_empty());
    }
}
