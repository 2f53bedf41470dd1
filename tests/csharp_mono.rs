//! The C# bindings (`bindings/csharp`) under Mono: `tests/csharp/MonoTests.cs` is compiled with
//! `mcs` together with the bindings and run with `mono` against the cdylib that cargo built for
//! this run (`.ci/test-all.sh` installs `mono-mcs` and `mono-runtime`). Its hanging cloth, read
//! through every buffer kind, and its cloth draped on a sphere collider must equal the Rust API's
//! (and so the C examples') to the bit.
//!
//! The `__Internal` library name of iOS/WebGL players is exercised on Linux by compiling with
//! `-define:UNITY_WEBGL` (or `UNITY_IOS`) and preloading the library with `LD_PRELOAD`: Mono
//! resolves `__Internal` against the symbols already in the process, which then include the
//! preloaded library, as a player's statically linked ones would be.

mod ffi_common;

use ffi_common::{library_dir, rust_drape_on_sphere, rust_hanging_cloth_positions};
use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.cs` file under `dir`, sorted.
fn cs_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            cs_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "cs") {
            found.push(path);
        }
    }
    found.sort();
}

/// Compile the bindings and the test program with `mcs` (warnings are errors), with the given
/// preprocessor `defines`, into a folder of its own. Returns the `.exe`.
fn compile(variant: &str, defines: &[&str]) -> PathBuf {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("csharp").join(variant);
    std::fs::create_dir_all(&out).unwrap();
    let exe = out.join("MonoTests.exe");
    let mut sources = Vec::new();
    cs_files(&crate_dir().join("bindings/csharp"), &mut sources);
    sources.push(crate_dir().join("tests/csharp/MonoTests.cs"));
    sources.push(crate_dir().join("tests/csharp/SkinningTests.cs"));
    sources.push(crate_dir().join("tests/csharp/RenderTests.cs"));
    let mut mcs = Command::new("mcs");
    mcs.args(["-unsafe", "-warnaserror+", "-debug-", "-nologo"]).arg(format!("-out:{}", exe.display()));
    if !defines.is_empty() {
        mcs.arg(format!("-define:{}", defines.join(";")));
    }
    let output = mcs
        .args(&sources)
        .output()
        .unwrap_or_else(|e| panic!("cannot run `mcs` ({e}); install mono-mcs (.ci/test-all.sh does)"));
    assert!(
        output.status.success(),
        "mcs {defines:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    exe
}

enum Load {
    /// `DllImport("xpbd_cloth")`, found through `LD_LIBRARY_PATH`.
    ByName,
    /// `DllImport("__Internal")`, with the library preloaded into the process.
    Preloaded,
    /// Neither: the library is nowhere to be found.
    Nowhere,
}

fn run_mono(exe: &Path, mode: &str, load: Load) -> Output {
    let lib_dir = library_dir();
    let mut mono = Command::new("mono");
    mono.arg("--debug").arg(exe).arg(mode).env_remove("LD_PRELOAD").env_remove("LD_LIBRARY_PATH");
    match load {
        Load::ByName => mono.env("LD_LIBRARY_PATH", &lib_dir),
        Load::Preloaded => mono.env("LD_PRELOAD", lib_dir.join(format!("{DLL_PREFIX}xpbd_cloth{DLL_SUFFIX}"))),
        Load::Nowhere => &mut mono,
    };
    mono.output().unwrap_or_else(|e| panic!("cannot run `mono` ({e}); install mono-runtime (.ci/test-all.sh does)"))
}

/// Run and require success and a `N passed, 0 failed` last line with at least `min_passed`.
fn run_passing(exe: &Path, mode: &str, load: Load, min_passed: u32) -> String {
    let output = run_mono(exe, mode, load);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{} {mode} failed ({}):\n{stdout}\n{stderr}", exe.display(), output.status);
    let summary = stdout.lines().last().unwrap_or_default();
    let passed: u32 = summary.split(' ').next().unwrap().parse().expect("`N passed, M failed`");
    assert!(summary.ends_with(" passed, 0 failed") && passed >= min_passed, "{stdout}");
    stdout
}

/// FNV-1a 64 over the little-endian bytes of every coordinate's bit pattern (as MonoTests.cs).
fn fnv1a(positions: &[[f32; 3]]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for byte in positions.iter().flatten().flat_map(|c| c.to_bits().to_le_bytes()) {
        hash ^= byte as u64;
        hash = hash.wrapping_mul(0x100_0000_01b3);
    }
    hash
}

/// Every `bits <kind>: ...` line equals the Rust API's hanging cloth: the C example's four
/// numbers (bottom-edge midpoint, max strain) and a hash of all 1024 positions.
fn assert_hanging_cloth_matches_rust(stdout: &str, kinds: &[&str]) {
    let (positions, mid, strain) = rust_hanging_cloth_positions();
    let expected = format!(
        "{:08x} {:08x} {:08x} {:08x} positions-fnv1a {:016x}",
        mid[0].to_bits(),
        mid[1].to_bits(),
        mid[2].to_bits(),
        strain.to_bits(),
        fnv1a(&positions)
    );
    for kind in kinds {
        let prefix = format!("bits {kind}: ");
        let line = stdout.lines().find_map(|l| l.strip_prefix(&prefix)).unwrap_or_else(|| panic!("no `{prefix}` line"));
        assert_eq!(line, expected, "{kind}: C# read differs from the Rust API\n{stdout}");
    }
}

#[test]
fn csharp_bindings_pass_under_mono_and_match_the_rust_api_to_the_bit() {
    let exe = compile("plain", &[]);
    let stdout = run_passing(&exe, "all", Load::ByName, 33);
    assert!(stdout.contains("library name: xpbd_cloth"), "{stdout}");
    assert_hanging_cloth_matches_rust(&stdout, &["float[]", "IntPtr", "pinned float[]", "pinned Vec3[]"]);
    assert_drape_on_sphere_matches_rust(&stdout);
    assert_character_matches_rust(&stdout);
}

/// Issue 31, test 9: the `character bits: ...` line (MonoTests.cs `CharacterClothFollowsItsPose`:
/// a 10 × 10 hanging grid, top row max distance 0, the rest 5 cm, its pose carried along x at
/// 10 m/s for 60 steps) equals the same scene through the Rust API: positions and state hash.
fn assert_character_matches_rust(stdout: &str) {
    let (rest, indices) = ffi_common::hanging_grid(10);
    let mut world = xpbd_cloth::World::new(xpbd_cloth::WorldDesc { thread_count: 1, ..Default::default() }).unwrap();
    let cloth = world.add_cloth(&xpbd_cloth::ClothDesc::new(&rest, &indices)).unwrap();
    let d: Vec<f32> = (0..rest.len()).map(|i| if i < 10 { 0.0 } else { 0.05 }).collect();
    world.cloth_mut(cloth).unwrap().set_max_distances(Some(&d)).unwrap();
    for step in 1..=60 {
        let pose: Vec<[f32; 3]> = rest.iter().map(|p| [p[0] + 10.0 * step as f32 / 60.0, p[1], p[2]]).collect();
        world.cloth_mut(cloth).unwrap().set_animated_pose(&pose, None).unwrap();
        world.step(1.0 / 60.0).unwrap();
    }
    let c = world.cloth(cloth).unwrap();
    let mut x = vec![[0.0f32; 3]; rest.len()];
    c.read_positions(&mut x).unwrap();
    let expected = format!("positions-fnv1a {:016x} state-hash {:016x}", fnv1a(&x), c.state_hash());
    let line = stdout.lines().find_map(|l| l.strip_prefix("character bits: ")).expect("a `character bits:` line");
    assert_eq!(line, expected, "C# character scene differs from the Rust API\n{stdout}");
}

/// The `drape bits: ...` line equals the Rust API's run of `examples/c/drape_on_sphere.c`'s
/// scene: the example's own `bits:` numbers (vertex over the top, lowest vertex, max penetration,
/// contact count; `c_abi_programs` checks the C program prints the same), a hash of all 1024
/// positions, and the library's state hash (positions and velocities of every particle).
fn assert_drape_on_sphere_matches_rust(stdout: &str) {
    let rust = rust_drape_on_sphere();
    let expected = format!(
        "{:08x} {:08x} {:08x} {} positions-fnv1a {:016x} state-hash {:016x}",
        rust.top[1].to_bits(),
        rust.lowest.to_bits(),
        rust.penetration.to_bits(),
        rust.contacts,
        fnv1a(&rust.positions),
        rust.state_hash
    );
    let line = stdout.lines().find_map(|l| l.strip_prefix("drape bits: ")).expect("a `drape bits:` line");
    assert_eq!(line, expected, "C# drape on a sphere differs from the Rust API (and so the C example)\n{stdout}");
}

#[test]
fn internal_library_name_of_ios_and_webgl_players_runs_against_a_preloaded_library() {
    for define in ["UNITY_WEBGL", "UNITY_IOS"] {
        let exe = compile(define, &[define]);
        let stdout = run_passing(&exe, "internal", Load::Preloaded, 3);
        assert!(stdout.contains("library name: __Internal"), "{define}:\n{stdout}");
        assert_hanging_cloth_matches_rust(&stdout, &["float[]", "IntPtr", "pinned float[]", "pinned Vec3[]"]);
        // Without the preload the same program cannot find the functions: the name really is
        // __Internal, not a path Mono could search.
        let output = run_mono(&exe, "internal", Load::Nowhere);
        let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(!text.contains(" 0 failed"), "{define} without the library must fail:\n{text}");
        assert!(text.contains("EntryPointNotFoundException: xpbd_cloth: xpbd_abi_version was not found"), "{text}");
    }
}

#[test]
fn unity_editor_loads_the_library_by_name_even_for_ios_and_webgl() {
    let exe = compile("UNITY_IOS_EDITOR", &["UNITY_IOS", "UNITY_WEBGL", "UNITY_EDITOR"]);
    let stdout = run_passing(&exe, "internal", Load::ByName, 3);
    assert!(stdout.contains("library name: xpbd_cloth"), "{stdout}");
}

#[test]
fn a_missing_library_is_reported_with_where_to_get_it() {
    let exe = compile("missing-library", &[]);
    let output = run_mono(&exe, "internal", Load::Nowhere);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success(), "{stdout}");
    assert!(stdout.contains("DllNotFoundException: xpbd_cloth: the native library was not found"), "{stdout}");
    assert!(stdout.contains("cargo build --release"), "{stdout}");
}

/// The Unity layer (`unity-sample/Runtime`, the sample) type-checks with mcs against the bindings
/// and `tests/csharp/UnityStubs.cs`, which declares the UnityEngine/UnityEditor members it uses
/// with Unity's signatures, both as a player build and as an editor build. Unity cannot run here,
/// so this is what keeps the thin Unity layer in step with the C# API.
#[test]
fn unity_layer_compiles_against_the_unity_api_it_uses() {
    let mut sources = Vec::new();
    cs_files(&crate_dir().join("bindings/csharp"), &mut sources);
    let runtime = crate_dir().join("unity-sample/Runtime");
    // Top level only: Runtime/Bindings is build-native.sh's copy of bindings/csharp.
    for entry in std::fs::read_dir(&runtime).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "cs") {
            sources.push(path);
        }
    }
    cs_files(&crate_dir().join("unity-sample/Samples~"), &mut sources);
    sources.push(crate_dir().join("tests/csharp/UnityStubs.cs"));
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("csharp/unity");
    std::fs::create_dir_all(&out).unwrap();
    for define in ["UNITY_STANDALONE", "UNITY_EDITOR"] {
        let output = Command::new("mcs")
            .args(["-target:library", "-unsafe", "-warnaserror+", "-nologo"])
            .arg(format!("-define:{define}"))
            .arg(format!("-out:{}", out.join(format!("{define}.dll")).display()))
            .args(&sources)
            .output()
            .unwrap_or_else(|e| panic!("cannot run `mcs` ({e}); install mono-mcs (.ci/test-all.sh does)"));
        assert!(
            output.status.success(),
            "the Unity layer does not compile ({define}):\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// A script without `unsafe` sets every vector field (gravity, wind, extra acceleration, a
/// collider's pose): `tests/csharp/SafeScript.cs` compiles without `-unsafe` against the bindings,
/// which a fixed-size buffer field would refuse (CS0214).
#[test]
fn a_script_without_unsafe_sets_gravity_wind_and_collider_poses() {
    let mut sources = Vec::new();
    cs_files(&crate_dir().join("bindings/csharp"), &mut sources);
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("csharp/safe");
    std::fs::create_dir_all(&out).unwrap();
    let bindings = out.join("Xpbd.dll");
    let run = |args: &[String]| {
        let output = Command::new("mcs")
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run `mcs` ({e}); install mono-mcs (.ci/test-all.sh does)"));
        assert!(
            output.status.success(),
            "mcs {args:?} failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let mut library: Vec<String> = ["-target:library", "-unsafe", "-warnaserror+", "-nologo"].map(String::from).to_vec();
    library.push(format!("-out:{}", bindings.display()));
    library.extend(sources.iter().map(|p| p.display().to_string()));
    run(&library);
    let script = crate_dir().join("tests/csharp/SafeScript.cs");
    run(&[
        "-target:library".into(),
        "-warnaserror+".into(),
        "-nologo".into(),
        format!("-r:{}", bindings.display()),
        format!("-out:{}", out.join("SafeScript.dll").display()),
        script.display().to_string(),
    ]);
}

/// Unity imports a package only with a `.meta` file (and so a GUID) beside every file and folder
/// it sees; for native plugins the `.meta` also holds the import settings (which platform and CPU
/// load them). Every asset of unity-sample has one, every GUID is unique, and each plugin's
/// settings enable the platform its folder names.
#[test]
fn unity_package_has_a_meta_file_for_every_asset_and_plugin_import_settings() {
    fn walk(dir: &Path, assets: &mut Vec<PathBuf>, metas: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            // Unity ignores hidden names and folders ending in `~`; Bindings is build-native.sh's copy.
            if name.starts_with('.') || name.ends_with('~') || name == "Bindings" || name == "Bindings.meta" {
                continue;
            }
            if name.ends_with(".meta") {
                metas.push(path);
            } else {
                assets.push(path.clone());
                if path.is_dir() {
                    walk(&path, assets, metas);
                }
            }
        }
    }
    let package = crate_dir().join("unity-sample");
    let (mut assets, mut metas) = (Vec::new(), Vec::new());
    walk(&package, &mut assets, &mut metas);
    let plugin_suffixes = [".so", ".dll", ".dylib", ".a"];
    for asset in &assets {
        // Plugin binaries are build products (gitignored); only their .meta is committed.
        if plugin_suffixes.iter().any(|s| asset.to_str().unwrap().ends_with(s)) {
            continue;
        }
        let meta = PathBuf::from(format!("{}.meta", asset.display()));
        assert!(meta.exists(), "{} has no .meta file", asset.display());
    }
    let mut guids = std::collections::HashSet::new();
    for meta in &metas {
        let text = std::fs::read_to_string(meta).unwrap();
        let guid = text.lines().find_map(|l| l.strip_prefix("guid: ")).unwrap_or_else(|| panic!("{}", meta.display()));
        assert!(guid.len() == 32 && guid.chars().all(|c| c.is_ascii_hexdigit()), "{}: guid {guid}", meta.display());
        assert!(guids.insert(guid.to_string()), "{}: duplicate guid {guid}", meta.display());
    }
    // (plugin .meta, the platform entry it must enable, the Any-platform exclusion it must lift)
    let plugins = [
        ("Linux/x86_64/libxpbd_cloth.so.meta", "Standalone: Linux64", "Exclude Linux64: 0"),
        ("Windows/x86_64/xpbd_cloth.dll.meta", "Standalone: Win64", "Exclude Win64: 0"),
        ("macOS/libxpbd_cloth.dylib.meta", "Standalone: OSXUniversal", "Exclude OSXUniversal: 0"),
        ("Android/arm64-v8a/libxpbd_cloth.so.meta", "Android: Android", "Exclude Android: 0"),
        ("iOS/libxpbd_cloth.a.meta", "iPhone: iOS", "Exclude iOS: 0"),
    ];
    for (meta, platform, include) in plugins {
        let text = std::fs::read_to_string(package.join("Runtime/Plugins").join(meta)).unwrap();
        let after =
            text.split(&format!("      {platform}\n")).nth(1).unwrap_or_else(|| panic!("{meta}: no {platform}"));
        assert!(after.trim_start().starts_with("second:\n      enabled: 1"), "{meta}: {platform} not enabled");
        assert!(text.contains(include), "{meta}: {include} missing");
        // Exactly one player platform each (plus the editor for desktop hosts).
        let included = text.lines().filter(|l| l.trim_start().starts_with("Exclude ") && l.ends_with(": 0")).count();
        let expected = if meta.starts_with("Android") || meta.starts_with("iOS") { 1 } else { 2 };
        assert_eq!(included, expected, "{meta}: platforms enabled");
    }
}
