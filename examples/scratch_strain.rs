use xpbd_cloth::*;
fn main() {
    let n = 32usize;
    let mut positions = Vec::new();
    for j in 0..n { for i in 0..n { positions.push([i as f32 / 31.0, 0.0, j as f32 / 31.0]); } }
    let mut indices = Vec::new();
    for j in 0..n - 1 { for i in 0..n - 1 {
        let a = (j * n + i) as u32; let (b, c, d) = (a + 1, a + n as u32, a + n as u32 + 1);
        if (i + j) % 2 == 0 { indices.extend_from_slice(&[a, c, b, b, c, d]); } else { indices.extend_from_slice(&[a, c, d, a, d, b]); }
    }}
    for sc in [None, Some(0.0f32)] {
        let mut world = World::new(WorldDesc::default()).unwrap();
        let mut desc = ClothDesc::new(&positions, &indices);
        desc.params.stretch_compliance = sc;
        let h = world.add_cloth(&desc).unwrap();
        world.cloth_mut(h).unwrap().set_pinned(&[0, 31], None).unwrap();
        let mut worst = 0.0f32;
        for f in 0..600 { world.step(1.0/60.0).unwrap(); let ms = world.cloth(h).unwrap().stats().max_edge_strain; if ms > worst { worst = ms; 
 let c = world.cloth(h).unwrap(); let x = c.particle_positions(); let s = c.stretch_constraints();
 let mut best = (0.0, 0);
 for (k, e) in s.edges.iter().enumerate() { let st = ((x[e[0] as usize]-x[e[1] as usize]).length() - s.rest_length[k]) / s.rest_length[k]; if st > best.0 { best = (st, k); } }
 println!("  frame {f}: strain {ms} edge {:?}", s.edges[best.1]); } }
        let c = world.cloth(h).unwrap();
        let x = c.particle_positions();
        let s = c.stretch_constraints();
        let mut best = (0.0, 0);
        for (k, e) in s.edges.iter().enumerate() { let st = ((x[e[0] as usize]-x[e[1] as usize]).length() - s.rest_length[k]) / s.rest_length[k]; if st > best.0 { best = (st, k); } }
        println!("compliance {:?}: worst strain over run {worst}, final max {} at edge {:?} ", sc, best.0, s.edges[best.1]);
    }
}
