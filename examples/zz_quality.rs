//! Equal-quality comparison (not committed): per scene and substep count, the largest edge strain
//! over the run, the 99th percentile at its end and the median ms per step (1 thread).
#[path = "../tests/common/mod.rs"]
mod common;
use std::time::Instant;
use xpbd_cloth::{ClothDesc, World, WorldDesc};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let scene = args[1].as_str();
    let sub: u32 = args[2].parse().unwrap();
    let steps: usize = args[3].parse().unwrap();
    let (positions, indices, pins, collider) = match scene {
        "tablecloth" => { let t = common::tablecloth_on_its_table().unwrap(); (t.positions, t.indices, vec![], Some(t.table)) }
        n => { let n: usize = n.parse().unwrap(); let (p, i) = common::horizontal_sheet(n, 1.0, 0.0); (p, i, vec![0, n as u32 - 1], None) }
    };
    let mut world = World::new(WorldDesc { substeps: sub, iterations: 1, thread_count: 1, ..WorldDesc::default() }).unwrap();
    let mut desc = ClothDesc::new(&positions, &indices);
    desc.params = common::light_stiff_params();
    let h = world.add_cloth(&desc).unwrap();
    if !pins.is_empty() { world.cloth_mut(h).unwrap().set_pinned(&pins, None).unwrap(); }
    if let Some(c) = &collider { world.add_collider(c).unwrap(); }
    let mut edges: Vec<(usize, usize, f32)> = Vec::new();
    for t in indices.chunks(3) { for k in 0..3 { let (a, b) = (t[k] as usize, t[(k + 1) % 3] as usize); let (a, b) = (a.min(b), a.max(b)); edges.push((a, b, 0.0)); } }
    edges.sort_by_key(|e| (e.0, e.1)); edges.dedup_by_key(|e| (e.0, e.1));
    let d = |a: [f32; 3], b: [f32; 3]| ((a[0]-b[0]).powi(2)+(a[1]-b[1]).powi(2)+(a[2]-b[2]).powi(2)).sqrt();
    for e in &mut edges { e.2 = d(positions[e.0], positions[e.1]); }
    let mut x = vec![[0.0f32; 3]; positions.len()];
    let (mut peak, mut times) = (0.0f32, Vec::new());
    let mut strains = Vec::new();
    for _ in 0..steps {
        let t = Instant::now();
        world.step(1.0 / 60.0).unwrap();
        times.push(t.elapsed().as_secs_f64());
        world.cloth(h).unwrap().read_positions(&mut x).unwrap();
        strains = edges.iter().filter(|e| e.2 > 0.0).map(|e| d(x[e.0], x[e.1]) / e.2 - 1.0).collect::<Vec<f32>>();
        peak = peak.max(strains.iter().copied().fold(0.0, f32::max));
    }
    strains.sort_by(f32::total_cmp);
    times.sort_by(f64::total_cmp);
    println!("{scene} {sub} substeps: peak {:.2} %, end max {:.2} %, end p99 {:.2} %, median {:.2} ms/step", peak * 100.0, strains.last().unwrap() * 100.0, strains[strains.len() * 99 / 100] * 100.0, times[times.len() / 2] * 1e3);
}
