//! `ragdown-bench vault`: a vault of Markdown with exactly `--chunks` distinct chunks (as
//! ragdownd's chunker cuts them), for measuring search at 10k to 1M chunks, where copies of one
//! small corpus would put every vector in the index thousands of times.
//!
//! - [`harvest`]: real Markdown first (the crates this workspace downloads, `web/node_modules`,
//!   `../shared/data/corpora`, or the `--source` dirs), each chunk kept once, under `real/`.
//! - [`generate`]: then seeded notes of Markov text trained on that prose, under `gen/`.
//! - [`queries`]: `queries.json`, drawn over every chunk written.
//! - [`chain`]: the PRNG and the Markov chain; [`prose`]: the text rules they share.
//!
//! The vault holds exactly `--chunks` chunks when the generator is needed or the real Markdown
//! holds more than asked (the last real file is cut to fit): every count is what chunking the
//! written file gives, and every chunk's whitespace-normalised text is written once. Only the
//! notes and the queries depend on the seed; the same seed and sources give the same bytes.
//! `vault.json` describes what was written.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail, ensure};
use serde::Serialize;
use serde_json::{Value, json};

pub mod chain;
pub mod generate;
pub mod harvest;
pub mod prose;
pub mod queries;

pub use harvest::Source;

/// The `vault` command's settings.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory to write the vault into: it must be empty or not exist yet.
    #[arg(long)]
    pub out: PathBuf,
    /// Distinct chunks the vault holds.
    #[arg(long)]
    pub chunks: usize,
    /// Seed of the generated notes and of the queries.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Queries written to queries.json.
    #[arg(long, default_value_t = 500)]
    pub queries: usize,
    /// A dir of Markdown to take real files from (repeatable); replaces the default list: every
    /// dir under $CARGO_HOME/registry/src, then the repository's web/node_modules, then
    /// ../shared/data/corpora beside the repository.
    #[arg(long = "source")]
    pub sources: Vec<PathBuf>,
    /// The repository whose web/node_modules and ../shared/data/corpora are default sources
    /// [default: the one this binary was built from].
    #[arg(long)]
    pub repo: Option<PathBuf>,
}

/// Files and chunks written.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub files: usize,
    pub chunks: usize,
}

/// Every file written, in order, with the running count of chunks, so a chunk number finds its
/// file by binary search.
#[derive(Debug, Default)]
pub(crate) struct Files {
    paths: Vec<String>,
    /// `ends[i]`: chunks in files `0..=i`.
    ends: Vec<usize>,
}

impl Files {
    pub(crate) fn push(&mut self, path: String, chunks: usize) {
        self.ends.push(self.chunks() + chunks);
        self.paths.push(path);
    }

    pub(crate) fn len(&self) -> usize {
        self.paths.len()
    }

    pub(crate) fn chunks(&self) -> usize {
        self.ends.last().copied().unwrap_or(0)
    }

    pub(crate) fn path(&self, file: usize) -> &str {
        &self.paths[file]
    }

    /// The file and the index in it of chunk number `n` of the vault.
    pub(crate) fn locate(&self, n: usize) -> (usize, usize) {
        let file = self.ends.partition_point(|&end| end <= n);
        (file, n - file.checked_sub(1).map_or(0, |f| self.ends[f]))
    }
}

/// Writes `text` to `out/rel` in one write, making its folder.
pub(crate) fn write_file(out: &Path, rel: &str, text: &str) -> anyhow::Result<()> {
    let path = out.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&path, text).with_context(|| path.display().to_string())
}

/// `$CARGO_HOME`, else `~/.cargo`.
fn cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cargo"))
}

/// The default sources that exist: every registry under `$CARGO_HOME/registry/src` (`crates`),
/// `repo/web/node_modules` (`npm`), `repo/../shared/data/corpora` (`corpora`).
pub fn default_sources(repo: &Path) -> Vec<Source> {
    let registry = cargo_home().join("registry/src");
    let mut registries: Vec<PathBuf> = std::fs::read_dir(&registry)
        .map(|dir| dir.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect())
        .unwrap_or_default();
    registries.sort();
    if registries.is_empty() {
        eprintln!("vault: no registry under {}: skipped", registry.display());
    }
    let mut sources: Vec<Source> = registries
        .into_iter()
        .map(|dir| Source {
            label: "crates".to_owned(),
            prefix: format!("{}/", dir.file_name().unwrap_or_default().to_string_lossy()),
            dir,
        })
        .collect();
    for (label, dir) in [
        ("npm", repo.join("web/node_modules")),
        ("corpora", repo.join("../shared/data/corpora")),
    ] {
        match dir.canonicalize() {
            Ok(dir) if dir.is_dir() => sources.push(Source {
                label: label.to_owned(),
                dir,
                prefix: String::new(),
            }),
            _ => eprintln!("vault: no {}: skipped", dir.display()),
        }
    }
    sources
}

/// Sources for `--source` dirs, each labelled with its dir's name (`-2`, `-3` after a repeat).
pub fn named_sources(dirs: &[PathBuf]) -> anyhow::Result<Vec<Source>> {
    let mut sources: Vec<Source> = Vec::new();
    for dir in dirs {
        let dir = dir
            .canonicalize()
            .with_context(|| format!("--source {}", dir.display()))?;
        ensure!(dir.is_dir(), "--source {} is not a directory", dir.display());
        let name = dir
            .file_name()
            .map_or_else(|| "source".to_owned(), |n| n.to_string_lossy().into_owned());
        let mut label = name.clone();
        for n in 2.. {
            if !sources.iter().any(|s| s.label == label) {
                break;
            }
            label = format!("{name}-{n}");
        }
        sources.push(Source {
            label,
            dir,
            prefix: String::new(),
        });
    }
    Ok(sources)
}

/// Runs the command: the sources from `args`, then [`build`].
pub fn run(args: &Args) -> anyhow::Result<Value> {
    let sources = if args.sources.is_empty() {
        let repo = args.repo.clone().unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .parent()
                .unwrap_or(Path::new("."))
                .to_path_buf()
        });
        default_sources(&repo)
    } else {
        named_sources(&args.sources)?
    };
    build(&args.out, args.chunks, args.seed, args.queries, &sources)
}

/// The salt of the queries' PRNG stream, so the queries do not share the notes' draws.
const QUERY_STREAM: u64 = 0x7175_6572_6965_7321;

/// Writes a vault of `chunks` chunks into `out` (empty or new) and returns its manifest, also
/// written to `out/vault.json`.
pub fn build(out: &Path, chunks: usize, seed: u64, queries: usize, sources: &[Source]) -> anyhow::Result<Value> {
    if out.exists() {
        let mut entries = std::fs::read_dir(out).with_context(|| out.display().to_string())?;
        if entries.next().is_some() {
            bail!(
                "{} is not empty: a vault is written only into an empty or new directory",
                out.display()
            );
        }
    }
    std::fs::create_dir_all(out).with_context(|| out.display().to_string())?;

    let mut seen = prose::Distinct::default();
    let mut files = Files::default();
    let mut learner = chain::ChainBuilder::default();
    let per_source = harvest::harvest(sources, out, chunks, &mut seen, &mut learner, &mut files)?;
    let real = Tally {
        files: files.len(),
        chunks: files.chunks(),
    };
    let chain = learner.build();
    let mut rng = chain::Rng::new(seed);
    let generated = generate::generate(&chain, &mut rng, out, chunks, &mut seen, &mut files)?;

    let mut rng = chain::Rng::new(seed ^ QUERY_STREAM);
    let drawn = queries::draw(out, &files, queries, &mut rng)?;
    std::fs::write(out.join("queries.json"), serde_json::to_string_pretty(&drawn)? + "\n")?;

    let manifest = json!({
        "seed": seed,
        "chunks": files.chunks(),
        "files": files.len(),
        "real": {"files": real.files, "chunks": real.chunks, "per_source": per_source},
        "generated": generated,
        "sources": sources.iter().map(|s| s.dir.display().to_string()).collect::<Vec<_>>(),
        "chain": {"prose_words": chain.prose_words(), "states": chain.states()},
        "queries": drawn.len(),
    });
    std::fs::write(out.join("vault.json"), serde_json::to_string_pretty(&manifest)? + "\n")?;
    Ok(manifest)
}

#[cfg(test)]
mod tests;
