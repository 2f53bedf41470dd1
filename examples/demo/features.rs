//! `--scene features`: one picture for each of issue 46's features, for the docs.
//!
//! - `render_proxy.png`: a 16 × 16 flag simulated in gusty wind (left, drawn with its triangles'
//!   own normals) and the 64 × 64 quilted mesh drawn from it as a render proxy (right).
//! - `debug_lines.png`: a cloth draped over a ball and a bar with its debug lines: edges by
//!   strain (green at rest, red at the stretch limit), collider wire shapes (orange), contact
//!   normals (cyan) and pins (magenta).
//! - `level_of_detail.png`: four flags in the same wind at `step_interval` 1, 2, 4 and 8.

use crate::output::{OutputFile, write_png, write_png_rgb};
use crate::render::font::draw_text;
use crate::render::palette::{self, INK};
use crate::render::{Canvas, Renderer};
use crate::scene::{CameraSpec, DemoCollider, DemoShape, FRAME_DT, GustyWind};
use crate::simulate::Options;
use glam::Vec3;
use std::path::PathBuf;
use xpbd_cloth::debug_lines::{DEBUG_COLLIDERS, DEBUG_CONTACTS, DEBUG_EDGES, DEBUG_PINS};
use xpbd_cloth::{ClothDesc, ClothHandle, ClothParams, RenderProxyDesc, World, WorldDesc};

/// The flag's wind (the demo's flag scene's).
const WIND: GustyWind = GustyWind { mean: Vec3::new(6.0, 0.0, 0.0), gust: 0.35, swirl: 1.2 };

/// Picture size [pixels].
const SIZE: (usize, usize) = (480, 360);

fn err(e: xpbd_cloth::ClothError) -> String {
    e.to_string()
}

/// An `n × n` grid over the 1 m square in the x–y plane hoisted on x = `x0`, top at y = 2, with
/// `z(u, v)` \[m\] added; two triangles per quad.
fn flag_mesh(n: usize, x0: f32, z: impl Fn(f32, f32) -> f32) -> (Vec<[f32; 3]>, Vec<u32>) {
    let mut p = Vec::with_capacity(n * n);
    for j in 0..n {
        for i in 0..n {
            let (u, v) = (i as f32 / (n - 1) as f32, j as f32 / (n - 1) as f32);
            p.push([x0 + u, 2.0 - v, z(u, v)]);
        }
    }
    let mut indices = Vec::new();
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let a = (j * n + i) as u32;
            let (b, c, d) = (a + 1, a + n as u32, a + n as u32 + 1);
            indices.extend([a, c, b, b, c, d]);
        }
    }
    (p, indices)
}

/// A flag of `flag_mesh(n, x0, flat)` in `world`, hoisted, in wind, at `step_interval`.
fn add_flag(world: &mut World, n: usize, x0: f32, step_interval: u32) -> Result<ClothHandle, String> {
    let (p, i) = flag_mesh(n, x0, |_, _| 0.0);
    let params = ClothParams { drag_coefficient: 1.0, lift_coefficient: 0.3, deformation_damping: 0.5, step_interval, ..ClothParams::default() };
    let cloth = world.add_cloth(&ClothDesc { params, ..ClothDesc::new(&p, &i) }).map_err(err)?;
    let hoist: Vec<u32> = (0..n as u32).map(|r| r * n as u32).collect();
    world.cloth_mut(cloth).and_then(|c| c.set_pinned(&hoist, None)).map_err(err)?;
    Ok(cloth)
}

/// Step `world` for `frames` frames of 1/60 s, the wind of `cloths` following [`WIND`].
fn fly(world: &mut World, cloths: &[ClothHandle], frames: u32) -> Result<(), String> {
    for frame in 1..=frames {
        for &c in cloths {
            let cloth = world.cloth_mut(c).map_err(err)?;
            let params = ClothParams { wind_velocity: WIND.at(frame as f32 * FRAME_DT).to_array(), ..*cloth.params() };
            cloth.set_params(params).map_err(err)?;
        }
        world.step(FRAME_DT).map_err(err)?;
    }
    Ok(())
}

/// Each triangle's corners with its face normal (flat shading, to show the facets).
fn faceted(positions: &[[f32; 3]], indices: &[u32]) -> (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<u32>) {
    let (mut p, mut n) = (Vec::new(), Vec::new());
    for t in indices.chunks_exact(3) {
        let c = [0, 1, 2].map(|k| Vec3::from_array(positions[t[k] as usize]));
        let normal = (c[1] - c[0]).cross(c[2] - c[0]).normalize_or_zero();
        for x in c {
            p.push(x.to_array());
            n.push(normal.to_array());
        }
    }
    let indices = (0..p.len() as u32).collect();
    (p, n, indices)
}

/// A cloth's positions and normals \[m\], one `[x, y, z]` per render vertex.
type Surface = (Vec<[f32; 3]>, Vec<[f32; 3]>);

/// Positions and normals of a cloth, render order.
fn read(world: &World, cloth: ClothHandle) -> Result<Surface, String> {
    let c = world.cloth(cloth).map_err(err)?;
    let n = c.vertex_count() as usize;
    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    c.read_positions(&mut p).map_err(err)?;
    c.read_normals(&mut q).map_err(err)?;
    Ok((p, q))
}

/// `a` and `b` side by side.
fn side_by_side(a: &Canvas, b: &Canvas) -> Canvas {
    let mut out = Canvas::new(a.width + b.width, a.height);
    for y in 0..a.height {
        let row = y * out.width;
        out.pixels[row..row + a.width].copy_from_slice(&a.pixels[y * a.width..(y + 1) * a.width]);
        out.pixels[row + a.width..row + a.width + b.width].copy_from_slice(&b.pixels[y * b.width..(y + 1) * b.width]);
    }
    out
}

fn flag_camera(centre: Vec3, direction: Vec3, distance: f32) -> CameraSpec {
    CameraSpec { target: centre, direction, distance, fov_y: 40f32.to_radians() }
}

/// The render proxy picture.
fn render_proxy(out: OutputFile) -> Result<(), String> {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).map_err(err)?;
    let cloth = add_flag(&mut world, 16, 0.0, 1)?;
    // Quilted: 4 mm bumps in a 6 × 6 pattern, in the simulated flag's rest frame.
    let quilt = |u: f32, v: f32| 0.004 * ((std::f32::consts::TAU * 6.0 * u).sin() * (std::f32::consts::TAU * 6.0 * v).sin()).abs();
    let (fine, fine_indices) = flag_mesh(64, 0.0, quilt);
    let proxy = world.add_render_proxy(cloth, &RenderProxyDesc::new(&fine, &fine_indices)).map_err(err)?;
    fly(&mut world, &[cloth], 90)?;
    let renderer = Renderer::for_view(&flag_camera(Vec3::new(0.55, 1.55, 0.0), Vec3::new(-0.5, 0.25, 1.0), 2.4), &[], SIZE.0 / 2 + 80, SIZE.1);
    let (p, _) = read(&world, cloth)?;
    let (_, sim_indices) = flag_mesh(16, 0.0, |_, _| 0.0);
    let (fp, fnormals, fi) = faceted(&p, &sim_indices);
    let left = renderer.draw(&fp, &fnormals, &fi);
    let (mut dp, mut dn) = (vec![[0.0f32; 3]; fine.len()], vec![[0.0f32; 3]; fine.len()]);
    world.read_render_proxy_positions(proxy, &mut dp).map_err(err)?;
    world.read_render_proxy_normals(proxy, &mut dn).map_err(err)?;
    let right = renderer.draw(&dp, &dn, &fine_indices);
    let mut sheet = side_by_side(&left, &right);
    draw_text(&mut sheet, "16", 8, 8, 3, INK);
    draw_text(&mut sheet, "64", left.width + 8, 8, 3, INK);
    write_png(out, &sheet, &palette::palette([40, 92, 170]))
}

/// Draw the line `a`–`b` [m] into `rgb` (the pixels of `canvas`, 3 bytes each) in `colour`
/// (RGBA8), where it is not behind what `canvas` shows (2 % depth tolerance, so lines on a
/// surface show).
fn draw_line(renderer: &Renderer, canvas: &Canvas, rgb: &mut [u8], a: Vec3, b: Vec3, colour: u32) {
    let (Some(p), Some(q)) = (renderer.project_point(a), renderer.project_point(b)) else { return };
    let steps = (p.x - q.x).abs().max((p.y - q.y).abs()).ceil().max(1.0) as usize;
    let [r, g, bl, _] = colour.to_le_bytes();
    for k in 0..=steps {
        let t = k as f32 / steps as f32;
        let (x, y, inv_depth) = (p.x + (q.x - p.x) * t, p.y + (q.y - p.y) * t, p.inv_depth + (q.inv_depth - p.inv_depth) * t);
        if x < 0.0 || y < 0.0 || x >= canvas.width as f32 || y >= canvas.height as f32 {
            continue;
        }
        let i = y as usize * canvas.width + x as usize;
        if inv_depth * 1.02 >= canvas.inv_depth_at(i) {
            rgb[3 * i..3 * i + 3].copy_from_slice(&[r, g, bl]);
        }
    }
}

/// The debug lines picture.
fn debug_lines(out: OutputFile) -> Result<(), String> {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).map_err(err)?;
    let colliders = [
        DemoCollider { shape: DemoShape::Sphere { center: Vec3::new(0.0, 0.3, 0.0), radius: 0.3 }, friction: 0.5 },
        DemoCollider { shape: DemoShape::Capsule { a: Vec3::new(-0.6, 0.15, 0.45), b: Vec3::new(0.6, 0.15, 0.45), radius: 0.06 }, friction: 0.5 },
        DemoCollider { shape: DemoShape::Plane { point: Vec3::ZERO, normal: Vec3::Y }, friction: 0.6 },
    ];
    for c in &colliders {
        world.add_collider(&c.to_collider_desc()).map_err(err)?;
    }
    let n = 20usize;
    let positions: Vec<[f32; 3]> = (0..n * n).map(|k| [((k % n) as f32 / (n - 1) as f32 - 0.5) * 1.1, 0.75, ((k / n) as f32 / (n - 1) as f32 - 0.5) * 1.1]).collect();
    let (_, indices) = flag_mesh(n, 0.0, |_, _| 0.0);
    let cloth = world.add_cloth(&ClothDesc::new(&positions, &indices)).map_err(err)?;
    world.cloth_mut(cloth).and_then(|c| c.set_pinned(&[0, n as u32 - 1], None)).map_err(err)?;
    for _ in 0..75 {
        world.step(FRAME_DT).map_err(err)?;
    }
    let view = CameraSpec { target: Vec3::new(0.0, 0.35, 0.0), direction: Vec3::new(0.6, 0.75, 1.0), distance: 2.4, fov_y: 40f32.to_radians() };
    let renderer = Renderer::for_view(&view, &colliders, SIZE.0, SIZE.1);
    let (p, q) = read(&world, cloth)?;
    let canvas = renderer.draw(&p, &q, &indices);
    let colours = palette::palette([200, 200, 205]);
    let mut rgb: Vec<u8> = canvas.pixels.iter().flat_map(|&i| [colours[3 * i as usize], colours[3 * i as usize + 1], colours[3 * i as usize + 2]]).collect();
    let flags = DEBUG_EDGES | DEBUG_COLLIDERS | DEBUG_CONTACTS | DEBUG_PINS;
    let total = world.debug_lines(flags, &mut [], &mut []).map_err(err)?;
    let (mut lines, mut line_colours) = (vec![[0.0f32; 6]; total], vec![0u32; total]);
    world.debug_lines(flags, &mut lines, &mut line_colours).map_err(err)?;
    for (l, &c) in lines.iter().zip(&line_colours) {
        draw_line(&renderer, &canvas, &mut rgb, Vec3::new(l[0], l[1], l[2]), Vec3::new(l[3], l[4], l[5]), c);
    }
    write_png_rgb(out, canvas.width, canvas.height, &rgb)
}

/// The level of detail picture.
fn level_of_detail(out: OutputFile) -> Result<(), String> {
    let mut world = World::new(WorldDesc { thread_count: 0, ..WorldDesc::default() }).map_err(err)?;
    let intervals = [1u32, 2, 4, 8];
    let cloths: Vec<ClothHandle> = intervals.iter().enumerate().map(|(k, &n)| add_flag(&mut world, 24, 1.5 * k as f32, n)).collect::<Result<_, _>>()?;
    fly(&mut world, &cloths, 120)?;
    let renderer = Renderer::for_view(&flag_camera(Vec3::new(2.85, 1.5, 0.0), Vec3::new(-0.1, 0.15, 1.0), 4.3), &[], 2 * SIZE.0, 300);
    let mut canvas = renderer.background();
    for &c in &cloths {
        let (p, q) = read(&world, c)?;
        let (_, i) = flag_mesh(24, 0.0, |_, _| 0.0);
        canvas = renderer.draw_onto(canvas, &p, &q, &i);
    }
    for (k, n) in intervals.iter().enumerate() {
        let at = renderer.project_point(Vec3::new(1.5 * k as f32, 2.15, 0.0)).map_or(8.0, |s| s.x);
        draw_text(&mut canvas, &format!("N={n}"), at.max(0.0) as usize, 6, 3, INK);
    }
    write_png(out, &canvas, &palette::palette([40, 92, 170]))
}

/// Write the three pictures into `opts.out_dir`; their paths.
pub fn run(opts: &Options) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(&opts.out_dir).map_err(|e| format!("cannot create {}: {e}", opts.out_dir.display()))?;
    let names = ["render_proxy.png", "debug_lines.png", "level_of_detail.png"];
    let files: Vec<OutputFile> = names.iter().map(|n| OutputFile::open(opts.out_dir.join(n))).collect::<Result<_, _>>()?;
    let paths: Vec<PathBuf> = files.iter().map(|f| f.path.clone()).collect();
    let mut files = files.into_iter();
    render_proxy(files.next().expect("three files"))?;
    debug_lines(files.next().expect("three files"))?;
    level_of_detail(files.next().expect("three files"))?;
    Ok(paths)
}
