//! Comments say what and why; the measurement history lives in docs/dev/performance-log.md and the
//! solver's description in docs/design.md (whose headings are the names comments point to). Two
//! checks keep it that way:
//! - no comment in `src/` carries a notebook phrase: a numbered "set" of the old log ("the tenth
//!   set", "the set's build"), a callgrind or perf-sample record, "DESIGN §n" (a document outside
//!   the repository), an issue number, or the log's old path `docs/performance-log.md`;
//! - every comment in `src/`, `tests/`, `examples/` and `bindings/` that points to a guide by
//!   heading (`docs/design.md, "Substep order"`, `design.md, "Tethers"`,
//!   `docs/dev/performance-log.md, "2026-11-29 — The split threshold"`, more headings after it
//!   joined by "and" or a comma) names a heading that exists, so a renamed section fails here
//!   rather than leaving the pointer dangling.
//!
//! Failures name file:line. Only comments are read (`//`, `///`, `//!`, `/* */`), not string
//! literals, so code may still print such words.

use std::path::{Path, PathBuf};

/// Phrases no comment in `src/` may contain, matched without regard to ASCII case. Besides
/// these: an ordinal from "third" to "thirteenth" followed by " set" (the old log's numbered
/// sets), and "issue" followed by a number.
const NOTEBOOK_PHRASES: &[&str] = &["set's build", "callgrind", "perf samples", "design §", "docs/performance-log.md"];

/// The old log's sets were numbered; "first set" and "second set" are left to ordinary prose.
const SET_ORDINALS: &[&str] =
    &["third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth", "thirteenth"];

/// The crate's root directory.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` whose name ends in one of `extensions`, in a stable order; build
/// output (`target`) and hidden folders are skipped.
fn files_under(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "target" && !name.starts_with('.') {
                    stack.push(path);
                }
            } else if extensions.iter().any(|e| name.ends_with(e)) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// One comment line: its 1-based line number and its text after the comment marker.
struct CommentLine {
    line: usize,
    text: String,
}

/// The comments of a Rust or C# source file, line by line, skipping string and character
/// literals (plain, escaped, raw `r#"…"#`, C# verbatim `@"…"`) so that code is never read as a
/// comment. Doc markers (`///`, `//!`, `/**`) and a leading `*` in block comments are dropped.
fn comment_lines(source: &str) -> Vec<CommentLine> {
    let b = source.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    // A block comment's text line by line, nested as Rust nests them.
    let mut block_depth = 0usize;
    let mut block_text = String::new();
    while i < b.len() {
        if block_depth > 0 {
            if b[i..].starts_with(b"*/") {
                block_depth -= 1;
                i += 2;
                if block_depth == 0 {
                    out.push(CommentLine { line, text: std::mem::take(&mut block_text) });
                }
                continue;
            }
            if b[i..].starts_with(b"/*") {
                block_depth += 1;
                i += 2;
                continue;
            }
            if b[i] == b'\n' {
                out.push(CommentLine { line, text: std::mem::take(&mut block_text) });
                line += 1;
                i += 1;
                // A leading `*` of the next line is decoration.
                while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
                    i += 1;
                }
                if i < b.len() && b[i] == b'*' && !b[i..].starts_with(b"*/") {
                    i += 1;
                }
                continue;
            }
            let ch = source[i..].chars().next().unwrap();
            block_text.push(ch);
            i += ch.len_utf8();
            continue;
        }
        match b[i] {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b'/' if b[i..].starts_with(b"//") => {
                let end = source[i..].find('\n').map_or(b.len(), |n| i + n);
                let text = source[i + 2..end].trim_start_matches(['/', '!']);
                out.push(CommentLine { line, text: text.to_string() });
                i = end;
            }
            b'/' if b[i..].starts_with(b"/*") => {
                block_depth = 1;
                i += 2;
                while i < b.len() && (b[i] == b'*' || b[i] == b'!') && !b[i..].starts_with(b"*/") {
                    i += 1;
                }
            }
            b'"' => i = skip_string(b, i + 1, &mut line, false),
            b'@' if b.get(i + 1) == Some(&b'"') => i = skip_string(b, i + 2, &mut line, true),
            b'r' if is_raw_string_start(b, i) => {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                let closing: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
                let mut j = i + 2 + hashes;
                while j < b.len() && !b[j..].starts_with(&closing) {
                    if b[j] == b'\n' {
                        line += 1;
                    }
                    j += 1;
                }
                i = j + closing.len();
            }
            b'\'' => {
                // A character literal ('x', '\n', '\u{…}', '"'), or a lifetime / label.
                let rest = &source[i + 1..];
                let mut chars = rest.chars();
                match (chars.next(), chars.next()) {
                    (Some('\\'), Some(escaped)) => {
                        // The escaped character, then the closing quote ('\'', '\n', '\u{…}').
                        let from = 1 + escaped.len_utf8();
                        let close = rest[from..].find('\'').map_or(rest.len(), |n| from + n + 1);
                        i += 1 + close;
                    }
                    (Some(c), Some('\'')) => i += 1 + c.len_utf8() + 1,
                    _ => i += 1,
                }
            }
            _ => i += source[i..].chars().next().unwrap().len_utf8(),
        }
    }
    out
}

/// Whether `r` at `i` opens a raw string (`r"`, `r#"`, `br"` …) rather than ending an identifier.
fn is_raw_string_start(b: &[u8], i: usize) -> bool {
    let ident_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') && b[i - 1] != b'b';
    let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
    !ident_before && b.get(i + 1 + hashes) == Some(&b'"')
}

/// The index after the closing quote of a string whose body starts at `i`. `verbatim`: C#'s
/// `@"…"`, where `""` is a quote and backslashes are plain.
fn skip_string(b: &[u8], mut i: usize, line: &mut usize, verbatim: bool) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' if !verbatim => {
                // An escape; `\` at a line's end continues the string on the next line.
                if b.get(i + 1) == Some(&b'\n') {
                    *line += 1;
                }
                i += 2;
            }
            b'"' if verbatim && b.get(i + 1) == Some(&b'"') => i += 2,
            b'"' => return i + 1,
            c => {
                if c == b'\n' {
                    *line += 1;
                }
                i += 1;
            }
        }
    }
    i
}

/// Consecutive comment lines joined into one text (each line trimmed, joined by a space), with
/// the byte offset at which each line starts, so that a phrase broken over two lines is still
/// found and its line can be named.
struct CommentBlock {
    text: String,
    starts: Vec<(usize, usize)>,
}

impl CommentBlock {
    fn line_at(&self, offset: usize) -> usize {
        self.starts.iter().rev().find(|&&(start, _)| start <= offset).map_or(0, |&(_, line)| line)
    }
}

/// The comment blocks of the file at `path`. Fails if the scan missed a line that starts with
/// `//` (a literal read wrongly would hide every comment after it).
fn comment_blocks_of(path: &Path) -> Vec<CommentBlock> {
    let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let seen: std::collections::HashSet<usize> = comment_lines(&source).iter().map(|c| c.line).collect();
    for (k, line) in source.lines().enumerate() {
        assert!(
            !line.trim_start().starts_with("//") || seen.contains(&(k + 1)),
            "{}:{}: the comment scan missed this comment (a literal before it misread?)",
            relative(path),
            k + 1
        );
    }
    comment_blocks(&source)
}

fn comment_blocks(source: &str) -> Vec<CommentBlock> {
    let mut blocks: Vec<CommentBlock> = Vec::new();
    let mut last_line = 0;
    for c in comment_lines(source) {
        let text = c.text.trim();
        let continues = c.line == last_line + 1 || c.line == last_line;
        last_line = c.line;
        match blocks.last_mut() {
            Some(b) if continues => {
                b.starts.push((b.text.len() + 1, c.line));
                b.text.push(' ');
                b.text.push_str(text);
            }
            _ => blocks.push(CommentBlock { text: text.to_string(), starts: vec![(0, c.line)] }),
        }
    }
    blocks
}

/// The notebook phrases in `text` (ASCII case ignored): (byte offset, the phrase as found).
fn notebook_phrases(text: &str) -> Vec<(usize, String)> {
    let lower = text.to_ascii_lowercase();
    let mut found = Vec::new();
    for phrase in NOTEBOOK_PHRASES {
        for (at, _) in lower.match_indices(phrase) {
            found.push((at, text[at..at + phrase.len()].to_string()));
        }
    }
    for ordinal in SET_ORDINALS {
        let phrase = format!("{ordinal} set");
        for (at, _) in lower.match_indices(&phrase) {
            let word_start = at == 0 || !lower.as_bytes()[at - 1].is_ascii_alphabetic();
            let next = lower.as_bytes().get(at + phrase.len()).copied();
            let word_end = next.is_none_or(|c| !c.is_ascii_alphabetic() || c == b's');
            if word_start && word_end {
                found.push((at, text[at..at + phrase.len()].to_string()));
            }
        }
    }
    for (at, _) in lower.match_indices("issue") {
        let b = lower.as_bytes();
        let mut end = at + "issue".len();
        for mark in [b' ', b'#'] {
            if b.get(end) == Some(&mark) {
                end += 1;
            }
        }
        let digits = b[end..].iter().take_while(|c| c.is_ascii_digit()).count();
        let word_start = at == 0 || !b[at - 1].is_ascii_alphabetic();
        if word_start && digits > 0 && end > at + "issue".len() {
            found.push((at, text[at..end + digits].to_string()));
        }
    }
    found.sort();
    found
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root()).unwrap_or(path).display().to_string()
}

#[test]
fn no_notebook_phrases_in_src_comments() {
    let mut offences = Vec::new();
    for path in files_under(&root().join("src"), &[".rs"]) {
        for block in comment_blocks_of(&path) {
            for (at, phrase) in notebook_phrases(&block.text) {
                offences.push(format!("{}:{}: \"{phrase}\"", relative(&path), block.line_at(at)));
            }
        }
    }
    assert!(
        offences.is_empty(),
        "comments in src/ carry notebook phrases; say what and why, and point to the \
         docs/dev/performance-log.md entry or the docs/design.md section by its heading:\n{}",
        offences.join("\n")
    );
}

/// The headings of the Markdown file at `path`, whitespace collapsed (lines of fenced code
/// blocks are not headings).
fn headings(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(collapse(line.trim_start_matches('#')));
        }
    }
    out
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The guide a reference names: `docs/x.md` or `docs/dev/x.md` as written, or a bare `x.md`
/// looked up in docs/ and docs/dev/. None when it is not a guide (a README, say).
fn guide(name: &str) -> Option<PathBuf> {
    let docs = root().join("docs");
    if let Some(rel) = name.strip_prefix("docs/") {
        return Some(docs.join(rel));
    }
    [docs.join(name), docs.join("dev").join(name)].into_iter().find(|p| p.is_file())
}

/// The heading references in `text`: (byte offset, guide file as written, heading). A reference is
/// a guide's file name, a comma, and the heading in double quotes; further quoted headings may
/// follow, each after "and" or a comma.
fn heading_references(text: &str) -> Vec<(usize, String, String)> {
    let mut refs = Vec::new();
    for (at, _) in text.match_indices(".md, \"") {
        let name_start = text[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || "/_-.".contains(c)))
            .map_or(0, |n| n + 1);
        let name = format!("{}.md", &text[name_start..at]);
        let mut rest = &text[at + ".md, ".len()..];
        while let Some(body) = rest.strip_prefix('"') {
            let Some(end) = body.find('"') else { break };
            refs.push((at, name.clone(), collapse(&body[..end])));
            rest = &body[end + 1..];
            let next = rest.trim_start();
            rest = match next.strip_prefix("and ").or_else(|| next.strip_prefix(", ")) {
                Some(after) if after.trim_start().starts_with('"') => after.trim_start(),
                _ => break,
            };
        }
    }
    refs
}

#[test]
fn comments_point_to_headings_that_exist() {
    let me = root().join("tests").join("comment_hygiene.rs");
    let mut checked = 0;
    let mut dangling = Vec::new();
    for dir in ["src", "tests", "examples", "bindings"] {
        for path in files_under(&root().join(dir), &[".rs", ".cs"]) {
            if path == me {
                continue;
            }
            for block in comment_blocks_of(&path) {
                for (at, name, heading) in heading_references(&block.text) {
                    let Some(file) = guide(&name) else { continue };
                    let place = format!("{}:{}", relative(&path), block.line_at(at));
                    if !file.is_file() {
                        dangling.push(format!("{place}: {name} does not exist"));
                    } else if !headings(&file).contains(&heading) {
                        dangling.push(format!("{place}: {name} has no heading \"{heading}\""));
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(dangling.is_empty(), "comments point to headings that do not exist:\n{}", dangling.join("\n"));
    assert!(checked > 20, "only {checked} heading references found: is the scan still reading comments?");
}

#[test]
fn the_scan_reads_comments_and_skips_literals() {
    let source = "fn f() -> &'static str { // a callgrind count\n    let c = '\"'; let s = \"// tenth set\";\n    /* the tenth\n     * set's build */ r#\"issue 7\"# }\n/// see docs/design.md, \"Tethers\" and \"Pins\"\n";
    let lines = comment_lines(source);
    let text: Vec<(usize, &str)> = lines.iter().map(|c| (c.line, c.text.trim())).collect();
    assert_eq!(text, [(1, "a callgrind count"), (3, "the tenth"), (4, "set's build"), (5, "see docs/design.md, \"Tethers\" and \"Pins\"")]);
    let blocks = comment_blocks(source);
    let found: Vec<(usize, String)> =
        blocks.iter().flat_map(|b| notebook_phrases(&b.text).into_iter().map(|(at, p)| (b.line_at(at), p))).collect();
    assert_eq!(found, [(1, "callgrind".to_string()), (3, "tenth set".to_string()), (4, "set's build".to_string())]);
    assert!(notebook_phrases("see issue 12, Issue #3 and the issues").len() == 2);
    assert!(notebook_phrases("the first set of pins, a settled cloth, tenth settings").is_empty());
    let refs: Vec<String> = blocks.iter().flat_map(|b| heading_references(&b.text)).map(|(_, n, h)| format!("{n}: {h}")).collect();
    assert_eq!(refs, ["docs/design.md: Tethers", "docs/design.md: Pins"]);
}
