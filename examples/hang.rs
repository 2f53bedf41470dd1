//! Hang a 32 × 32 cloth (1 m) by its two top corners for 2 s at 60 Hz and print its state.
//! Run: `cargo run --release --example hang`.

use xpbd_cloth::{ClothDesc, World, WorldDesc};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n = 32usize;
    let mut positions = Vec::new();
    for j in 0..n {
        for i in 0..n {
            // A vertical sheet in the x–y plane, top row at y = 1 m.
            positions.push([i as f32 / (n - 1) as f32, 1.0 - j as f32 / (n - 1) as f32, 0.0]);
        }
    }
    let mut indices = Vec::new();
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let a = (j * n + i) as u32;
            let (b, c, d) = (a + 1, a + n as u32, a + n as u32 + 1);
            indices.extend_from_slice(&[a, c, b, b, c, d]);
        }
    }
    let mut world = World::new(WorldDesc::default())?;
    let cloth = world.add_cloth(&ClothDesc::new(&positions, &indices))?;
    world.cloth_mut(cloth)?.set_pinned(&[0, n as u32 - 1], None)?;
    // Push the sheet sideways so it swings.
    let params = xpbd_cloth::ClothParams { external_acceleration: [0.0, 0.0, 3.0], ..*world.cloth(cloth)?.params() };
    world.cloth_mut(cloth)?.set_params(params)?;
    for _ in 0..120 {
        world.step(1.0 / 60.0)?;
    }
    let c = world.cloth(cloth)?;
    let mut out = vec![[0.0f32; 3]; positions.len()];
    c.read_positions(&mut out)?;
    let mid = out[(n - 1) * n + n / 2];
    let s = c.stats();
    println!("32x32 cloth after 2 s: {:?}", c.info());
    println!("bottom-edge midpoint: ({:.4}, {:.4}, {:.4}) m", mid[0], mid[1], mid[2]);
    println!("max edge strain: {:.4} %", s.max_edge_strain * 100.0);
    println!(
        "stretch |C|: mean {:.2e} p95 {:.2e} max {:.2e} m, force {:.3}..{:.3} N",
        s.stretch.mean_abs_c, s.stretch.p95_abs_c, s.stretch.max_abs_c, s.stretch.min_force, s.stretch.max_force
    );
    println!(
        "bending |C|: mean {:.2e} p95 {:.2e} max {:.2e} rad",
        s.bending.mean_abs_c, s.bending.p95_abs_c, s.bending.max_abs_c
    );
    Ok(())
}
