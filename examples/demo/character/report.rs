//! The character scene's report: the garments, the time, and per phase the limits and contacts.

use super::measure::{Phase, PhaseStats, VIOLATION_TOLERANCE};
use std::io::Write;
use std::path::PathBuf;
use xpbd_cloth::{MeshInfo, WorldDesc};

/// One garment's line: its mesh and what drives it.
pub struct GarmentLine {
    pub name: &'static str,
    pub info: MeshInfo,
    /// Vertices of max distance 0 (kinematic on the skinned pose).
    pub sewn_on: usize,
    pub backstop: bool,
    pub anim_drive: bool,
}

pub struct CharacterReport {
    pub frames: u32,
    pub world: WorldDesc,
    pub capsules: usize,
    pub garments: Vec<GarmentLine>,
    /// How far the root jumped at the respawn [m] (0 when the run ended before it).
    pub respawn_distance: f32,
    pub phases: Vec<(Phase, PhaseStats)>,
    /// Median and total wall time of `World::step` [s] (both garments).
    pub median_step_seconds: f64,
    pub total_step_seconds: f64,
    pub render_seconds: f64,
    pub wall_seconds: f64,
    pub outputs: Vec<PathBuf>,
}

impl CharacterReport {
    /// The report as printed, written to `out` (stdout): an error, not a panic, when it is closed
    /// or full.
    pub fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        let threads = match self.world.thread_count {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n as usize,
        };
        let respawn = match self.respawn_distance {
            0.0 => "respawn not reached in these frames".to_string(),
            d => format!("respawn {d:.1} m away"),
        };
        writeln!(
            out,
            "character — a figure of {} capsules: walk, run, 90° snap turn, {respawn}; {} frames of 1/60 s, \
             {} substeps × {} iteration(s), {threads} thread(s)",
            self.capsules, self.frames, self.world.substeps, self.world.iterations
        )?;
        for g in &self.garments {
            let mut driven = vec!["LBS skin (4 joints per vertex)", "max distance"];
            if g.backstop {
                driven.push("backstop");
            }
            if g.anim_drive {
                driven.push("anim drive");
            }
            writeln!(
                out,
                "  {:<13} {} vertices, {} triangles, {} sewn on (max distance 0); {}",
                g.name,
                g.info.vertex_count,
                g.info.triangle_count,
                g.sewn_on,
                driven.join(", ")
            )?;
        }
        writeln!(
            out,
            "  time          {:.2} ms/step (median, both garments); {:.2} s stepping, {:.2} s drawing, {:.2} s in all",
            1e3 * self.median_step_seconds,
            self.total_step_seconds,
            self.render_seconds,
            self.wall_seconds
        )?;
        writeln!(
            out,
            "  per phase     steps; vertex-steps beyond max distance + {:.0e} m (worst excess); inside the backstop \
             (deepest); edge strain p99, max; deepest point inside a capsule",
            VIOLATION_TOLERANCE
        )?;
        for (phase, s) in &self.phases {
            let (p99, max) = s.strain_p99_max();
            writeln!(
                out,
                "  {:<13} {} steps, max distance {} ({:.3} mm), backstop {} ({:.3} mm), strain {:.2} % {:.2} %, penetration {:.2} mm",
                phase.name(),
                s.steps,
                s.max_distance_violations,
                1e3 * s.max_distance_worst.max(0.0),
                s.backstop_violations,
                1e3 * s.backstop_worst.max(0.0),
                100.0 * p99,
                100.0 * max,
                1e3 * s.penetration
            )?;
        }
        let outputs: Vec<String> = self.outputs.iter().map(|p| crate::report::shown(p)).collect();
        writeln!(out, "  wrote         {}", outputs.join(", "))
    }
}
