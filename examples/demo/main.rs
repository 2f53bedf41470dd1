//! The xpbd_cloth demo: drape real meshes and look at the result.
//!
//! `cargo run --release --example demo` runs the bundled scenes: a tablecloth falling onto a table
//! (table.obj, a mesh collider), a flag pinned to a pole in gusty wind, a cloth dropped over a cow
//! (spot.obj, a mesh collider), and a character of capsules that walks, runs, snap-turns and
//! respawns in a skinned skirt and cape, a tearable flag that a ball flies through, and a beach
//! ball inflated and dropped onto the table. For each it prints a report (sizes, speed, residuals or
//! the character's limits, strain, penetration) and writes into `out/`: `<scene>.png` (contact sheet of 8 frames),
//! `<scene>.gif` (animation, real time) and `<scene>_final.obj` (the last frame, for Blender).
//! `--obj FILE` drops any triangle mesh onto a ball instead. `--scene features` writes the pictures
//! of render proxies, debug lines and level of detail (`features.rs`; the docs' pictures). Bad
//! input prints the error and exits with status 1; it never panics.

mod character;
mod features;
mod mesh_io;
mod output;
mod render;
mod report;
mod scene;
mod simulate;

use clap::{Arg, ArgMatches, Command, value_parser};
use output::SceneOutputs;
use glam::Vec3;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

fn command() -> Command {
    Command::new("demo")
        .about("Simulate cloth scenes with xpbd_cloth; print a report and write PNG, GIF and OBJ files")
        .arg(
            Arg::new("scene")
                .long("scene")
                .value_parser(["all", "tablecloth", "flag", "cow", "character", "features", "torn_flag", "beach_ball"])
                .default_value("all")
                .help("Built-in scene to run; features: the pictures of render proxies, debug lines and level of detail (not in all)"),
        )
        .arg(
            Arg::new("obj")
                .long("obj")
                .value_name("FILE")
                .value_parser(value_parser!(PathBuf))
                .conflicts_with("scene")
                .help("Drop this triangle mesh (OBJ, metres, Y up) onto a ball instead of the built-in scenes"),
        )
        .arg(
            Arg::new("frames")
                .long("frames")
                // "-1" as a value (a range or parse error), not as an unknown option.
                .allow_negative_numbers(true)
                .value_parser(value_parser!(u32).range(1..=100_000))
                .help("Frames of 1/60 s to simulate [default: 240 per built-in scene, 300 for character, 120 for --obj]"),
        )
        .arg(
            Arg::new("substeps")
                .long("substeps")
                // "-1" as a value (a range or parse error), not as an unknown option.
                .allow_negative_numbers(true)
                .value_parser(value_parser!(u32))
                .default_value("10")
                .help("Substeps per frame"),
        )
        .arg(
            Arg::new("threads")
                .long("threads")
                // "-1" as a value (a range or parse error), not as an unknown option.
                .allow_negative_numbers(true)
                .value_parser(value_parser!(u32))
                .default_value("0")
                .help("Worker threads, 0 = all cores"),
        )
        .arg(
            Arg::new("out")
                .long("out")
                .value_name("DIR")
                .value_parser(value_parser!(PathBuf))
                .default_value("out")
                .help("Folder for the pictures and meshes"),
        )
}

fn main() -> ExitCode {
    let args = command().get_matches();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            // Not `eprintln!`, which panics when stderr is closed or full.
            let _ = writeln!(std::io::stderr(), "error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &ArgMatches) -> Result<(), String> {
    let opts = simulate::Options {
        frames: args.get_one::<u32>("frames").copied(),
        substeps: *args.get_one::<u32>("substeps").expect("has a default"),
        threads: *args.get_one::<u32>("threads").expect("has a default"),
        out_dir: args.get_one::<PathBuf>("out").expect("has a default").clone(),
    };
    if args.get_one::<String>("scene").is_some_and(|s| s == "features") && args.get_one::<PathBuf>("obj").is_none() {
        let stdout = &mut std::io::stdout().lock();
        for path in features::run(&opts)? {
            writeln!(stdout, "features: wrote {}", path.display()).map_err(|e| format!("writing the report to standard output: {e}"))?;
        }
        return Ok(());
    }
    let mut jobs = Vec::new();
    match args.get_one::<PathBuf>("obj") {
        Some(path) => {
            let mesh = mesh_io::load_obj(path)?;
            let (lo, hi) = bounds(&mesh.positions);
            jobs.push(Job::Mesh(Box::new(scene::drop_onto_ball(path.clone(), lo, hi)), mesh));
        }
        None => {
            let chosen = args.get_one::<String>("scene").expect("has a default").as_str();
            let all = [
                ("tablecloth", scene::tablecloth as fn() -> scene::Scene),
                ("flag", scene::flag),
                ("cow", scene::cow),
                ("torn_flag", scene::torn_flag),
                ("beach_ball", scene::beach_ball),
            ];
            for (name, make) in all {
                if chosen == "all" || chosen == name {
                    let s = make();
                    let mesh = mesh_io::load_obj(&s.mesh_path)?;
                    jobs.push(Job::Mesh(Box::new(s), mesh));
                }
            }
            if chosen == "all" || chosen == "character" {
                jobs.push(Job::Character);
            }
        }
    }
    // Every scene's outputs opened before the first scene runs: an unwritable one (of any scene)
    // fails the run at once, not after the scenes before it have been simulated.
    let outputs: Vec<SceneOutputs> = jobs.iter().map(|job| SceneOutputs::open(&opts.out_dir, job.name())).collect::<Result<_, _>>()?;
    for (job, outputs) in jobs.iter().zip(outputs) {
        let stdout = &mut std::io::stdout().lock();
        let written = match job {
            Job::Mesh(scene, mesh) => simulate::run(scene, mesh, &opts, outputs)?.write_to(stdout),
            Job::Character => character::run(&opts, outputs)?.write_to(stdout),
        };
        written.map_err(|e| format!("writing the report to standard output: {e}"))?;
    }
    Ok(())
}

/// A scene to run: a mesh draped by `simulate`, or the animated character.
enum Job {
    Mesh(Box<scene::Scene>, mesh_io::TriangleMesh),
    Character,
}

impl Job {
    /// The scene's name, which its output files start with.
    fn name(&self) -> &str {
        match self {
            Job::Mesh(scene, _) => &scene.name,
            Job::Character => "character",
        }
    }
}

/// Bounding box of the finite positions (NaN coordinates are reported later by the library).
fn bounds(positions: &[[f32; 3]]) -> (Vec3, Vec3) {
    let finite = positions.iter().map(|&p| Vec3::from_array(p)).filter(|p| p.is_finite());
    finite.fold((Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)), |(lo, hi), p| (lo.min(p), hi.max(p)))
}

