#[path = "../tests/common/mod.rs"]
mod common;
use xpbd_cloth::{ClothDesc, ClothParams, World, WorldDesc};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args[1].parse().unwrap();
    let sub: u32 = args[2].parse().unwrap();
    let limit = args[3] == "on";
    let steps: usize = args[4].parse().unwrap();
    let (positions, indices) = common::horizontal_sheet(n, 1.0, 0.0);
    let mut world = World::new(WorldDesc { substeps: sub, iterations: 1, thread_count: 1, ..WorldDesc::default() }).unwrap();
    let mut desc = ClothDesc::new(&positions, &indices);
    desc.params = ClothParams { max_stretch: if limit { Some(1.025) } else { None }, ..common::light_stiff_params() };
    let h = world.add_cloth(&desc).unwrap();
    world.cloth_mut(h).unwrap().set_pinned(&[0, n as u32 - 1], None).unwrap();
    if args.len() > 5 { world.cloth_mut(h).unwrap().set_constraint_colouring(args[5] == "colour"); }
    for _ in 0..steps { world.step(1.0 / 60.0).unwrap(); }
    let mut x = vec![[0.0f32; 3]; n * n];
    world.cloth(h).unwrap().read_positions(&mut x).unwrap();
    let rest = 1.0 / (n - 1) as f32;
    let b = 16; let cells = n / b + 1;
    let mut map = vec![0.0f32; cells * cells];
    let d = |a: [f32;3], c: [f32;3]| ((a[0]-c[0]).powi(2)+(a[1]-c[1]).powi(2)+(a[2]-c[2]).powi(2)).sqrt();
    let mut over = 0;
    for j in 0..n { for i in 0..n {
        let p = x[j*n+i];
        for (di,dj) in [(1,0),(0,1)] { if i+di<n && j+dj<n {
            let s = d(p, x[(j+dj)*n+i+di]) / rest - 1.0;
            if s > 0.025 { over += 1; }
            let c = &mut map[(j/b)*cells + i/b]; if s > *c { *c = s; }
        }}
    }}
    println!("structural edges over 2.5%: {over}; stats max {:.2}% p99 {:.2}%", world.cloth(h).unwrap().stats().max_edge_strain*100.0, world.cloth(h).unwrap().stats().strain_p99*100.0);
    for r in 0..cells { println!("{}", (0..cells).map(|c| format!("{:5.1}", map[r*cells+c]*100.0)).collect::<Vec<_>>().join(" ")); }
}
