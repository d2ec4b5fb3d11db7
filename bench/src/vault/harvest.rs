//! The real half of a vault: Markdown found under the source dirs, chunked with ragdownd's
//! chunker, each chunk kept once, and written back as a file whose own chunks are exactly the
//! kept ones.
//!
//! A chunk is kept when its whitespace-normalised text has at least
//! [`MIN_CHUNK_CHARS`](super::prose::MIN_CHUNK_CHARS) characters, was not kept before (from any
//! file), and closes every code fence it opens. A file is written as its kept chunks, each under
//! a heading line that gives it its own section (the heading path rebuilt level by level, the
//! last heading repeated where two kept chunks share one), so that the chunker cannot pack two
//! of them together. The written text is chunked again; where that does not give back the same
//! texts (front matter appearing at the top, a preamble split in two), the chunks it does give
//! are filtered the same way and written again, until it does, so every count is what chunking
//! the written file gives. A file that does not settle in a few rounds is skipped.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::Context;
use ragdownd::markdown::{Chunk, HEADING_SEPARATOR, chunk_document};
use walkdir::WalkDir;

use super::chain::ChainBuilder;
use super::prose::{Distinct, MIN_CHUNK_CHARS, fences_balanced, fingerprint};
use super::{Files, Tally, write_file};

/// Files larger than this are not read.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// Rounds of write-and-rechunk before a file is given up.
const ROUNDS: usize = 4;

/// A dir of Markdown to harvest, written under `real/<label>/<prefix><path in dir>`.
#[derive(Debug, Clone)]
pub struct Source {
    pub label: String,
    pub dir: PathBuf,
    /// Put before each file's path: the registry's name for `crates`, so two registries that
    /// hold the same crate cannot collide.
    pub prefix: String,
}

/// The `.md` files under `dir` (links not followed) of at most a megabyte, as posix paths
/// relative to it, sorted.
fn markdown_files(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| e.path().extension().is_some_and(|ext| ext.eq_ignore_ascii_case("md")))
        .filter(|e| e.metadata().is_ok_and(|m| m.len() <= MAX_FILE_BYTES))
        .filter_map(|e| {
            let rel = e.path().strip_prefix(dir).ok()?;
            let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
            Some(parts?.join("/"))
        })
        .collect();
    files.sort();
    files
}

/// The chunks worth keeping, in order, at most `limit`: long enough, not seen before (nor twice
/// here), fences closed.
fn keep(chunks: Vec<Chunk>, seen: &Distinct, limit: usize) -> Vec<Chunk> {
    let mut here = HashSet::new();
    chunks
        .into_iter()
        .filter(|c| fences_balanced(&c.text))
        .filter(|c| {
            let (print, chars) = fingerprint(&c.text);
            chars >= MIN_CHUNK_CHARS && !seen.contains(print) && here.insert(print)
        })
        .take(limit)
        .collect()
}

/// The file made of `chunks`, each in a section of its own.
pub(crate) fn render(chunks: &[Chunk]) -> String {
    let mut out = String::new();
    let mut previous: Vec<&str> = Vec::new();
    for chunk in chunks {
        let path: Vec<&str> = if chunk.heading.is_empty() {
            Vec::new()
        } else {
            chunk.heading.split(HEADING_SEPARATOR).collect()
        };
        let shared = previous.iter().zip(&path).take_while(|(a, b)| a == b).count();
        // The same path again (or a parent of the last): repeat its last heading.
        let from = if shared == path.len() {
            path.len().saturating_sub(1)
        } else {
            shared
        };
        for (level, name) in path.iter().enumerate().skip(from) {
            out.push_str(&"#".repeat((level + 1).min(6)));
            out.push(' ');
            out.push_str(name);
            out.push_str("\n\n");
        }
        out.push_str(&chunk.text);
        out.push_str("\n\n");
        previous = path;
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// What becomes of one real file.
#[derive(Debug)]
enum Settled {
    /// Its chunks once written, and its text.
    Kept(Vec<Chunk>, String),
    /// No chunk is long enough and new.
    Nothing,
    /// Rewritten [`ROUNDS`] times, it still chunked differently.
    Unsettled,
}

fn settle(rel: &str, source: &str, seen: &Distinct, limit: usize) -> Settled {
    let mut kept = keep(chunk_document(rel, source).chunks, seen, limit);
    for _ in 0..ROUNDS {
        if kept.is_empty() {
            return Settled::Nothing;
        }
        let text = render(&kept);
        let again = chunk_document(rel, &text).chunks;
        let same = again.len() == kept.len() && again.iter().zip(&kept).all(|(a, b)| a.text == b.text);
        if same {
            return Settled::Kept(again, text);
        }
        kept = keep(again, seen, limit);
    }
    Settled::Unsettled
}

/// What the harvest kept: per source label, files and chunks.
pub(crate) type PerSource = BTreeMap<String, Tally>;

/// Harvests the sources in order until `files` holds `target` chunks, writing under `out/real`,
/// teaching `chain` each kept chunk.
pub(crate) fn harvest(
    sources: &[Source],
    out: &Path,
    target: usize,
    seen: &mut Distinct,
    chain: &mut ChainBuilder,
    files: &mut Files,
) -> anyhow::Result<PerSource> {
    let mut per_source: PerSource = sources.iter().map(|s| (s.label.clone(), Tally::default())).collect();
    let (mut nothing, mut unsettled) = (0, 0);
    for source in sources {
        let tally_before = per_source[&source.label];
        for path in markdown_files(&source.dir) {
            let remaining = target.saturating_sub(files.chunks());
            if remaining == 0 {
                break;
            }
            let Ok(text) = String::from_utf8(std::fs::read(source.dir.join(&path))?) else {
                continue;
            };
            let rel = format!("real/{}/{}{path}", source.label, source.prefix);
            let (chunks, written) = match settle(&rel, &text, seen, remaining) {
                Settled::Kept(chunks, written) => (chunks, written),
                Settled::Nothing => {
                    nothing += 1;
                    continue;
                }
                Settled::Unsettled => {
                    unsettled += 1;
                    continue;
                }
            };
            for chunk in &chunks {
                seen.insert(fingerprint(&chunk.text).0);
                chain.add_text(&chunk.text);
            }
            write_file(out, &rel, &written).with_context(|| rel.clone())?;
            files.push(rel, chunks.len());
            let tally = per_source.get_mut(&source.label).expect("every label tallied");
            tally.files += 1;
            tally.chunks += chunks.len();
        }
        let tally = per_source[&source.label];
        eprintln!(
            "vault: {} ({}): {} files, {} chunks kept",
            source.label,
            source.dir.display(),
            tally.files - tally_before.files,
            tally.chunks - tally_before.chunks
        );
    }
    if nothing + unsettled > 0 {
        eprintln!(
            "vault: real files skipped: {nothing} with no chunk both long enough and new, \
             {unsettled} that did not chunk back the same in {ROUNDS} rounds"
        );
    }
    Ok(per_source)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(chunks: &[Chunk]) -> Vec<&str> {
        chunks.iter().map(|c| c.text.as_str()).collect()
    }

    #[test]
    fn vault_render_gives_each_chunk_its_own_section() {
        // Two paragraphs too long to pack together: section A makes two chunks.
        let long = |c: char| format!("{} words.", c.to_string().repeat(790));
        let source = format!(
            "Preamble text that is long enough to be kept as a chunk of its own, more than eighty.\n\n\
             # A\n\n{a}\n\n{b}\n\n## B\n\n### C\n\nUnder C, a paragraph long enough to be kept, \
             which is certainly more than eighty characters long.\n\n# A\n\nA again: the second A section's \
             own paragraph, again long enough to be kept here.",
            a = long('a'),
            b = long('b')
        );
        let Settled::Kept(chunks, text) = settle("x.md", &source, &Distinct::default(), usize::MAX) else {
            panic!("does not settle");
        };
        let original = chunk_document("x.md", &source).chunks;
        assert_eq!(texts(&chunks), texts(&original));
        assert_eq!(texts(&chunk_document("x.md", &text).chunks), texts(&original));
        let headings: Vec<&str> = chunks.iter().map(|c| c.heading.as_str()).collect();
        assert_eq!(headings, ["", "A", "A", "A › B › C", "A"]);
    }

    #[test]
    fn vault_keep_drops_short_seen_and_open_fence_chunks() {
        let para = "A paragraph that is comfortably longer than the eighty characters a chunk needs.";
        let source = format!("# One\n\n{para}\n\n# Two\n\nshort\n\n# Three\n\n{para}\n\n# Four\n\n```\n{para}");
        let kept = keep(chunk_document("x.md", &source).chunks, &Distinct::default(), 10);
        assert_eq!(texts(&kept), [para]);
        let mut seen = Distinct::default();
        seen.insert(fingerprint(&format!("  {para} ")).0);
        assert!(keep(chunk_document("x.md", &source).chunks, &seen, 10).is_empty());
    }

    #[test]
    fn vault_a_preamble_that_would_read_as_front_matter_settles() {
        // Not front matter where it is (the file starts with a blank line), but it would be at the
        // top of the written file: the second round drops it.
        let para = "A paragraph that is comfortably longer than the eighty characters a chunk needs.";
        let source = format!(
            "\n---\nfoo: a value long enough to keep this preamble past eighty chars\n---\n\n{para}\n\n# T\n\nSecond: {para}"
        );
        let original = chunk_document("x.md", &source).chunks;
        assert_eq!(original.len(), 2);
        let Settled::Kept(chunks, text) = settle("x.md", &source, &Distinct::default(), usize::MAX) else {
            panic!("does not settle");
        };
        assert_eq!(texts(&chunks), [para.to_owned(), format!("Second: {para}")]);
        assert_eq!(texts(&chunk_document("x.md", &text).chunks), texts(&chunks));
    }
}
