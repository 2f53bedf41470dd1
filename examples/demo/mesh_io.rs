//! OBJ in (tobj) and out (plain text).
//!
//! Faces are read on their position indices only (`single_index: false`): a corner's `vt`/`vn`
//! index may differ from its `v` index at a UV seam, and splitting vertices there would cut the
//! sheet into loose pieces. The library then welds any remaining duplicate positions.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;
use crate::output::{OutputFile, cannot_write};

/// A triangle mesh as the library takes it: positions [m] and `3·triangles` position indices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriangleMesh {
    pub positions: Vec<[f32; 3]>,
    pub indices: Vec<u32>,
}

/// Largest OBJ file the demo reads [bytes]: a million-triangle mesh takes about 60 MB.
const MAX_OBJ_BYTES: u64 = 1 << 30;

/// Read the triangles of every object in an OBJ file into one mesh. Errors (as readable text):
/// the file cannot be opened or parsed, is not a regular file, is larger than [`MAX_OBJ_BYTES`],
/// a face is not a triangle, or the file has no faces.
pub fn load_obj(path: &Path) -> Result<TriangleMesh, String> {
    // A directory only fails at the first read ("read error"), a device such as /dev/zero never
    // ends (tobj reads lines, so one without a newline grew until memory ran out), and opening a
    // named pipe waits for a writer: the path's kind is checked before it is opened.
    let not_regular = || format!("{}: not a regular file (a directory, device or pipe)", path.display());
    let kind = std::fs::metadata(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    if !kind.is_file() {
        return Err(not_regular());
    }
    let file = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let metadata = file.metadata().map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    if !metadata.is_file() {
        return Err(not_regular());
    }
    if metadata.len() > MAX_OBJ_BYTES {
        return Err(format!("{}: {} bytes, more than the demo reads ({MAX_OBJ_BYTES})", path.display(), metadata.len()));
    }
    // tobj reads a face of two corners (`f 1 2`) as a line, as it reads `l 1 2`, and a face of
    // one as a point: they are skipped with the lines and points. It also leaves out vertices no
    // face uses.
    let options = tobj::LoadOptions { single_index: false, triangulate: false, ignore_points: true, ignore_lines: true };
    // Materials do not matter here: do not open .mtl files.
    let no_materials = |_: &Path| Err(tobj::LoadError::GenericFailure);
    let (models, _) = tobj::load_obj_buf(&mut BufReader::new(file), &options, no_materials)
        .map_err(|e| format!("cannot read {} as OBJ: {e}", path.display()))?;

    let mut mesh = TriangleMesh::default();
    let mut face_number = 0usize;
    for model in &models {
        let m = &model.mesh;
        // face_arities is empty when every face of the model is a triangle.
        if let Some(k) = m.face_arities.iter().position(|&n| n != 3) {
            return Err(format!(
                "{}: face {} (object `{}`) has {} corners; only triangles are supported",
                path.display(),
                face_number + k + 1,
                model.name,
                m.face_arities[k]
            ));
        }
        let offset = mesh.positions.len() as u32;
        mesh.positions.extend(m.positions.chunks_exact(3).map(|p| [p[0], p[1], p[2]]));
        mesh.indices.extend(m.indices.iter().map(|&i| i + offset));
        face_number += m.indices.len() / 3;
    }
    if mesh.indices.is_empty() {
        return Err(format!("{}: no triangles found", path.display()));
    }
    Ok(mesh)
}

/// Write positions [m], unit normals (`[f32; 3]` per vertex, as many as positions) and triangles
/// (`3·triangles` indices) into `file` as OBJ (1-based `v//vn` corners). Error: [`cannot_write`].
pub fn write_obj(file: OutputFile, positions: &[[f32; 3]], normals: &[[f32; 3]], indices: &[u32]) -> Result<(), String> {
    let (file, path) = file.start_writing()?;
    let fail = |e: std::io::Error| cannot_write(&path, e);
    let mut out = BufWriter::new(file);
    writeln!(out, "# xpbd_cloth demo: final cloth state, metres, Y up").map_err(fail)?;
    for p in positions {
        writeln!(out, "v {} {} {}", p[0], p[1], p[2]).map_err(fail)?;
    }
    for n in normals {
        writeln!(out, "vn {} {} {}", n[0], n[1], n[2]).map_err(fail)?;
    }
    for t in indices.chunks_exact(3) {
        let [a, b, c] = [t[0] + 1, t[1] + 1, t[2] + 1];
        writeln!(out, "f {a}//{a} {b}//{b} {c}//{c}").map_err(fail)?;
    }
    out.flush().map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("xpbd_demo_{}_{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn uv_seam_corners_share_their_position_index() {
        // Two triangles sharing the edge 2–3 in positions but with different UVs on each side.
        let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvt 1 1\nvt 0.5 0.5\n\
                   f 1/1 2/2 3/3\nf 2/5 4/4 3/5\n";
        let path = temp_file("seam.obj", obj);
        let mesh = load_obj(&path).unwrap();
        assert_eq!(mesh.positions.len(), 4);
        assert_eq!(mesh.indices, vec![0, 1, 2, 1, 3, 2]);
        std::fs::remove_file(path).ok();
    }

    #[test]
    fn quads_are_rejected_with_the_face_number() {
        let path = temp_file("quad.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 2 3 4\n");
        let err = load_obj(&path).unwrap_err();
        assert!(err.contains("face 2") && err.contains("4 corners"), "{err}");
        std::fs::remove_file(path).ok();
    }

    #[test]
    fn written_obj_reads_back_the_same_mesh() {
        let positions = [[0.0, 0.0, 0.0], [1.5, 0.0, 0.0], [0.0, 0.25, -2.0]];
        let normals = [[0.0, 0.0, 1.0]; 3];
        let path = std::env::temp_dir().join(format!("xpbd_demo_{}_roundtrip.obj", std::process::id()));
        write_obj(OutputFile::open(path.clone()).unwrap(), &positions, &normals, &[0, 1, 2]).unwrap();
        let mesh = load_obj(&path).unwrap();
        assert_eq!(mesh.positions, positions.to_vec());
        assert_eq!(mesh.indices, vec![0, 1, 2]);
        std::fs::remove_file(path).ok();
    }
}
