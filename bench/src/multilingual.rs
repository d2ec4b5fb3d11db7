//! The `multilingual` workload: how often search puts the right section first when the notes are
//! Chinese, Japanese or Korean documentation and the question is in that language, in English,
//! or in another of the three (issue 25).
//!
//! The corpus is real documentation (`../shared/data/corpora/cjkdocs`: TiDB and Vue in Chinese,
//! Vite and React in Japanese, the Rust book and Keras in Korean), copied to a temp dir and indexed
//! with the real index code; the questions are `bench/data/cjk-questions.json`, hand-written, each
//! with the sections that answer it (path and heading path, as [`crate::retrieval`] judges the
//! runbook set). Before any question is asked, every gold section is checked against what the
//! index holds, and the run stops if one is missing: a renamed heading must not read as a miss.
//!
//! Each question is searched with the product's ranking (`routed`) and with the dense and BM25
//! pools alone, through the retrieval workload's own search and scoring. Reported: top-1,
//! recall@5 and MRR over the top 10 per document language × kind, same-language (keyword,
//! paraphrase, identifier) against cross-language (English and other-CJK questions), the issue's
//! targets, and every question's rank in each mode, so two runs diff question by question.
//! This module reads the documents and the questions; it changes neither.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use ragdownd::engine::Engine;
use ragdownd::markdown::chunk_document;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::retrieval::{self, LIMIT, mode_options, rank_of, scores};

/// The rankings compared, by the names the retrieval workload gives them: the product's hybrid
/// search, then each pool alone.
const MODES: [&str; 3] = ["routed", "dense", "bm25"];

/// The document languages, in the order the table lists them.
const LANGUAGES: [&str; 3] = ["zh", "ja", "ko"];

/// The kinds of question, in the order the table lists them.
const KINDS: [&str; 5] = ["keyword", "paraphrase", "identifier", "english", "cross"];

/// The kinds asked in the document's own language; `english` and `cross` are cross-language.
const SAME_LANGUAGE: [&str; 3] = ["keyword", "paraphrase", "identifier"];

/// The workload's settings.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The CJK documentation to index [default: ../shared/data/corpora/cjkdocs beside the
    /// repository].
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// The question set [default: bench/data/cjk-questions.json].
    #[arg(long)]
    pub questions: Option<PathBuf>,
    /// The embedder: minilm, multilingual-e5-small, hash, ... (installed, never downloaded).
    #[arg(long, default_value = "minilm")]
    pub embedder: String,
    /// Where to write the JSON [default: bench/results/<UTC day>-multilingual-<embedder>.json].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write the questions the product search did not answer first (JSON lines).
    #[arg(long)]
    pub misses: Option<PathBuf>,
}

/// The question file: a note on how it was written, and the questions.
#[derive(Debug, Deserialize)]
struct QuestionFile {
    questions: Vec<MlQuestion>,
}

/// One question and the sections that answer it.
#[derive(Debug, Deserialize)]
struct MlQuestion {
    /// `<doc_lang>-<kind>-<n>`, unique in the file.
    id: String,
    /// The question's language: `zh`, `ja`, `ko` or `en`.
    lang: String,
    /// The language of the documents that answer it.
    doc_lang: String,
    /// One of [`KINDS`].
    kind: String,
    /// The question as a user would type it.
    q: String,
    /// The acceptable sections: a hit on any of them answers the question.
    gold: Vec<Gold>,
}

/// A section as the index holds it.
#[derive(Debug, Deserialize, Clone, PartialEq, Eq, Hash)]
struct Gold {
    /// Relative to the corpus directory, with `/`.
    path: String,
    /// The chunk's heading path (headings joined by ` › `).
    heading: String,
}

impl MlQuestion {
    fn answered_by(&self, path: &str, heading: &str) -> bool {
        self.gold.iter().any(|g| g.path == path && g.heading == heading)
    }

    fn same_language(&self) -> bool {
        SAME_LANGUAGE.contains(&self.kind.as_str())
    }
}

/// The corpus beside the repository: `$ROOT/../shared/data/corpora/cjkdocs`.
fn default_corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/corpora/cjkdocs")
}

/// Reads the questions and checks what the file can say about itself: known kinds and languages,
/// unique ids, a gold section for each, and a question language that fits its kind.
fn load(path: &Path) -> anyhow::Result<Vec<MlQuestion>> {
    let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    let file: QuestionFile = serde_json::from_str(&text).with_context(|| path.display().to_string())?;
    let mut ids = HashSet::new();
    for q in &file.questions {
        anyhow::ensure!(ids.insert(q.id.as_str()), "{}: duplicate id", q.id);
        anyhow::ensure!(KINDS.contains(&q.kind.as_str()), "{}: unknown kind {}", q.id, q.kind);
        anyhow::ensure!(LANGUAGES.contains(&q.doc_lang.as_str()), "{}: unknown doc_lang", q.id);
        anyhow::ensure!(!q.gold.is_empty(), "{}: no gold section", q.id);
        let lang_fits = match q.kind.as_str() {
            "english" => q.lang == "en",
            "cross" => LANGUAGES.contains(&q.lang.as_str()) && q.lang != q.doc_lang,
            _ => q.lang == q.doc_lang,
        };
        anyhow::ensure!(lang_fits, "{}: a {} question in {}", q.id, q.kind, q.lang);
    }
    Ok(file.questions)
}

/// Checks the index against the chunker and the questions against the index: every indexed file
/// holds as many chunks as `chunk_document` makes of it, and every gold section is among those
/// chunks. Returns the number of distinct sections (path and heading) indexed.
async fn verify(engine: &Engine, docs: &Path, questions: &[MlQuestion]) -> anyhow::Result<usize> {
    let files = engine.store().files().await?;
    let mut sections = HashSet::new();
    for (path, state) in files.iter() {
        let source = std::fs::read_to_string(docs.join(path)).with_context(|| path.clone())?;
        let document = chunk_document(path, &source);
        anyhow::ensure!(
            document.chunks.len() == state.chunks,
            "{path}: the index holds {} chunks, the chunker makes {}",
            state.chunks,
            document.chunks.len()
        );
        sections.extend(document.chunks.into_iter().map(|c| Gold {
            path: path.clone(),
            heading: c.heading,
        }));
    }
    let missing: Vec<String> = questions
        .iter()
        .flat_map(|q| q.gold.iter().map(move |g| (q, g)))
        .filter(|(_, g)| !sections.contains(*g))
        .map(|(q, g)| format!("{}: {} › {}", q.id, g.path, g.heading))
        .collect();
    anyhow::ensure!(
        missing.is_empty(),
        "gold sections not in the index ({} of them):\n{}",
        missing.len(),
        missing.join("\n")
    );
    Ok(sections.len())
}

/// The ranks of one mode, in question order.
type Ranks = Vec<Option<usize>>;

/// Scores of the questions that `keep` selects.
fn scores_where(questions: &[MlQuestion], ranks: &Ranks, keep: impl Fn(&MlQuestion) -> bool) -> Value {
    let picked: Ranks = questions
        .iter()
        .zip(ranks)
        .filter(|(q, _)| keep(q))
        .map(|(_, rank)| *rank)
        .collect();
    scores(&picked)
}

/// One mode's scores: overall, same- and cross-language, per kind, per question language, and
/// per document language (with its kinds).
fn breakdown(questions: &[MlQuestion], ranks: &Ranks) -> Value {
    let by = |keep: &dyn Fn(&MlQuestion) -> bool| scores_where(questions, ranks, keep);
    let per_kind = |lang: Option<&str>| -> Value {
        KINDS
            .iter()
            .map(|kind| {
                let value = by(&|q| q.kind == *kind && lang.is_none_or(|l| q.doc_lang == l));
                (kind.to_string(), value)
            })
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    let per_doc_lang: serde_json::Map<String, Value> = LANGUAGES
        .iter()
        .map(|lang| {
            let value = json!({
                "all": by(&|q| q.doc_lang == *lang),
                "same_language": by(&|q| q.doc_lang == *lang && q.same_language()),
                "cross_language": by(&|q| q.doc_lang == *lang && !q.same_language()),
                "per_kind": per_kind(Some(lang)),
            });
            (lang.to_string(), value)
        })
        .collect();
    let per_question_lang: serde_json::Map<String, Value> = ["zh", "ja", "ko", "en"]
        .iter()
        .map(|lang| (lang.to_string(), by(&|q| q.lang == *lang)))
        .collect();
    json!({
        "overall": by(&|_| true),
        "same_language": by(&|q| q.same_language()),
        "cross_language": by(&|q| !q.same_language()),
        "per_kind": per_kind(None),
        "per_doc_lang": per_doc_lang,
        "per_question_lang": per_question_lang,
    })
}

/// Issue 25's targets, read from the product ranking's figures. Each is a target for one model
/// (the same-language and English ones multilingual-e5-small's, the keyword one the default
/// English model's, where BM25 carries them); `applies` says whether `embedder` is that model.
fn targets(routed: &Value, embedder: &str) -> Value {
    let top1 = |v: &Value| v["top1"].as_f64().unwrap_or(0.0);
    let target = |value: f64, floor: f64, model: &str| {
        let applies = embedder == model || (model == "minilm" && embedder == "minilm-fp32");
        json!({"value": value, "met": value >= floor, "for": model, "applies": applies})
    };
    let mut out = serde_json::Map::new();
    for lang in LANGUAGES {
        let value = top1(&routed["per_doc_lang"][lang]["same_language"]);
        out.insert(
            format!("same_language_top1_{lang}_at_least_0.75"),
            target(value, 0.75, "multilingual-e5-small"),
        );
    }
    let english = top1(&routed["per_kind"]["english"]);
    out.insert(
        "english_top1_at_least_0.60".into(),
        target(english, 0.60, "multilingual-e5-small"),
    );
    let keyword = top1(&routed["per_kind"]["keyword"]);
    out.insert("keyword_top1_at_least_0.80".into(), target(keyword, 0.80, "minilm"));
    Value::Object(out)
}

/// The results as a Markdown table: per document language, its five kinds and its same- and
/// cross-language rows; then every language together.
pub fn table(result: &Value) -> String {
    let modes = &result["modes"];
    let cell = |v: &Value, what: &str| v[what].as_f64().map_or("-".into(), |x| format!("{x:.2}"));
    let mut out = format!(
        "{} on {} questions ({} build): top-1, recall@5 and MRR of the product search (hybrid), \
         top-1 of each pool alone\n\n",
        result["embedder"].as_str().unwrap_or_default(),
        result["questions"],
        result["machine"]["profile"].as_str().unwrap_or_default(),
    );
    out.push_str("| documents | questions | n | top-1 | recall@5 | MRR | dense top-1 | BM25 top-1 |\n");
    out.push_str("|---|---|---|---|---|---|---|---|\n");
    let mut row = |docs: &str, what: &str, pick: &dyn Fn(&Value) -> Value| {
        let hybrid = pick(&modes["routed"]);
        let _ = writeln!(
            out,
            "| {docs} | {what} | {} | {} | {} | {} | {} | {} |",
            hybrid["n"],
            cell(&hybrid, "top1"),
            cell(&hybrid, "recall5"),
            cell(&hybrid, "mrr"),
            cell(&pick(&modes["dense"]), "top1"),
            cell(&pick(&modes["bm25"]), "top1"),
        );
    };
    for lang in LANGUAGES {
        for kind in KINDS {
            row(lang, kind, &|m| m["per_doc_lang"][lang]["per_kind"][kind].clone());
        }
        row(lang, "**same-language**", &|m| {
            m["per_doc_lang"][lang]["same_language"].clone()
        });
        row(lang, "**cross-language**", &|m| {
            m["per_doc_lang"][lang]["cross_language"].clone()
        });
    }
    for kind in KINDS {
        row("all", kind, &|m| m["per_kind"][kind].clone());
    }
    row("all", "**same-language**", &|m| m["same_language"].clone());
    row("all", "**cross-language**", &|m| m["cross_language"].clone());
    row("all", "**overall**", &|m| m["overall"].clone());
    out.push('\n');
    // Only this model's targets: the others are about another model and read as noise here.
    if let Some(targets) = result["targets"].as_object() {
        for (name, v) in targets.iter().filter(|(_, v)| v["applies"] == json!(true)) {
            let met = if v["met"] == json!(true) { "met" } else { "not met" };
            let _ = writeln!(out, "- target {name}: {met} ({})", v["value"]);
        }
    }
    out
}

/// Runs the workload and returns its results.
pub async fn run(args: &Args) -> anyhow::Result<Value> {
    let corpus = args.corpus.clone().unwrap_or_else(default_corpus);
    let questions_path = args
        .questions
        .clone()
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("data/cjk-questions.json"));
    let questions = load(&questions_path)?;
    anyhow::ensure!(corpus.is_dir(), "no corpus at {}", corpus.display());

    // A copy, so the index's own files never land beside documents others share.
    let work = tempfile::tempdir()?;
    let docs = work.path().join("cjkdocs");
    crate::copy_docs(&corpus, &docs, 1)?;
    let name = args.embedder.clone();
    let embedder = tokio::task::spawn_blocking(move || bench::harness::embedder(&name, None, None, None)).await??;
    let (engine, index_ms) = retrieval::index(&docs, work.path(), "cjk", embedder.clone()).await?;
    let sections = verify(&engine, &docs, &questions).await?;
    let chunks = engine.store().count().await?;
    eprintln!("{} questions, {sections} sections in {chunks} chunks", questions.len());

    let mut ranks: BTreeMap<&str, Ranks> = BTreeMap::new();
    let mut misses = Vec::new();
    for mode in MODES {
        let options = mode_options(mode);
        for q in &questions {
            let (rank, top) = rank_of(&engine, &q.q, &options, |c| q.answered_by(&c.path, &c.heading)).await?;
            if mode == "routed" && rank != Some(1) {
                misses.push(json!({"id": q.id, "q": q.q, "rank": rank, "top": top}));
            }
            ranks.entry(mode).or_default().push(rank);
        }
    }
    if let Some(path) = &args.misses {
        let lines: Vec<String> = misses.iter().map(Value::to_string).collect();
        std::fs::write(path, lines.join("\n") + "\n").with_context(|| path.display().to_string())?;
    }

    let modes: serde_json::Map<String, Value> = ranks
        .iter()
        .map(|(mode, r)| (mode.to_string(), breakdown(&questions, r)))
        .collect();
    let per_question: serde_json::Map<String, Value> = questions
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let by_mode: serde_json::Map<String, Value> = MODES
                .iter()
                .map(|mode| (mode.to_string(), json!(ranks[mode][i])))
                .collect();
            (q.id.clone(), Value::Object(by_mode))
        })
        .collect();
    Ok(json!({
        "workload": "multilingual",
        "embedder": embedder.index_name(),
        "corpus": {"dir": corpus.display().to_string(), "files": engine.store().files().await?.len(),
                   "sections": sections, "chunks": chunks},
        "questions_file": questions_path.display().to_string(),
        "questions": questions.len(),
        "index_ms": index_ms.round(),
        "limit": LIMIT,
        "targets": targets(&modes["routed"], &args.embedder),
        "modes": modes,
        "ranks": per_question,
        "machine": bench::harness::machine(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed set loads, and holds at least 8 questions of every kind for every language.
    #[test]
    fn the_committed_set_covers_every_language_and_kind() {
        let path = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("data/cjk-questions.json");
        let questions = load(&path).expect("the committed set loads");
        for lang in LANGUAGES {
            for kind in KINDS {
                let n = questions
                    .iter()
                    .filter(|q| q.doc_lang == lang && q.kind == kind)
                    .count();
                assert!(n >= 8, "{lang} {kind}: {n} questions");
            }
        }
    }

    fn question(id: &str, gold: &[(&str, &str)]) -> MlQuestion {
        MlQuestion {
            id: id.into(),
            lang: "ja".into(),
            doc_lang: "ja".into(),
            kind: "keyword".into(),
            q: "環境変数".into(),
            gold: gold
                .iter()
                .map(|(path, heading)| Gold {
                    path: path.to_string(),
                    heading: heading.to_string(),
                })
                .collect(),
        }
    }

    /// A gold section the index holds passes and is found by search; a heading the index does
    /// not hold stops the run, naming the question.
    #[tokio::test(flavor = "multi_thread")]
    async fn verify_accepts_indexed_sections_and_names_a_missing_one() {
        let work = tempfile::tempdir().unwrap();
        let docs = work.path().join("docs");
        std::fs::create_dir_all(docs.join("guide")).unwrap();
        std::fs::write(
            docs.join("guide/env.md"),
            "# 環境変数とモード\n\n概要。\n\n## 環境変数\n\nVITE_ で始まる変数だけが公開されます。\n",
        )
        .unwrap();
        std::fs::write(docs.join("other.md"), "# 別の話\n\n関係のない文章。\n").unwrap();
        let embedder = bench::harness::embedder("hash", None, None, None).unwrap();
        let (engine, _) = retrieval::index(&docs, work.path(), "test", embedder).await.unwrap();

        let good = question("ja-kw-01", &[("guide/env.md", "環境変数とモード › 環境変数")]);
        assert_eq!(verify(&engine, &docs, &[good]).await.unwrap(), 3);
        let q = question("ja-id-01", &[("guide/env.md", "環境変数とモード › 環境変数")]);
        let (rank, _) = rank_of(&engine, "VITE_", &mode_options("bm25"), |c| {
            q.answered_by(&c.path, &c.heading)
        })
        .await
        .unwrap();
        assert_eq!(rank, Some(1));

        let renamed_heading = "環境変数とモード › 環境変數";
        let renamed = question("ja-kw-02", &[("guide/env.md", renamed_heading)]);
        let error = verify(&engine, &docs, &[renamed]).await.unwrap_err().to_string();
        assert!(
            error.contains(&format!("ja-kw-02: guide/env.md › {renamed_heading}")),
            "{error}"
        );
    }

    /// Same- and cross-language split by kind, and each group is scored on its own questions.
    #[test]
    fn breakdown_splits_same_and_cross_language() {
        let q = |id: &str, lang: &str, kind: &str| MlQuestion {
            id: id.into(),
            lang: lang.into(),
            doc_lang: "zh".into(),
            kind: kind.into(),
            q: String::new(),
            gold: Vec::new(),
        };
        let questions = vec![q("a", "zh", "keyword"), q("b", "en", "english"), q("c", "ja", "cross")];
        let ranks = vec![Some(1), Some(2), None];
        let b = breakdown(&questions, &ranks);
        assert_eq!(b["same_language"]["top1"], json!(1.0));
        assert_eq!(b["cross_language"]["n"], json!(2));
        assert_eq!(b["cross_language"]["mrr"], json!(0.25));
        assert_eq!(b["per_doc_lang"]["zh"]["per_kind"]["english"]["recall5"], json!(1.0));
        assert_eq!(b["per_question_lang"]["ja"]["top1"], json!(0.0));
    }
}
