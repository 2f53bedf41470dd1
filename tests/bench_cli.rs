//! The bench example (`examples/bench`) as a user runs it: bad options are usage errors (status 2,
//! clap's message) before any timing, and its untimed `--row` mode prints a state hash that does not
//! depend on the thread count but does on the sweep order (the bench's scenes and options, checked
//! from outside). The timed tables are not run here: timing belongs to the bench itself.

mod example_binary;

use example_binary::stderr;
use std::process::Output;

fn bench(args: &[&str]) -> Output {
    example_binary::run("bench", args)
}

/// The hash on the `--row` line: `<scene> <row>: state hash <hex>`.
fn row_hash(args: &[&str]) -> u64 {
    let out = bench(args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let hex = text.trim().rsplit("state hash ").next().unwrap_or_default();
    u64::from_str_radix(hex, 16).unwrap_or_else(|_| panic!("{args:?}: no state hash in {text:?}"))
}

#[test]
fn bad_options_are_usage_errors_before_any_timing() {
    let unwritable = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-such-dir").join("chart.svg");
    let unwritable = unwritable.to_str().expect("UTF-8 temp path");
    let cases: [(&[&str], &str); 12] = [
        (&["--steps", "0"], "--steps 0 only with --row"),
        (&["--steps", "-3"], "--steps"),
        // A range error naming the option, not "unexpected argument '-1'".
        (&["--only", "32", "--row", "colour", "--threads", "-1"], "for '--threads"),
        (&["--only", "32", "--row", "colour", "--substeps", "-1"], "for '--substeps"),
        (&["--only", "96"], "--only"),
        (&["--row", "colour"], "--only"),
        (&["--only", "32", "--row", "sideways"], "--row"),
        (&["--svg", unwritable], "--svg"),
        (&["--table", "everything"], "--table"),
        (&["--only", "32", "--row", "colour", "--table", "reads"], "--table"),
        // Tables that would otherwise print nothing for the scene, or ignore it.
        (&["--only", "tablecloth", "--table", "two-core"], "--only 64 or 128"),
        (&["--only", "64", "--table", "worn"], "--only"),
    ];
    for (args, names) in cases {
        let out = bench(args);
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: status {:?}, {message}", out.status);
        assert!(message.contains(names), "{args:?}: the message should name {names}: {message}");
        assert!(out.stdout.is_empty(), "{args:?}: printed before failing: {}", String::from_utf8_lossy(&out.stdout));
    }
    assert!(!std::path::Path::new(unwritable).exists());
}

/// 64²: above the size at which a cloth is split over the pool (`PARALLEL_MIN_CONSTRAINTS`), so
/// the threads share the sweeps.
#[test]
fn row_mode_hash_is_independent_of_threads_and_follows_the_order() {
    let coloured = |threads: &str| row_hash(&["--only", "64", "--row", "colour", "--steps", "3", "--threads", threads]);
    let one = coloured("1");
    assert_eq!(one, coloured("2"), "the coloured sweep must give the same bits on 1 and 2 threads");
    assert_eq!(one, coloured("8"), "the coloured sweep must give the same bits on 1 and 8 threads");
    let anchor = row_hash(&["--only", "64", "--row", "anchor", "--steps", "3"]);
    assert_ne!(one, anchor, "the anchor order is another Gauss–Seidel order: other bits");
    let untouched = row_hash(&["--only", "64", "--row", "colour", "--steps", "0"]);
    assert_ne!(one, untouched, "three steps must move the cloth");
}

/// Output that cannot be written (stdout full) ends with the error and status 1, not a panic.
#[cfg(target_os = "linux")]
#[test]
fn a_full_stdout_is_an_error_not_a_panic() {
    let out = example_binary::run_with_full_stdout("bench", &["--only", "32", "--row", "colour", "--steps", "1"]);
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{message}");
    assert!(message.contains("writing to standard output: No space left on device"), "{message}");
    assert!(!message.contains("panicked"), "{message}");
}
