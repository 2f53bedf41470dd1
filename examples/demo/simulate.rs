//! Run one scene: create the cloth, step it at 60 Hz, time every step, record pictures, measure.

use crate::mesh_io::{TriangleMesh, write_obj};
use crate::output::{GifWriter, SceneOutputs, contact_sheet, write_png};
use crate::render::{Renderer, palette};
use crate::report::{Report, median};
use crate::scene::{DemoShape, FRAME_DT, PinRule, Scene, Script, add_colliders, max_penetration};
use glam::Vec3;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use xpbd_cloth::{ClothDesc, ClothHandle, ClothParams, Pose, World, WorldDesc};

/// Command-line settings shared by every scene.
#[derive(Clone, Debug)]
pub struct Options {
    /// Frames to simulate; `None` = the scene's default.
    pub frames: Option<u32>,
    pub substeps: u32,
    /// Worker threads (0 = all cores).
    pub threads: u32,
    pub out_dir: PathBuf,
}

/// GIF size [pixels] and cadence: every 3rd frame of 60 Hz = 20 pictures per second, real time.
pub const GIF_SIZE: (usize, usize) = (480, 360);
pub const GIF_EVERY: u32 = 3;
pub const GIF_DELAY_CENTISECONDS: u16 = 5;
/// Contact sheet: 8 tiles, 4 per row, evenly spaced in time from the first to the last frame.
pub const TILE_SIZE: (usize, usize) = (320, 240);
pub const TILES: u32 = 8;
pub const TILE_COLUMNS: usize = 4;

/// Simulate `scene` on `mesh` and write `outputs` (opened by the caller before any scene runs).
pub fn run(scene: &Scene, mesh: &TriangleMesh, opts: &Options, outputs: SceneOutputs) -> Result<Report, String> {
    let wall = Instant::now();
    let positions: Vec<[f32; 3]> =
        mesh.positions.iter().map(|&p| scene.placement.transform_point3(Vec3::from_array(p)).to_array()).collect();
    let world_desc = WorldDesc { substeps: opts.substeps, thread_count: opts.threads, ..WorldDesc::default() };
    let mut world = World::new(world_desc).map_err(|e| format!("invalid option: {e}"))?;
    let params = ClothParams { collision_thickness: scene.contact_thickness, ..scene.params };
    let desc = ClothDesc { params, max_extra_vertices: scene.max_extra_vertices, ..ClothDesc::new(&positions, &mesh.indices) };
    let cloth = world
        .add_cloth(&desc)
        .map_err(|e| format!("{}: mesh rejected by the library: {e}", scene.mesh_path.display()))?;
    let pins = pinned_vertices(scene.pins, &positions);
    world.cloth_mut(cloth).and_then(|c| c.set_pinned(&pins, None)).map_err(|e| e.to_string())?;
    let collider_handles = add_colliders(&mut world, scene)?;
    let registered_colliders = world.collider_count();
    // The colliders where they are now (a thrown ball moves).
    let mut colliders = scene.colliders.clone();

    let frames = opts.frames.unwrap_or(scene.frames);
    let paths = outputs.paths();
    let SceneOutputs { png: png_file, gif: gif_file, obj: obj_file } = outputs;
    let colours = palette::palette(scene.cloth_rgb);
    let mut recorder = Recorder {
        gif_renderer: Renderer::new(scene, GIF_SIZE.0, GIF_SIZE.1),
        tile_renderer: Renderer::new(scene, TILE_SIZE.0, TILE_SIZE.1),
        gif: GifWriter::create(gif_file, GIF_SIZE.0, GIF_SIZE.1, &colours, GIF_DELAY_CENTISECONDS)?,
        tile_frames: (0..TILES).map(|k| ((k * frames) as f32 / (TILES - 1) as f32).round() as u32).collect(),
        tiles: Vec::new(),
        positions: Vec::new(),
        normals: Vec::new(),
        indices: mesh.indices.clone(),
        topology_version: 0,
        moving_colliders: matches!(scene.script, Some(Script::Throw { .. })),
        render_time: Duration::ZERO,
    };
    recorder.record(&world, cloth, scene, &colliders, 0, frames)?;

    let mut step_times = Vec::with_capacity(frames as usize);
    let (mut peak_strain, mut peak_penetration) = (0.0f32, 0.0f32);
    let (mut most_torn, mut peak_volume, mut least_volume) = (0u32, 0.0f32, f32::INFINITY);
    let mut progress = Progress::new(&scene.name, frames);
    for frame in 1..=frames {
        if let Some(wind) = &scene.wind {
            let c = world.cloth_mut(cloth).map_err(|e| e.to_string())?;
            let params = xpbd_cloth::ClothParams { wind_velocity: wind.at(frame as f32 * FRAME_DT).to_array(), ..*c.params() };
            c.set_params(params).map_err(|e| e.to_string())?;
        }
        match scene.script {
            None => {}
            Some(Script::Throw { collider, start, velocity, launch }) => {
                let center = Script::ball_at(start, velocity, launch, frame);
                world.set_collider_pose(collider_handles[collider], &Pose::at(center.to_array())).map_err(|e| e.to_string())?;
                if let DemoShape::Sphere { center: drawn, .. } = &mut colliders[collider].shape {
                    *drawn = center;
                }
            }
            Some(Script::Inflate { from, to, frames: inflating, release }) => {
                let c = world.cloth_mut(cloth).map_err(|e| e.to_string())?;
                let pressure = Script::pressure_at(from, to, inflating, frame);
                // A cloth that tore has lost its pressure for good (the library turns it off).
                if c.params().pressure.is_some() {
                    c.set_params(ClothParams { pressure: Some(pressure), ..*c.params() }).map_err(|e| e.to_string())?;
                }
                if frame == release {
                    c.unpin(&pins).map_err(|e| e.to_string())?;
                }
            }
        }
        let start = Instant::now();
        world.step(FRAME_DT).map_err(|e| e.to_string())?;
        let c = world.cloth(cloth).map_err(|e| e.to_string())?;
        // Timed with the step: the first read of the statistics after a step computes them.
        peak_strain = peak_strain.max(c.stats().max_edge_strain);
        step_times.push(start.elapsed().as_secs_f64());
        most_torn = most_torn.max(c.stats().torn_edges_last_step);
        if scene.params.pressure.is_some() {
            let volume = c.volume().map_err(|e| e.to_string())?;
            (peak_volume, least_volume) = (peak_volume.max(volume), least_volume.min(volume));
        }

        if let Some(p) = c.particle_positions().iter().position(|x| !x.is_finite()) {
            return Err(format!("{}: simulation became unstable at frame {frame} (particle {p})", scene.name));
        }
        peak_penetration = peak_penetration.max(max_penetration(c.particle_positions(), &colliders));
        recorder.record(&world, cloth, scene, &colliders, frame, frames)?;
        progress.update(frame, &step_times);
    }
    drop(progress);

    let sheet = contact_sheet(&recorder.tiles, TILE_COLUMNS);
    write_png(png_file, &sheet, &colours)?;
    let c = world.cloth(cloth).map_err(|e| e.to_string())?;
    write_obj(obj_file, &recorder.positions, &recorder.normals, &recorder.indices)?;
    let mut notes = Vec::new();
    if c.can_tear() {
        let counts = c.render_counts();
        notes.push(format!(
            "tearing       {} cut(s) (at most {most_torn} in one step), {} render vertices ({} as created), {} piece(s)",
            counts.topology_version,
            counts.vertex_count,
            mesh.positions.len(),
            pieces(&recorder.indices, counts.vertex_count as usize)
        ));
    }
    if scene.params.pressure.is_some() {
        let rest = c.rest_volume();
        let end = c.volume().map_err(|e| e.to_string())?;
        notes.push(format!(
            "volume        {:.2} l at rest, {:.2} l at the end ({:.1} %), {:.1} % peak, {:.1} % least",
            1e3 * rest,
            1e3 * end,
            100.0 * end / rest,
            100.0 * peak_volume / rest,
            100.0 * least_volume / rest
        ));
    }

    Ok(Report {
        scene: scene.name.clone(),
        mesh_path: scene.mesh_path.clone(),
        frames,
        world: *world.desc(),
        info: c.info(),
        pinned: pins.len(),
        stretch_count: c.stats().stretch.count as usize,
        bending_count: c.stats().bending.count as usize,
        tether_count: c.stats().tether.count as usize,
        median_step_seconds: median(&mut step_times),
        total_step_seconds: step_times.iter().sum(),
        stats: *c.stats(),
        peak_strain,
        final_penetration: max_penetration(c.particle_positions(), &colliders),
        peak_penetration,
        colliders: scene.colliders.len(),
        registered_colliders,
        render_seconds: recorder.render_time.as_secs_f64(),
        wall_seconds: wall.elapsed().as_secs_f64(),
        notes,
        outputs: paths,
    })
}

fn pinned_vertices(rule: PinRule, positions: &[[f32; 3]]) -> Vec<u32> {
    match rule {
        PinRule::None => Vec::new(),
        PinRule::MinX => {
            let min_x = positions.iter().map(|p| p[0]).fold(f32::INFINITY, f32::min);
            (0..positions.len() as u32).filter(|&v| positions[v as usize][0] <= min_x + 1e-4).collect()
        }
        PinRule::MaxY => {
            let max_y = positions.iter().map(|p| p[1]).fold(f32::NEG_INFINITY, f32::max);
            (0..positions.len() as u32).filter(|&v| positions[v as usize][1] >= max_y - 1e-4).collect()
        }
    }
}

/// Turns cloth states into GIF frames and contact-sheet tiles.
struct Recorder {
    gif_renderer: Renderer,
    tile_renderer: Renderer,
    gif: GifWriter,
    tile_frames: Vec<u32>,
    tiles: Vec<(f32, crate::render::Canvas)>,
    /// Last read cloth state, render order, and the render triangles (`3·triangles` indices) of
    /// topology version `topology_version` (a cut adds vertices and changes indices).
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    indices: Vec<u32>,
    topology_version: u32,
    /// A collider moves: the background is drawn again for every picture.
    moving_colliders: bool,
    render_time: Duration,
}

impl Recorder {
    fn record(&mut self, world: &World, cloth: ClothHandle, scene: &Scene, colliders: &[crate::scene::DemoCollider], frame: u32, last: u32) -> Result<(), String> {
        let start = Instant::now();
        let c = world.cloth(cloth).map_err(|e| e.to_string())?;
        let counts = c.render_counts();
        if counts.vertex_count as usize != self.positions.len() || counts.topology_version != self.topology_version {
            self.positions.resize(counts.vertex_count as usize, [0.0; 3]);
            self.normals.resize(counts.vertex_count as usize, [0.0; 3]);
            let mut triangles = vec![[0u32; 3]; counts.triangle_count as usize];
            c.read_indices(&mut triangles).map_err(|e| e.to_string())?;
            self.indices = triangles.concat();
            self.topology_version = counts.topology_version;
        }
        c.read_positions(&mut self.positions).map_err(|e| e.to_string())?;
        c.read_normals(&mut self.normals).map_err(|e| e.to_string())?;
        if frame.is_multiple_of(GIF_EVERY) || frame == last {
            if self.moving_colliders {
                self.gif_renderer = Renderer::for_view(&scene.camera, colliders, GIF_SIZE.0, GIF_SIZE.1);
            }
            self.gif.add(&self.gif_renderer.draw(&self.positions, &self.normals, &self.indices))?;
        }
        if self.tile_frames.contains(&frame) {
            if self.moving_colliders {
                self.tile_renderer = Renderer::for_view(&scene.camera, colliders, TILE_SIZE.0, TILE_SIZE.1);
            }
            let picture = self.tile_renderer.draw(&self.positions, &self.normals, &self.indices);
            self.tiles.push((frame as f32 * FRAME_DT, picture));
        }
        self.render_time += start.elapsed();
        Ok(())
    }
}

/// A one-line progress display on stderr, redrawn in place at most every 100 ms.
struct Progress<'a> {
    name: &'a str,
    frames: u32,
    last_draw: Option<Instant>,
}

impl<'a> Progress<'a> {
    fn new(name: &'a str, frames: u32) -> Self {
        Progress { name, frames, last_draw: None }
    }

    fn update(&mut self, frame: u32, step_times: &[f64]) {
        if self.last_draw.is_some_and(|t| t.elapsed() < Duration::from_millis(100)) && frame < self.frames {
            return;
        }
        self.last_draw = Some(Instant::now());
        let recent = &step_times[step_times.len().saturating_sub(30)..];
        let ms = 1e3 * recent.iter().sum::<f64>() / recent.len().max(1) as f64;
        // `write!` rather than `eprint!`, which panics when stderr is closed or full.
        let _ = write!(
            std::io::stderr(),
            "\r  {}: frame {frame}/{} ({:.2} s simulated), {ms:.2} ms/step   ",
            self.name,
            self.frames,
            frame as f32 * FRAME_DT
        );
        std::io::stderr().flush().ok();
    }

}

/// The line is cleared when the scene ends, also when it ends with an error: the message then
/// starts on a clean line instead of after the last progress figures.
impl Drop for Progress<'_> {
    fn drop(&mut self) {
        if self.last_draw.is_some() {
            let _ = write!(std::io::stderr(), "\r{}\r", " ".repeat(72));
            std::io::stderr().flush().ok();
        }
    }
}

/// Connected pieces of the render mesh: triangles joined by a shared vertex.
fn pieces(indices: &[u32], vertex_count: usize) -> usize {
    fn root(parent: &mut [usize], mut v: usize) -> usize {
        while parent[v] != v {
            parent[v] = parent[parent[v]];
            v = parent[v];
        }
        v
    }
    let mut parent: Vec<usize> = (0..vertex_count).collect();
    for t in indices.chunks_exact(3) {
        for k in 1..3 {
            let (a, b) = (root(&mut parent, t[0] as usize), root(&mut parent, t[k] as usize));
            parent[a.max(b)] = a.min(b);
        }
    }
    let mut used = vec![false; vertex_count];
    indices.iter().for_each(|&v| used[v as usize] = true);
    (0..vertex_count).filter(|&v| used[v] && root(&mut parent, v) == v).count()
}
