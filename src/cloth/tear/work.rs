//! The buffers tearing works in: those of one crack (a particle's fan and its parts), those of a
//! step's batch of cracks (the strain order, the layout's repair, the tethers' search). Sized
//! when a tearable cloth is created ([`TearWork::reserve`]), so tearing allocates nothing.

use std::collections::BinaryHeap;

/// A tearable cloth's tearing buffers (module docs); empty for a cloth that cannot tear.
#[derive(Clone, Debug, Default)]
pub(crate) struct TearWork {
    /// One crack: the fan of a particle (triangles, increasing), each triangle's part (the fan
    /// position of the part's first triangle), the (neighbour, fan position) pairs the parts are
    /// found from.
    pub fan: Vec<u32>,
    pub part: Vec<u32>,
    pub sides: Vec<(u32, u32)>,
    /// The triangles of the cut edge; the parts that move (fan positions); the triangles that move
    /// and those that stay; the moved triangles' other corners; edges whose adjacent area changes;
    /// render vertices moved or copied (old, new); render vertices counted.
    pub edge_tris: Vec<u32>,
    pub moving: Vec<u32>,
    pub moved: Vec<u32>,
    pub kept: Vec<u32>,
    pub neighbours: Vec<u32>,
    pub touched: Vec<u32>,
    pub vertex_map: Vec<(u32, u32)>,
    pub vertices: Vec<u32>,
    /// Cuts a strain tear makes at one end (the neighbours of the edge's triangles).
    pub cuts: Vec<u32>,
    /// A step's batch: (strain order key, stored edge) of the edges over `tear_strain`.
    pub order: Vec<(u64, u32)>,
    /// Per particle, the number of the last stage that split it (the stage's number in `stage`).
    pub split_in: Vec<u32>,
    pub stage: u32,
    /// Edges cut by the last step (`torn_edges_last_step`), and the over-strained edges that tore
    /// in it (against `tear_max_per_step`).
    pub torn_last_step: u32,
    pub tears_this_step: u32,
    /// The layout's repair: each old hinge's new index; the edges of the extra colours (creation
    /// indices) with their colours; per particle, the extra colours it is in (bit c); multipliers
    /// by creation index; the stored edges rewritten.
    pub hinge_remap: Vec<u32>,
    pub extra: Vec<(u32, u32)>,
    pub colours_of: Vec<u64>,
    pub lambda: Vec<f32>,
    /// The tethers' search: the distance graph (row starts, (neighbour, length)), up to two
    /// settled (anchor, distance) labels and the last pushed distances per particle, the heap,
    /// and the group order.
    pub graph_start: Vec<u32>,
    pub graph: Vec<(u32, f32)>,
    pub labels: Vec<[(u32, f64); 2]>,
    pub label_count: Vec<u8>,
    pub pushed: Vec<[(u32, f64); 4]>,
    pub heap: BinaryHeap<u128>,
    pub groups: Vec<u32>,
}

/// The sizes a tearable cloth's buffers are reserved for: every count at its largest.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TearLimits {
    /// Particles and render vertices.
    pub particles: usize,
    pub vertices: usize,
    /// Edges (each cut adds at most one per split side) and hinges (never more than created).
    pub edges: usize,
    pub hinges: usize,
    /// Triangles around the most crowded particle.
    pub fan: usize,
    /// Tethers.
    pub tethers: usize,
}

impl TearWork {
    /// Room for a cloth of `limits`.
    pub fn reserve(&mut self, limits: &TearLimits) {
        let n = limits.particles;
        let links = limits.edges + limits.hinges;
        reserve(&mut self.fan, limits.fan);
        reserve(&mut self.part, limits.fan);
        reserve(&mut self.sides, 2 * limits.fan);
        for v in [&mut self.edge_tris, &mut self.moving, &mut self.moved, &mut self.kept, &mut self.touched, &mut self.vertices, &mut self.cuts] {
            reserve(v, 2 * limits.fan + 8);
        }
        reserve(&mut self.neighbours, 2 * limits.fan + 8);
        reserve(&mut self.vertex_map, 2 * limits.fan + 8);
        reserve(&mut self.order, limits.edges);
        reserve(&mut self.split_in, n);
        reserve(&mut self.hinge_remap, limits.hinges);
        reserve(&mut self.extra, limits.edges);
        reserve(&mut self.colours_of, n);
        reserve(&mut self.lambda, limits.edges);
        reserve(&mut self.graph_start, n + 1);
        reserve(&mut self.graph, 2 * links);
        reserve(&mut self.labels, n);
        reserve(&mut self.label_count, n);
        reserve(&mut self.pushed, n);
        let heap = 2 * 2 * links + n;
        self.heap.reserve(heap.saturating_sub(self.heap.capacity()));
        reserve(&mut self.groups, limits.tethers);
    }
}

/// Room for `total` elements in `v` (its length included).
pub(crate) fn reserve<T>(v: &mut Vec<T>, total: usize) {
    v.reserve(total.saturating_sub(v.len()));
}
