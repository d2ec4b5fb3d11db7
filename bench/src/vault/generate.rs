//! The generated half of a vault: seeded notes of Markov text, `gen/area-NNN/note-NNNNNNN.md`
//! (note `i` in folder `i % 1000`), written until the vault holds the chunks it was asked for.
//!
//! A note is front matter with one or two tags, an H1 title of 3-6 words, and up to 6 `## `
//! sections, each a heading of 2-5 words and 1-3 blocks (a paragraph of 20-60 words, or one time
//! in five a list of 3-5 items), of 80 to 1,450 characters, so that each section is one chunk and the
//! title's section, which holds no text, none. A section whose text was seen before is drawn
//! again. Half the notes end their last section with a wikilink to one of the 5,000 notes before
//! them (`See also [[note-0000123]].`), resolved by name as Obsidian does. Each note is chunked
//! before it is written: it is kept only when its chunks are exactly its sections, so the count is
//! the chunker's.

use std::path::Path;

use anyhow::bail;
use ragdownd::markdown::{MAX_CHUNK_CHARS, chunk_document};

use super::chain::{Chain, Rng};
use super::prose::{Distinct, MIN_CHUNK_CHARS, fingerprint};
use super::{Files, Tally, write_file};

/// Sections per note.
const SECTIONS: usize = 6;

/// Folders the notes are spread over.
const FOLDERS: usize = 1000;

/// Draws before a section or a note is given up: only a chain of a few sentences comes near.
const TRIES: usize = 1000;

/// A section's text is kept this far under the chunker's limit (a wikilink's line fits in it).
const MAX_SECTION_CHARS: usize = MAX_CHUNK_CHARS - 50;

/// Percent of notes whose last section links to an earlier note, so backlinks have links to find.
const LINKED: usize = 50;

/// How far back such a link reaches: one of the last this many notes.
const LINK_BACK: usize = 5000;

/// One note's drawing: the buffers reused from note to note, so a word costs no allocation.
struct Writer<'c> {
    chain: &'c Chain,
    ids: Vec<u32>,
    section: String,
}

impl Writer<'_> {
    /// `n` words as a title or heading: punctuation taken off, the first letter a capital.
    fn heading(&mut self, rng: &mut Rng, n: usize, out: &mut String) {
        self.chain.draw(rng, n, &mut self.ids);
        let start = out.len();
        for &id in &self.ids {
            let word = self.chain.word(id).trim_matches(|c: char| !c.is_ascii_alphanumeric());
            if !word.is_empty() {
                if out.len() > start {
                    out.push(' ');
                }
                out.push_str(word);
            }
        }
        if out.len() == start {
            out.push_str("Notes");
        }
        out[start..start + 1].make_ascii_uppercase();
    }

    /// `n` words as running text, starting with a capital; `sentence` ends it with a full stop.
    fn words(&mut self, rng: &mut Rng, n: usize, sentence: bool) {
        self.chain.draw(rng, n, &mut self.ids);
        let start = self.section.len();
        for (i, &id) in self.ids.iter().enumerate() {
            if i > 0 {
                self.section.push(' ');
            }
            self.section.push_str(self.chain.word(id));
        }
        self.section[start..start + 1].make_ascii_uppercase();
        if sentence {
            while self.section.ends_with([',', ';', ':', '-', '(', '/']) {
                self.section.pop();
            }
            if !self.section.ends_with(['.', '!', '?']) {
                self.section.push('.');
            }
        }
    }

    /// A section's text into `self.section`: 1-3 blocks joined by blank lines.
    fn section(&mut self, rng: &mut Rng) {
        self.section.clear();
        for block in 0..rng.range(1, 3) {
            if block > 0 {
                self.section.push_str("\n\n");
            }
            if rng.chance(20) {
                for item in 0..rng.range(3, 5) {
                    if item > 0 {
                        self.section.push('\n');
                    }
                    self.section.push_str("- ");
                    let n = rng.range(3, 10);
                    self.words(rng, n, false);
                }
            } else {
                let n = rng.range(20, 60);
                self.words(rng, n, true);
            }
        }
    }
}

/// `gen/area-NNN/note-NNNNNNN.md` for note `i`.
fn note_path(i: usize) -> String {
    format!("gen/area-{:03}/note-{i:07}.md", i % FOLDERS)
}

/// Writes notes under `out/gen` until `files` holds `target` chunks; returns what it wrote.
pub(crate) fn generate(
    chain: &Chain,
    rng: &mut Rng,
    out: &Path,
    target: usize,
    seen: &mut Distinct,
    files: &mut Files,
) -> anyhow::Result<Tally> {
    let mut made = Tally::default();
    if files.chunks() >= target {
        return Ok(made);
    }
    if chain.is_empty() {
        bail!("the real Markdown kept holds no English prose to train the generator on: add a --source");
    }
    let tags = chain.tags();
    let mut writer = Writer {
        chain,
        ids: Vec::new(),
        section: String::new(),
    };
    let mut note = String::new();
    let mut prints: Vec<u128> = Vec::with_capacity(SECTIONS);
    let mut next_report = 100_000;
    while files.chunks() < target {
        let sections = (target - files.chunks()).min(SECTIONS);
        let rel = note_path(made.files);
        let mut tries = 0;
        loop {
            tries += 1;
            if tries > TRIES {
                bail!("{rel}: no note of distinct sections in {TRIES} draws: the chain is too small");
            }
            note.clear();
            prints.clear();
            note.push_str("---\ntags: [");
            let first = rng.below(tags.len().max(1));
            note.push_str(tags.get(first).map_or("note", String::as_str));
            if tags.len() > 1 && rng.chance(50) {
                let second = (first + 1 + rng.below(tags.len() - 1)) % tags.len();
                note.push_str(", ");
                note.push_str(&tags[second]);
            }
            note.push_str("]\n---\n\n# ");
            let n = rng.range(3, 6);
            writer.heading(rng, n, &mut note);
            note.push('\n');
            for section in 0..sections {
                let mut print = draw_section(&mut writer, rng, seen, &prints)?;
                if section + 1 == sections && made.files > 0 && rng.chance(LINKED) {
                    print = link_earlier(&mut writer, rng, made.files, seen, &prints).unwrap_or(print);
                }
                prints.push(print);
                note.push_str("\n## ");
                let n = rng.range(2, 5);
                writer.heading(rng, n, &mut note);
                note.push_str("\n\n");
                note.push_str(&writer.section);
                note.push('\n');
            }
            let chunks = chunk_document(&rel, &note).chunks;
            let exact =
                chunks.len() == prints.len() && chunks.iter().zip(&prints).all(|(c, &p)| fingerprint(&c.text).0 == p);
            if exact {
                break;
            }
        }
        write_file(out, &rel, &note)?;
        prints.iter().for_each(|&p| {
            seen.insert(p);
        });
        files.push(rel, sections);
        made.files += 1;
        made.chunks += sections;
        if files.chunks() >= next_report {
            eprintln!("vault: {} chunks", files.chunks());
            next_report += 100_000;
        }
    }
    Ok(made)
}

/// Ends `writer.section` with a wikilink to one of the `written` notes before this one, by name
/// (`See also [[note-0000123]].`), and gives its new fingerprint; leaves it as it was and gives
/// `None` when that text was seen before.
fn link_earlier(
    writer: &mut Writer<'_>,
    rng: &mut Rng,
    written: usize,
    seen: &Distinct,
    pending: &[u128],
) -> Option<u128> {
    let before = writer.section.len();
    let earlier = written - 1 - rng.below(written.min(LINK_BACK));
    writer.section.push_str(&format!("\n\nSee also [[note-{earlier:07}]]."));
    let (print, _) = fingerprint(&writer.section);
    if seen.contains(print) || pending.contains(&print) {
        writer.section.truncate(before);
        return None;
    }
    Some(print)
}

/// Draws one section's text into `writer.section`: under the chunker's limit, at least as long as
/// a real chunk must be, and not seen before; returns its fingerprint.
fn draw_section(writer: &mut Writer<'_>, rng: &mut Rng, seen: &Distinct, pending: &[u128]) -> anyhow::Result<u128> {
    for _ in 0..TRIES {
        writer.section(rng);
        if writer.section.len() > MAX_SECTION_CHARS {
            continue;
        }
        let (print, chars) = fingerprint(&writer.section);
        if chars >= MIN_CHUNK_CHARS && !seen.contains(print) && !pending.contains(&print) {
            return Ok(print);
        }
    }
    bail!("no distinct section in {TRIES} draws: the chain is too small")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vault::chain::ChainBuilder;

    fn chain() -> Chain {
        let mut builder = ChainBuilder::default();
        builder.add_text(
            "The nightly backup writes its report before the restore test begins. When the restore \
             test fails, the on-call engineer opens an incident and pages the database team. The \
             database team checks the replica lag first, then the archive, then the report.",
        );
        builder.build()
    }

    #[test]
    fn vault_notes_are_one_chunk_per_section() {
        let dir = tempfile::tempdir().unwrap();
        let (mut files, mut seen) = (Files::default(), Distinct::default());
        let made = generate(&chain(), &mut Rng::new(3), dir.path(), 15, &mut seen, &mut files).unwrap();
        assert_eq!((made.files, made.chunks), (3, 15), "6 + 6 + 3");
        let text = std::fs::read_to_string(dir.path().join("gen/area-002/note-0000002.md")).unwrap();
        let doc = chunk_document("n.md", &text);
        assert_eq!(doc.chunks.len(), 3);
        assert!(doc.chunks.iter().all(|c| c.heading.starts_with(&doc.title)));
        assert!(text.starts_with("---\ntags: ["), "{text}");
    }

    #[test]
    fn about_half_the_notes_link_an_earlier_note_that_exists() {
        let dir = tempfile::tempdir().unwrap();
        let (mut files, mut seen) = (Files::default(), Distinct::default());
        let made = generate(&chain(), &mut Rng::new(5), dir.path(), 240, &mut seen, &mut files).unwrap();
        assert_eq!(made.files, 40);
        let mut linked = 0;
        for i in 0..made.files {
            let text = std::fs::read_to_string(dir.path().join(note_path(i))).unwrap();
            let links = ragdownd::markdown::links::find_links(&text);
            assert!(links.len() <= 1, "{text}");
            for link in links {
                let target: usize = link.target.trim_start_matches("note-").parse().unwrap();
                assert!(target < i, "note {i} links note {target}, not an earlier one");
                assert!(dir.path().join(note_path(target)).is_file());
                linked += 1;
            }
        }
        assert!((10..=30).contains(&linked), "{linked} of 40 link");
    }
}
