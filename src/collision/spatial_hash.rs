//! A uniform grid over 3-D points, hashed into a fixed table and filled by counting sort, for
//! finding every pair of points closer than a distance (the broad phase of self-collision).
//!
//! Built once per step: each point goes into the one cell (edge c) that contains it, and a query
//! visits the cells that a cube around a point touches (2–3 per axis when its half-side is about
//! c), so it finds every point within that distance. Cells are hashed (Teschner et al. 2003, "Optimized Spatial Hashing for Collision
//! Detection of Deformable Objects", the three large primes) into a table of a power of two
//! ≥ 2 × the point count, so memory is linear in the points whatever the cloth's extent. Each
//! point's cell is stored, so a query skips the points of other cells that share a bucket.
//! Within a bucket the points are in ascending index order, so every query returns its
//! candidates in the same order on every run and every thread count. Allocates only in
//! [`SpatialHash::new`].

use glam::Vec3;

/// A counting-sorted hash grid over a fixed number of points.
#[derive(Clone, Debug, Default)]
pub(crate) struct SpatialHash {
    /// Cell edge length \[m\] of the last build.
    cell: f32,
    /// Table size − 1 (the table size is a power of two).
    mask: usize,
    /// Bucket of each point (last build).
    bucket_of: Vec<u32>,
    /// Cell of each point (last build): tells apart the cells that share a bucket.
    cell_of_point: Vec<[i32; 3]>,
    /// `start[b]..start[b + 1]` indexes `entries` for bucket b; `table + 1` entries.
    start: Vec<u32>,
    /// Point indices sorted by bucket, ascending within a bucket.
    entries: Vec<u32>,
}

impl SpatialHash {
    /// A hash for `point_count` points (the table and every buffer are allocated here).
    pub fn new(point_count: usize) -> Self {
        let table = (2 * point_count).max(16).next_power_of_two();
        SpatialHash {
            cell: 1.0,
            mask: table - 1,
            bucket_of: vec![0; point_count],
            cell_of_point: vec![[0; 3]; point_count],
            start: vec![0; table + 1],
            entries: vec![0; point_count],
        }
    }

    /// A hash for `point_count` points with room for up to `max` (its table sized for `max`), so
    /// that [`Self::set_point_count`] up to `max` allocates nothing.
    pub fn with_room(point_count: usize, max: usize) -> Self {
        let mut hash = SpatialHash::new(max.max(point_count));
        hash.set_point_count(point_count);
        hash
    }

    /// Whether [`Self::set_point_count`]`(n)` needs no allocation.
    pub fn can_hold(&self, n: usize) -> bool {
        self.entries.capacity() >= n && self.bucket_of.capacity() >= n && self.cell_of_point.capacity() >= n
    }

    /// Take `n` points from the next build on (the table keeps its size).
    pub fn set_point_count(&mut self, n: usize) {
        self.bucket_of.resize(n, 0);
        self.cell_of_point.resize(n, [0; 3]);
        self.entries.resize(n, 0);
    }

    /// Integer cell coordinates of `p`.
    #[inline]
    fn cell_of(&self, p: Vec3) -> [i32; 3] {
        let c = (p / self.cell).floor();
        // Saturating float → int conversion: points beyond ±2³¹ cells share the outermost cells
        // (more candidates, never a missed pair).
        [c.x as i32, c.y as i32, c.z as i32]
    }

    #[inline]
    fn bucket(&self, [x, y, z]: [i32; 3]) -> usize {
        let h = (x.wrapping_mul(92_837_111)) ^ (y.wrapping_mul(689_287_499)) ^ (z.wrapping_mul(283_923_481));
        h as u32 as usize & self.mask
    }

    /// Sort `points` (as many as given to [`SpatialHash::new`]) into cells of edge `cell` \[m\] (> 0).
    pub fn build(&mut self, points: &[Vec3], cell: f32) {
        debug_assert_eq!(points.len(), self.entries.len());
        self.cell = cell;
        self.start.fill(0);
        for (i, &p) in points.iter().enumerate() {
            let cell = self.cell_of(p);
            let b = self.bucket(cell);
            self.cell_of_point[i] = cell;
            self.bucket_of[i] = b as u32;
            self.start[b] += 1;
        }
        // Inclusive prefix sums: start[b] = one past bucket b; start[table] = point count.
        let table = self.start.len() - 1;
        for b in 1..table {
            self.start[b] += self.start[b - 1];
        }
        self.start[table] = points.len() as u32;
        // Fill each bucket from its end with points in descending order: buckets come out in
        // ascending point order and start[b] ends at the first entry of bucket b.
        for i in (0..points.len()).rev() {
            let b = self.bucket_of[i] as usize;
            self.start[b] -= 1;
            self.entries[self.start[b] as usize] = i as u32;
        }
    }

    /// Call `visit(j)` for every point j whose cell the cube of half-side `radius` \[m\] around `p`
    /// touches, each once, in a fixed order; the caller tests the distance. Points of other cells
    /// that share a bucket are skipped by their stored cell, so no point is visited twice.
    /// Returns false, visiting nothing, when the cube touches more cells than there are points
    /// (testing every point is then cheaper).
    pub fn for_each_within(&self, p: Vec3, radius: f32, mut visit: impl FnMut(u32)) -> bool {
        let lo = self.cell_of(p - Vec3::splat(radius));
        let hi = self.cell_of(p + Vec3::splat(radius));
        let span = |a: usize| (hi[a] as i64 - lo[a] as i64 + 1) as usize;
        if span(0).saturating_mul(span(1)).saturating_mul(span(2)) > self.entries.len().max(27) {
            return false;
        }
        for z in lo[2]..=hi[2] {
            for y in lo[1]..=hi[1] {
                for x in lo[0]..=hi[0] {
                    let b = self.bucket([x, y, z]);
                    for &j in &self.entries[self.start[b] as usize..self.start[b + 1] as usize] {
                        if self.cell_of_point[j as usize] == [x, y, z] {
                            visit(j);
                        }
                    }
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random points in a 1 m cube.
    fn points(n: usize) -> Vec<Vec3> {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32
        };
        (0..n).map(|_| Vec3::new(next(), next(), next())).collect()
    }

    #[test]
    fn finds_exactly_the_brute_force_pairs() {
        let p = points(2000);
        let d = 0.05;
        let mut hash = SpatialHash::new(p.len());
        hash.build(&p, d);
        let mut found = Vec::new();
        for i in 0..p.len() {
            hash.for_each_within(p[i], d, |j| {
                if j as usize > i && p[i].distance(p[j as usize]) < d {
                    found.push((i, j as usize));
                }
            });
        }
        found.sort_unstable();
        let mut brute = Vec::new();
        for i in 0..p.len() {
            for j in i + 1..p.len() {
                if p[i].distance(p[j]) < d {
                    brute.push((i, j));
                }
            }
        }
        assert!(brute.len() > 500, "{} pairs: the test should exercise the grid", brute.len());
        assert_eq!(found, brute);
    }

    #[test]
    fn each_point_is_visited_once_even_when_cells_share_a_bucket() {
        // 16 points, table of 32 buckets: the 27 neighbour cells must collide in buckets.
        let p = points(16);
        let mut hash = SpatialHash::new(p.len());
        hash.build(&p, 10.0); // every point in the cells around the origin
        let mut seen = vec![0; p.len()];
        assert!(hash.for_each_within(Vec3::splat(0.5), 10.0, |j| seen[j as usize] += 1));
        assert_eq!(seen, vec![1; p.len()]);
        // A cube over more cells than points is refused, not walked.
        assert!(!hash.for_each_within(Vec3::splat(0.5), 40.0, |_| panic!("visited")));
    }
}
