//! Pictures out: an animated GIF written frame by frame, and a PNG contact sheet of a few frames.
//! Both are indexed-colour with the scene's palette (see `render::palette`).

use crate::render::Canvas;
use crate::render::font::draw_text;
use crate::render::palette::{INK, PAPER};
use std::borrow::Cow;
use std::fs::{File, OpenOptions};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// Pixels between the tiles of a contact sheet.
const GAP: usize = 4;

/// An animated GIF being written, one frame at a time (frames are not kept in memory).
pub struct GifWriter {
    encoder: gif::Encoder<BufWriter<File>>,
    /// Frame delay [1/100 s].
    delay: u16,
    /// For error messages.
    path: PathBuf,
}

impl GifWriter {
    /// Start writing `out` for `width × height` frames shown `delay` hundredths of a second each,
    /// looping.
    pub fn create(out: OutputFile, width: usize, height: usize, palette: &[u8], delay: u16) -> Result<GifWriter, String> {
        let (file, path) = out.start_writing()?;
        let fail = |e: &dyn std::fmt::Display| cannot_write(&path, e);
        let mut encoder =
            gif::Encoder::new(BufWriter::new(file), width as u16, height as u16, palette).map_err(|e| fail(&e))?;
        encoder.set_repeat(gif::Repeat::Infinite).map_err(|e| fail(&e))?;
        Ok(GifWriter { encoder, delay, path })
    }

    pub fn add(&mut self, canvas: &Canvas) -> Result<(), String> {
        let frame = gif::Frame {
            width: canvas.width as u16,
            height: canvas.height as u16,
            delay: self.delay,
            buffer: Cow::Borrowed(&canvas.pixels),
            ..gif::Frame::default()
        };
        self.encoder.write_frame(&frame).map_err(|e| cannot_write(&self.path, e))
    }
}

/// Lay `tiles` (all the same size) out in rows of `columns`, each labelled with its time in
/// seconds, on white.
pub fn contact_sheet(tiles: &[(f32, Canvas)], columns: usize) -> Canvas {
    let (w, h) = (tiles[0].1.width, tiles[0].1.height);
    let rows = tiles.len().div_ceil(columns);
    let mut sheet = Canvas::new(columns * w + (columns + 1) * GAP, rows * h + (rows + 1) * GAP);
    sheet.pixels.fill(PAPER);
    for (k, (time, tile)) in tiles.iter().enumerate() {
        let (x0, y0) = (GAP + (k % columns) * (w + GAP), GAP + (k / columns) * (h + GAP));
        for (y, row) in tile.pixels.chunks_exact(w).enumerate() {
            let start = (y0 + y) * sheet.width + x0;
            sheet.pixels[start..start + w].copy_from_slice(row);
        }
        draw_text(&mut sheet, &format!("t={time:.2}s"), x0 + 6, y0 + 6, 2, INK);
    }
    sheet
}

/// An output file, opened for writing before any scene is simulated, so that one that cannot be
/// written (a folder of that name, a read-only folder, a file where the folder should be) fails
/// the run at once rather than after a simulation. Opened without emptying it: a run that fails
/// before a file is written leaves what an earlier run wrote there.
pub struct OutputFile {
    /// Where it is, for the report and error messages.
    pub path: PathBuf,
    file: File,
}

/// The message of every output error: "cannot write PATH: REASON".
pub fn cannot_write(path: &Path, reason: impl std::fmt::Display) -> String {
    format!("cannot write {}: {reason}", path.display())
}

impl OutputFile {
    /// Open (create if missing) `path` for writing, without emptying it. Error: [`cannot_write`]
    /// (a folder of that name, no permission, a missing or read-only folder).
    pub fn open(path: PathBuf) -> Result<OutputFile, String> {
        let file = OpenOptions::new().write(true).create(true).truncate(false).open(&path);
        let file = file.map_err(|e| cannot_write(&path, e))?;
        Ok(OutputFile { path, file })
    }

    /// The file, emptied, to write from its start; with its path for error messages. Error:
    /// [`cannot_write`] if it cannot be emptied.
    pub fn start_writing(self) -> Result<(File, PathBuf), String> {
        self.file.set_len(0).map_err(|e| cannot_write(&self.path, e))?;
        Ok((self.file, self.path))
    }
}

/// One scene's outputs in `dir` (created if missing): `<scene>.png`, `<scene>.gif` and
/// `<scene>_final.obj`.
pub struct SceneOutputs {
    pub png: OutputFile,
    pub gif: OutputFile,
    pub obj: OutputFile,
}

impl SceneOutputs {
    /// Create `dir` if missing and open the three files ([`OutputFile::open`]). Errors: "cannot
    /// create DIR: …" or the first file's [`cannot_write`].
    pub fn open(dir: &Path, scene: &str) -> Result<SceneOutputs, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let file = |suffix: &str| OutputFile::open(dir.join(format!("{scene}{suffix}")));
        Ok(SceneOutputs { png: file(".png")?, gif: file(".gif")?, obj: file("_final.obj")? })
    }

    /// The paths, as the report lists them.
    pub fn paths(&self) -> Vec<PathBuf> {
        vec![self.png.path.clone(), self.gif.path.clone(), self.obj.path.clone()]
    }
}

/// Write `canvas` as an indexed-colour PNG with `palette` (RGB triples) into `out`. Error:
/// [`cannot_write`].
pub fn write_png(out: OutputFile, canvas: &Canvas, palette: &[u8]) -> Result<(), String> {
    let (file, path) = out.start_writing()?;
    let fail = |e: &dyn std::fmt::Display| cannot_write(&path, e);
    let mut encoder = png::Encoder::new(BufWriter::new(file), canvas.width as u32, canvas.height as u32);
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_palette(palette.to_vec());
    encoder.set_compression(png::Compression::High);
    let mut writer = encoder.write_header().map_err(|e| fail(&e))?;
    writer.write_image_data(&canvas.pixels).map_err(|e| fail(&e))?;
    writer.finish().map_err(|e| fail(&e))
}

/// Write `rgb` (`width × height` pixels, 3 bytes each, rows top to bottom) as an RGB PNG into
/// `out`. Error: [`cannot_write`].
pub fn write_png_rgb(out: OutputFile, width: usize, height: usize, rgb: &[u8]) -> Result<(), String> {
    let (file, path) = out.start_writing()?;
    let fail = |e: &dyn std::fmt::Display| cannot_write(&path, e);
    let mut encoder = png::Encoder::new(BufWriter::new(file), width as u32, height as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::High);
    let mut writer = encoder.write_header().map_err(|e| fail(&e))?;
    writer.write_image_data(rgb).map_err(|e| fail(&e))?;
    writer.finish().map_err(|e| fail(&e))
}
