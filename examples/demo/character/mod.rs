//! The `character` scene: a figure of capsules, animated procedurally (walk, run, a 90° snap turn
//! of its root in one step, a respawn 50 m away), wearing a skirt and a cape that the library
//! skins from its joints (LBS) and simulates within per-vertex max distances, the cape with a
//! backstop, the skirt with a gentle anim drive. It uses the public API as an engine would, every
//! frame: joint world matrices and the root as reference frame for each cloth, the capsules'
//! poses, one step; on the respawn one `World::teleport` of root, cloths and capsules together.
//! The camera follows the root. The report gives, per phase, the max-distance and backstop
//! violations, edge strain and the deepest capsule penetration, measured after every step.

mod dress;
mod figure;
mod garments;
mod measure;
mod report;

pub use report::CharacterReport;

use crate::mesh_io::write_obj;
use crate::output::{GifWriter, SceneOutputs, contact_sheet, write_png};
use crate::render::{Renderer, palette};
use crate::report::median;
use crate::scene::{CameraSpec, DemoCollider, DemoShape, FRAME_DT};
use crate::simulate::{GIF_DELAY_CENTISECONDS, GIF_EVERY, GIF_SIZE, Options, TILE_COLUMNS, TILE_SIZE, TILES};
use dress::{CAPSULE_FRICTION, FLOOR_FRICTION};
use figure::{BodyCapsule, CAPSULES, Figure, JOINT_COUNT, Rigid};
use garments::Garment;
use glam::Vec3;
use measure::{Buffers, Phase, PhaseStats};
use std::time::{Duration, Instant};
use xpbd_cloth::{ClothHandle, World, WorldDesc};

/// Frames of the scene by default: 5 s at 60 Hz.
pub const DEFAULT_FRAMES: u32 = 300;
/// Where the respawn puts the root, relative to where it was [m] (50 m away), and the heading it
/// faces there [rad].
const RESPAWN_OFFSET: Vec3 = Vec3::new(-30.0, 0.0, 40.0);
const RESPAWN_HEADING: f32 = 0.0;
/// The walk turns into a run over this long from the start of the run phase [s].
const RUN_RAMP: f32 = 0.5;
const CLOTH_RGB: [u8; 3] = [150, 52, 110];

/// The phase that step `k` (1-based) of `frames` plays: the first 30 % walk, then 30 % run, then
/// 20 % from the snap turn on, the last 20 % from the respawn on.
fn phase_of(k: u32, frames: u32) -> Phase {
    let tenths = (k as u64 - 1) * 10;
    let f = frames as u64;
    if tenths < 3 * f {
        Phase::Walk
    } else if tenths < 6 * f {
        Phase::Run
    } else if tenths < 8 * f {
        Phase::Turn
    } else {
        Phase::Respawn
    }
}

/// The camera for the figure with its root at `root`: beside and in front of it, its height.
fn camera(root: Vec3) -> CameraSpec {
    CameraSpec {
        target: Vec3::new(root.x, 1.0, root.z),
        direction: Vec3::new(1.0, 0.3, -0.6),
        distance: 3.6,
        fov_y: 40f32.to_radians(),
    }
}

/// A cloth of the world with its garment and read-back buffers.
struct Worn {
    garment: Garment,
    handle: ClothHandle,
    buffers: Buffers,
}

/// Run the scene and write `outputs`.
pub fn run(opts: &Options, outputs: SceneOutputs) -> Result<CharacterReport, String> {
    let wall = Instant::now();
    let world_desc = WorldDesc { substeps: opts.substeps, thread_count: opts.threads, ..WorldDesc::default() };
    let mut world = World::new(world_desc).map_err(|e| format!("invalid option: {e}"))?;
    let mut figure = Figure::new();
    let poses = figure.joint_poses();
    let inverse_binds = garments::inverse_bind_matrices();
    let mut worn = Vec::new();
    for garment in [garments::skirt(), garments::cape()] {
        worn.push(wear(&mut world, garment, &inverse_binds, &figure, &poses)?);
    }
    let cloths: Vec<ClothHandle> = worn.iter().map(|w| w.handle).collect();
    let capsules = dress::add_body(&mut world, &poses).map_err(|e| format!("the demo's capsule was rejected: {e}"))?;
    let floor = DemoCollider { shape: DemoShape::Plane { point: Vec3::ZERO, normal: Vec3::Y }, friction: FLOOR_FRICTION };
    world.add_collider(&floor.to_collider_desc()).map_err(|e| format!("the demo's floor was rejected: {e}"))?;

    let frames = opts.frames.unwrap_or(DEFAULT_FRAMES);
    let paths = outputs.paths();
    let SceneOutputs { png: png_file, gif: gif_file, obj: obj_file } = outputs;
    let colours = palette::palette(CLOTH_RGB);
    let mut recorder = Recorder {
        gif: GifWriter::create(gif_file, GIF_SIZE.0, GIF_SIZE.1, &colours, GIF_DELAY_CENTISECONDS)?,
        tile_frames: (0..TILES).map(|k| ((k * frames) as f32 / (TILES - 1) as f32).round() as u32).collect(),
        tiles: Vec::new(),
        indices: Vec::new(),
        positions: Vec::new(),
        normals: Vec::new(),
        time: Duration::ZERO,
    };
    for w in &worn {
        let base = recorder.positions.len() as u32;
        recorder.indices.extend(w.garment.indices.iter().map(|i| i + base));
        recorder.positions.extend(&w.garment.positions);
    }
    recorder.normals = vec![[0.0; 3]; recorder.positions.len()];
    recorder.record(&world, &worn, &body(&poses), &floor, figure.root().translation, 0, frames)?;

    let mut phases: Vec<(Phase, PhaseStats)> = Phase::ALL.iter().map(|&p| (p, PhaseStats::new())).collect();
    let mut step_times = Vec::with_capacity(frames as usize);
    let mut run_started = None;
    let mut jump = 0.0f32;
    for k in 1..=frames {
        let phase = phase_of(k, frames);
        let first_of_phase = k == 1 || phase_of(k - 1, frames) != phase;
        match phase {
            Phase::Run if first_of_phase => run_started = Some(k),
            Phase::Turn if first_of_phase => figure.snap_turn(std::f32::consts::FRAC_PI_2),
            Phase::Respawn if first_of_phase => {
                // Between two steps: the root, the cloths (their pose, skin joints and reference
                // frame) and the capsules jump by one rigid transform, nothing swept between.
                let from = figure.root().translation;
                let t = figure.respawn(from + RESPAWN_OFFSET, RESPAWN_HEADING);
                jump = from.distance(figure.root().translation);
                world.teleport(&cloths, &capsules, t.translation.to_array(), t.rotation.to_array()).map_err(|e| e.to_string())?;
            }
            _ => {}
        }
        if let Some(start) = run_started {
            figure.run_blend = ((k - start + 1) as f32 * FRAME_DT / RUN_RAMP).min(1.0);
        }
        figure.advance(FRAME_DT);
        let poses = figure.joint_poses();
        dress::pose_the_world(&mut world, &cloths, &capsules, &figure.root(), &poses).map_err(|e| e.to_string())?;
        let start = Instant::now();
        world.step(FRAME_DT).map_err(|e| format!("character: step {k}: {e}"))?;
        step_times.push(start.elapsed().as_secs_f64());

        let body = body(&poses);
        let stats = &mut phases.iter_mut().find(|(p, _)| *p == phase).expect("every phase listed").1;
        stats.steps += 1;
        for w in &mut worn {
            let c = world.cloth(w.handle).map_err(|e| e.to_string())?;
            if let Some(p) = c.particle_positions().iter().position(|x| !x.is_finite()) {
                return Err(format!("character: the {} became unstable at frame {k} (particle {p})", w.garment.name));
            }
            let backstops = w.garment.backstops.as_ref().map(|(b, r)| (b.as_slice(), r.as_slice()));
            stats.add(c, &w.garment.max_distances, backstops, &body, &mut w.buffers)?;
        }
        recorder.record(&world, &worn, &body, &floor, figure.root().translation, k, frames)?;
    }

    write_png(png_file, &contact_sheet(&recorder.tiles, TILE_COLUMNS), &colours)?;
    write_obj(obj_file, &recorder.positions, &recorder.normals, &recorder.indices)?;
    let garments = worn
        .iter()
        .map(|w| {
            let info = world.cloth(w.handle).map(|c| c.info()).map_err(|e| e.to_string())?;
            let sewn = w.garment.max_distances.iter().filter(|&&d| d == 0.0).count();
            Ok(report::GarmentLine { name: w.garment.name, info, sewn_on: sewn, backstop: w.garment.backstops.is_some(), anim_drive: w.garment.anim_drive.is_some() })
        })
        .collect::<Result<_, String>>()?;
    Ok(CharacterReport {
        frames,
        world: *world.desc(),
        capsules: capsules.len(),
        garments,
        respawn_distance: jump,
        phases,
        total_step_seconds: step_times.iter().sum(),
        median_step_seconds: median(&mut step_times),
        render_seconds: recorder.time.as_secs_f64(),
        wall_seconds: wall.elapsed().as_secs_f64(),
        outputs: paths,
    })
}

/// Put `garment` on the figure ([`dress::wear`]), with the buffers its measurements use.
fn wear(world: &mut World, garment: Garment, inverse_binds: &[[f32; 16]], figure: &Figure, poses: &[Rigid; JOINT_COUNT]) -> Result<Worn, String> {
    let handle = dress::wear(world, &garment, inverse_binds, figure, poses).map_err(|e| format!("the demo's {} was rejected: {e}", garment.name))?;
    let buffers = Buffers::new(garment.positions.len());
    Ok(Worn { garment, handle, buffers })
}

/// The body's capsules in world space for the joint poses `poses`, from the figure's geometry.
fn body(poses: &[Rigid; JOINT_COUNT]) -> Vec<DemoCollider> {
    CAPSULES
        .iter()
        .map(|c: &BodyCapsule| {
            let (a, b) = c.ends(&poses[c.joint as usize]);
            DemoCollider { shape: DemoShape::Capsule { a, b, radius: c.radius }, friction: CAPSULE_FRICTION }
        })
        .collect()
}

/// GIF frames and contact-sheet tiles of both garments on the moving body, the camera on the root.
struct Recorder {
    gif: GifWriter,
    tile_frames: Vec<u32>,
    tiles: Vec<(f32, crate::render::Canvas)>,
    /// Both garments as one mesh (the skirt's vertices first).
    indices: Vec<u32>,
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    time: Duration,
}

impl Recorder {
    #[allow(clippy::too_many_arguments)]
    fn record(&mut self, world: &World, worn: &[Worn], body: &[DemoCollider], floor: &DemoCollider, root: Vec3, frame: u32, last: u32) -> Result<(), String> {
        let start = Instant::now();
        let mut offset = 0;
        for w in worn {
            let c = world.cloth(w.handle).map_err(|e| e.to_string())?;
            let n = w.garment.positions.len();
            c.read_positions(&mut self.positions[offset..offset + n]).map_err(|e| e.to_string())?;
            c.read_normals(&mut self.normals[offset..offset + n]).map_err(|e| e.to_string())?;
            offset += n;
        }
        let gif = frame.is_multiple_of(GIF_EVERY) || frame == last;
        let tile = self.tile_frames.contains(&frame);
        if gif || tile {
            let mut colliders = body.to_vec();
            colliders.push(floor.clone());
            let view = camera(root);
            if gif {
                let picture = Renderer::for_view(&view, &colliders, GIF_SIZE.0, GIF_SIZE.1).draw(&self.positions, &self.normals, &self.indices);
                self.gif.add(&picture)?;
            }
            if tile {
                let picture = Renderer::for_view(&view, &colliders, TILE_SIZE.0, TILE_SIZE.1).draw(&self.positions, &self.normals, &self.indices);
                self.tiles.push((frame as f32 * FRAME_DT, picture));
            }
        }
        self.time += start.elapsed();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_split_the_run_30_30_20_20_and_cover_every_frame() {
        let counts = |frames| Phase::ALL.map(|p| (1..=frames).filter(|&k| phase_of(k, frames) == p).count());
        assert_eq!(counts(300), [90, 90, 60, 60]);
        assert_eq!(counts(60), [18, 18, 12, 12]);
        assert_eq!(counts(1), [1, 0, 0, 0]);
        assert!((RESPAWN_OFFSET.length() - 50.0).abs() < 1e-4);
    }
}
