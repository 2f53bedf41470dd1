//! The per-scene report: what was simulated, how fast, and how well the constraints hold.

use std::io::Write;
use std::path::{Path, PathBuf};
use xpbd_cloth::{ClothStats, ConstraintStats, MeshInfo, WorldDesc};

pub struct Report {
    pub scene: String,
    pub mesh_path: PathBuf,
    pub frames: u32,
    pub world: WorldDesc,
    pub info: MeshInfo,
    pub pinned: usize,
    pub stretch_count: usize,
    pub bending_count: usize,
    pub tether_count: usize,
    /// Median wall time of one `World::step` [s].
    pub median_step_seconds: f64,
    pub total_step_seconds: f64,
    /// Statistics after the last step.
    pub stats: ClothStats,
    /// Largest edge strain seen after any step [-].
    pub peak_strain: f32,
    /// Deepest point inside a collider after the last step, and after any step [m].
    pub final_penetration: f32,
    pub peak_penetration: f32,
    pub colliders: usize,
    pub registered_colliders: usize,
    pub render_seconds: f64,
    pub wall_seconds: f64,
    /// Further lines of the scene's own (tearing, volume), each starting with its 14-character label.
    pub notes: Vec<String>,
    pub outputs: Vec<PathBuf>,
}

/// Median of `values` (reordered); 0 for none.
pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 { values[n / 2] } else { 0.5 * (values[n / 2 - 1] + values[n / 2]) }
}

impl Report {
    /// Constraint projections per step: every constraint once per iteration per substep.
    pub fn projections_per_step(&self) -> f64 {
        let constraints = (self.stretch_count + self.bending_count + self.tether_count) as f64;
        constraints * self.stats.substeps as f64 * self.stats.iterations as f64
    }

    /// The report as printed under each scene, written to `out` (stdout): an error, not a panic,
    /// when it is closed or full (`demo | head -1`, `demo > /dev/full`).
    pub fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        let threads = match self.world.thread_count {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n as usize,
        };
        writeln!(
            out,
            "{} — {}, {} frames of 1/60 s, {} substeps × {} iteration(s), {threads} thread(s)",
            self.scene,
            shown(&self.mesh_path),
            self.frames,
            self.stats.substeps,
            self.stats.iterations
        )?;
        let i = &self.info;
        writeln!(
            out,
            "  mesh          {} vertices, {} particles after welding, {} triangles, {} pinned",
            i.vertex_count, i.particle_count, i.triangle_count, self.pinned
        )?;
        writeln!(
            out,
            "  constraints   stretch {}, bending {}, tether {} ({} in all)",
            self.stretch_count,
            self.bending_count,
            self.tether_count,
            self.stretch_count + self.bending_count + self.tether_count
        )?;
        let ns = 1e9 * self.median_step_seconds / self.projections_per_step().max(1.0);
        writeln!(
            out,
            "  time          {:.2} ms/step (median), {ns:.1} ns per constraint projection; \
             {:.2} s stepping, {:.2} s drawing, {:.2} s in all",
            1e3 * self.median_step_seconds,
            self.total_step_seconds,
            self.render_seconds,
            self.wall_seconds
        )?;
        residual_line(out, "stretch", &self.stats.stretch, "m")?;
        residual_line(out, "bending", &self.stats.bending, "rad")?;
        residual_line(out, "tether", &self.stats.tether, "m")?;
        writeln!(
            out,
            "  edge strain   max {:.3} % at the end, {:.3} % peak",
            100.0 * self.stats.max_edge_strain,
            100.0 * self.peak_strain
        )?;
        let wiring = if self.registered_colliders < self.colliders {
            " — not yet registered with the world: the cloth passes through them"
        } else {
            ""
        };
        writeln!(
            out,
            "  penetration   max {:.2} mm at the end, {:.2} mm peak ({} colliders{wiring})",
            1e3 * self.final_penetration,
            1e3 * self.peak_penetration,
            self.colliders
        )?;
        for note in &self.notes {
            writeln!(out, "  {note}")?;
        }
        let outputs: Vec<String> = self.outputs.iter().map(|p| shown(p)).collect();
        writeln!(out, "  wrote         {}", outputs.join(", "))
    }
}

fn residual_line(out: &mut impl Write, name: &str, s: &ConstraintStats, unit: &str) -> std::io::Result<()> {
    if s.count == 0 {
        writeln!(out, "  |C| {name:<9} none")
    } else {
        writeln!(
            out,
            "  |C| {name:<9} mean {:.2e}  p95 {:.2e}  max {:.2e} {unit}",
            s.mean_abs_c, s.p95_abs_c, s.max_abs_c
        )
    }
}

/// A path relative to the repository when it is inside it.
pub fn shown(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(root).unwrap_or(path).display().to_string()
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [5.0, 1.0, 3.0]), 3.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&mut []), 0.0);
    }
}
