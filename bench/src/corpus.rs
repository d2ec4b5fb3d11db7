//! The runbook corpus: 30 synthetic service runbooks in Markdown and 240 questions about them, made
//! deterministically the way mcp-ragdown's `scripts/bench/gen.ts` makes its corpus. Retrieval
//! benchmarks index the documents and ask the questions.
//!
//! This module owns generation and the Markdown render. It does no indexing, embedding or scoring,
//! and it reads no files at run time: the question templates and off-topic prompts are embedded
//! copies of `bench/data/*.json`.
//!
//! What follows mcp-ragdown's generator: the LCG in `f64` arithmetic and its `pick`, `int` and
//! `shuffle`; the module-level draws (causes, names, roles) and their order; per document the draws
//! in the order its write-up gives (team, year, language, two approvers, five config rows, two
//! ports, eight commands shuffled into 6 production and 4 staging steps, 3-4 dependencies with
//! versions, 2 incidents, a deploy window), then the question draws, then the draws of
//! mcp-ragdown's edit tasks, which are not built here but are consumed so the stream stays in step;
//! the front matter, the 7 sections and their heading paths; the question templates, ids and
//! fields. The value ranges of the draws (replicas 1-4 and 6-48, timeouts, batch sizes, memory and
//! DB class indices, version parts, incident dates, the edit tasks' draws) were read from
//! mcp-ragdown's public source (gen.ts @df60166a), as behaviour, not from the write-up.
//!
//! Invented here, because neither mcp-ragdown's benchmark write-up nor the JSON gives them; the
//! output is therefore **not** byte-identical to mcp-ragdown's corpus, only built the same way:
//! - every word list: the 30 birds (only "Kestrel" and the role "Ingest" come from the JSON's
//!   example), the 10 roles and their one-line purposes, the 10 teams, the 7 languages, the 20
//!   first and 16 last names, the 10 × 6 incident-cause halves, the 10 memory limits, the 8 DB
//!   instance classes, the 4 deploy windows, the 8 dependencies and their purposes;
//! - the 8 `veltra` commands (subcommands and arguments);
//! - every sentence: the two Overview paragraphs, the Configuration, Staging, Production and
//!   Troubleshooting lead paragraphs, the `Run `cmd`.` list items, the three shell lines of the
//!   troubleshooting block (only the `healthz` check on the health port and a metrics call on the
//!   metrics port follow the write-up), and the incident line `<date>: Outage caused by <cause>.`;
//! - the Markdown details the write-up leaves open: one blank line between blocks, the table's
//!   `|---|---|---|` rule, dependencies as `- **name**` with `  - version:` and `  - purpose:`
//!   items, `sh` as the fence language, and incident dates as `20YY-MM-DD`;
//! - `Question::section` is the heading path under the title ("Deployment › Staging"), as this
//!   port's API asks, where mcp-ragdown stores the section key ("deploy-staging"); unanswerable
//!   questions have "" where mcp-ragdown has null.
//!
//! Two more question sets, which the product page measures on its generated corpora but whose
//! generator is not public, are built here without drawing from the generator (so the 240 stay as
//! they are): 30 identifier questions, one per document, that quote a name only one section holds
//! (an on-call channel, a production-only deploy command, a log command, a metrics URL), and 30
//! alias questions that ask one of the document's own questions with a codename alias (written into
//! the front matter by [`write_aliased_markdown`]) in place of its title.

use std::path::Path;

use ragdownd::markdown::HEADING_SEPARATOR;
use serde::Serialize;
use words::{
    BIRDS, CAUSE_A, CAUSE_B, CODENAMES, DB_CLASSES, DEPENDENCIES, FIRST_NAMES, LANGUAGES, LAST_NAMES, MEMORY_LIMITS,
    ROLES, TEAMS, WINDOWS,
};

mod render;
mod words;

/// mcp-ragdown's question templates, one per question type, with `${…}` placeholders.
const TEMPLATES_JSON: &str = include_str!("../data/question-templates.json");

/// Ten prompts that no runbook answers, for the threshold and gate benchmarks.
const OFF_TOPIC_JSON: &str = include_str!("../data/off-topic-prompts.json");

/// One generated runbook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CorpusDoc {
    /// Lowercase `<bird>-<role>`: the file name without `.md`, and `Question::doc`.
    pub slug: String,
    /// `<Bird> <Role>`: the front matter title and the H1.
    pub title: String,
    /// The whole file: front matter, H1 and the seven sections.
    pub markdown: String,
    /// A codename for the alias questions; only [`write_aliased_markdown`] writes it.
    pub alias: String,
}

impl CorpusDoc {
    /// The file with `aliases: [<alias>]` added to its front matter.
    pub fn aliased_markdown(&self) -> String {
        self.markdown
            .replacen("\n---\n", &format!("\naliases: [{}]\n---\n", self.alias), 1)
    }
}

/// One benchmark question with the answers that count as right.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Question {
    /// `<slug>:<type>`.
    pub id: String,
    /// One of the eight question types, e.g. `table-cell`; serialised as `type`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The slug of the document the question is about.
    pub doc: String,
    /// The heading path of the gold section under the title, e.g. `Deployment › Production`;
    /// empty for an unanswerable question.
    pub section: String,
    /// The question text.
    pub q: String,
    /// Accepted answers; `NOT FOUND` for an unanswerable question.
    pub gold: Vec<String>,
    /// Whether the answer is a number (step numbers, ports).
    pub numeric: bool,
}

/// The documents and their questions, in generation order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Corpus {
    /// One runbook per bird, 30 in all.
    pub docs: Vec<CorpusDoc>,
    /// Eight per document in a fixed type order, 240 in all.
    pub questions: Vec<Question>,
    /// One per document, type `identifier`: a quoted name that only the gold section holds.
    pub identifier_questions: Vec<Question>,
    /// One per document, type `alias`: a question of the document's, by its alias.
    pub alias_questions: Vec<Question>,
}

/// Generates the corpus. Every call returns the same corpus.
pub fn generate() -> Corpus {
    let templates: serde_json::Value =
        serde_json::from_str(TEMPLATES_JSON).expect("embedded question templates are valid JSON");
    let mut rng = Lcg::new();
    let mut causes = rng.shuffle(&cross(CAUSE_A, CAUSE_B));
    let mut names = rng.shuffle(&cross(FIRST_NAMES, LAST_NAMES));
    let roles: Vec<&str> = (0..BIRDS.len()).map(|i| ROLES[i % ROLES.len()].0).collect();
    let roles = rng.shuffle(&roles);

    let mut corpus = Corpus {
        docs: Vec::with_capacity(BIRDS.len()),
        questions: Vec::with_capacity(BIRDS.len() * 8),
        identifier_questions: Vec::with_capacity(BIRDS.len()),
        alias_questions: Vec::with_capacity(BIRDS.len()),
    };
    for (i, (bird, role)) in BIRDS.iter().zip(roles).enumerate() {
        let runbook = Runbook::draw(&mut rng, bird, role, &mut names, &mut causes);
        let questions = runbook.questions(&mut rng, &templates);
        let alias = CODENAMES[i].to_string();
        corpus.identifier_questions.push(runbook.identifier_question(i));
        corpus
            .alias_questions
            .push(alias_question(&questions, &runbook.title, &alias, i));
        corpus.questions.extend(questions);
        runbook.skip_edit_task_draws(&mut rng, &mut names);
        corpus.docs.push(CorpusDoc {
            markdown: runbook.markdown(),
            slug: runbook.slug,
            title: runbook.title,
            alias,
        });
    }
    corpus
}

/// Writes each document as `<dir>/<slug>.md`, creating `dir` first. Only the Markdown is written.
pub fn write_markdown(corpus: &Corpus, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for doc in &corpus.docs {
        std::fs::write(dir.join(format!("{}.md", doc.slug)), &doc.markdown)?;
    }
    Ok(())
}

/// Writes each document as `<dir>/<slug>.md` with its alias in the front matter.
pub fn write_aliased_markdown(corpus: &Corpus, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for doc in &corpus.docs {
        std::fs::write(dir.join(format!("{}.md", doc.slug)), doc.aliased_markdown())?;
    }
    Ok(())
}

/// The question kinds that name the document by its title, which an alias question reuses.
const TITLED_KINDS: [&str; 6] = [
    "prose-owner",
    "table-cell",
    "scoped-section",
    "nested-list",
    "ordered-step",
    "code-block",
];

/// Document `i`'s question of kind `TITLED_KINDS[i % 6]`, asked by its alias.
fn alias_question(questions: &[Question], title: &str, alias: &str, i: usize) -> Question {
    let kind = TITLED_KINDS[i % TITLED_KINDS.len()];
    let original = questions
        .iter()
        .find(|q| q.kind == kind)
        .expect("every document has one question of each kind");
    assert!(
        original.q.contains(title),
        "{}: the title is in the question",
        original.id
    );
    Question {
        id: format!("{}:alias-{kind}", original.doc),
        kind: "alias".into(),
        q: original.q.replace(title, alias),
        ..original.clone()
    }
}

/// mcp-ragdown's ten off-topic prompts.
pub fn off_topic_prompts() -> Vec<String> {
    serde_json::from_str(OFF_TOPIC_JSON).expect("embedded off-topic prompts are a JSON array of strings")
}

/// The seven leaf sections in document order: the templates' section key and the heading path
/// below the title. `Deployment` has no text of its own, so it makes no chunk.
const SECTIONS: [(&str, &[&str]); 7] = [
    ("overview", &["Overview"]),
    ("config", &["Configuration"]),
    ("deploy-staging", &["Deployment", "Staging"]),
    ("deploy-production", &["Deployment", "Production"]),
    ("deps", &["Dependencies"]),
    ("troubleshooting", &["Troubleshooting"]),
    ("incidents", &["Incidents"]),
];

/// The heading path of the section with template key `key`, joined as the chunker joins it.
fn section_path(key: &str) -> String {
    let (_, path) = SECTIONS.iter().find(|(k, _)| *k == key).expect("a known section key");
    path.join(HEADING_SEPARATOR)
}

/// mcp-ragdown's generator: a linear congruential generator evaluated in `f64`, as JavaScript
/// does. The product exceeds 2^53 and is rounded before the modulo, so exact integer arithmetic
/// would give a different stream.
#[derive(Debug, Clone)]
struct Lcg {
    seed: f64,
}

impl Lcg {
    fn new() -> Self {
        Lcg { seed: 1_234_567.0 }
    }

    /// The next value in [0, 1).
    fn next(&mut self) -> f64 {
        // `%` on f64 is fmod, like JavaScript's `%`; Rust never fuses the multiply and the add.
        self.seed = (self.seed * 1_103_515_245.0 + 12_345.0) % 2_147_483_648.0;
        self.seed / 2_147_483_648.0
    }

    /// `floor(rnd() * len)`.
    fn below(&mut self, len: usize) -> usize {
        (self.next() * len as f64).floor() as usize
    }

    /// `a[floor(rnd() * a.length)]`.
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// `lo + floor(rnd() * (hi - lo + 1))`: an integer in `lo..=hi`.
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() * (hi - lo + 1) as f64).floor() as i64
    }

    /// An index in `lo..=hi` drawn with [`Lcg::int`].
    fn index(&mut self, lo: usize, hi: usize) -> usize {
        self.int(lo as i64, hi as i64) as usize
    }

    /// A shuffled copy: Fisher-Yates from the end, `j = floor(rnd() * (i + 1))`.
    fn shuffle<T: Clone>(&mut self, items: &[T]) -> Vec<T> {
        let mut out = items.to_vec();
        for i in (1..out.len()).rev() {
            let j = self.below(i + 1);
            out.swap(i, j);
        }
        out
    }
}

/// Every `<a> <b>`, `a` major.
fn cross(first: &[&str], second: &[&str]) -> Vec<String> {
    first
        .iter()
        .flat_map(|a| second.iter().map(move |b| format!("{a} {b}")))
        .collect()
}

/// One row of the Configuration table.
#[derive(Debug, Clone)]
struct ConfigRow {
    name: &'static str,
    staging: String,
    production: String,
}

/// One entry of the Dependencies list.
#[derive(Debug, Clone)]
struct Dependency {
    name: &'static str,
    version: String,
    purpose: &'static str,
}

/// One line of the Incidents list.
#[derive(Debug, Clone)]
struct Incident {
    date: String,
    cause: String,
}

/// Everything drawn for one document, before it is rendered.
#[derive(Debug, Clone)]
struct Runbook {
    slug: String,
    title: String,
    role: &'static str,
    team: &'static str,
    year: i64,
    language: &'static str,
    approver_staging: String,
    approver_production: String,
    config: Vec<ConfigRow>,
    health_port: i64,
    metrics_port: i64,
    production_steps: Vec<String>,
    staging_steps: Vec<String>,
    dependencies: Vec<Dependency>,
    incidents: Vec<Incident>,
    window: &'static str,
}

impl Runbook {
    /// Draws one document's facts, in mcp-ragdown's order.
    fn draw(rng: &mut Lcg, bird: &str, role: &'static str, names: &mut Vec<String>, causes: &mut Vec<String>) -> Self {
        let title = format!("{bird} {role}");
        let slug = format!("{bird}-{role}").to_lowercase();
        let team = *rng.pick(TEAMS);
        let year = rng.int(2014, 2023);
        let language = *rng.pick(LANGUAGES);
        let approver_staging = pop_name(names);
        let approver_production = pop_name(names);
        let config = draw_config(rng);
        let health_port = rng.int(8000, 8999);
        let metrics_port = rng.int(9000, 9999);
        let mut production_steps = rng.shuffle(&commands(&slug, team));
        production_steps.truncate(6);
        let mut staging_steps = rng.shuffle(&production_steps);
        staging_steps.truncate(4);
        let mut dependencies = rng.shuffle(DEPENDENCIES);
        dependencies.truncate(rng.index(3, 4));
        let dependencies = dependencies
            .into_iter()
            .map(|(name, purpose)| Dependency {
                name,
                version: draw_version(rng),
                purpose,
            })
            .collect();
        let incidents = (0..2)
            .map(|_| Incident {
                date: format!("20{}-{:02}-{:02}", rng.int(21, 25), rng.int(1, 12), rng.int(1, 28)),
                cause: causes.pop().expect("60 causes cover 2 per document"),
            })
            .collect();
        let window = *rng.pick(WINDOWS);
        Runbook {
            slug,
            title,
            role,
            team,
            year,
            language,
            approver_staging,
            approver_production,
            config,
            health_port,
            metrics_port,
            production_steps,
            staging_steps,
            dependencies,
            incidents,
            window,
        }
    }

    /// The document's eight questions, one per type, with their draws in mcp-ragdown's order.
    fn questions(&self, rng: &mut Lcg, templates: &serde_json::Value) -> Vec<Question> {
        let title = self.title.as_str();
        let mut out = Vec::with_capacity(8);
        let mut add = |kind: &str, key: Option<&str>, q: String, gold: Vec<String>, numeric: bool| {
            out.push(Question {
                id: format!("{}:{kind}", self.slug),
                kind: kind.to_owned(),
                doc: self.slug.clone(),
                section: key.map(section_path).unwrap_or_default(),
                q,
                gold,
                numeric,
            });
        };

        let q = fill(template(templates, "prose-owner"), &[("title", title)]);
        add("prose-owner", Some("overview"), q, vec![self.team.to_owned()], false);

        let row = rng.pick(&self.config);
        let staging = rng.next() < 0.5;
        let (env, value) = if staging {
            ("staging", &row.staging)
        } else {
            ("production", &row.production)
        };
        let name = row.name.to_lowercase();
        let q = fill(
            template(templates, "table-cell"),
            &[
                ("staging|production", env),
                ("row_name_lowercased", &name),
                ("title", title),
            ],
        );
        add("table-cell", Some("config"), q, vec![value.clone()], false);

        let production = rng.next() < 0.5;
        let (key, env, approver) = if production {
            ("deploy-production", "production", &self.approver_production)
        } else {
            ("deploy-staging", "staging", &self.approver_staging)
        };
        let q = fill(
            template(templates, "scoped-section"),
            &[("production|staging", env), ("title", title)],
        );
        add("scoped-section", Some(key), q, vec![approver.clone()], false);

        let dependency = rng.pick(&self.dependencies);
        let q = fill(
            template(templates, "nested-list"),
            &[("dep", dependency.name), ("title", title)],
        );
        add("nested-list", Some("deps"), q, vec![dependency.version.clone()], false);

        // A staging step is always a production step too, so it has a number in either list.
        let shared = &self.staging_steps[rng.index(0, 3)];
        let production = rng.next() < 0.5;
        let (key, env, steps) = if production {
            ("deploy-production", "production", &self.production_steps)
        } else {
            ("deploy-staging", "staging", &self.staging_steps)
        };
        let number = steps
            .iter()
            .position(|step| step == shared)
            .expect("the step is listed")
            + 1;
        let q = fill(
            template(templates, "ordered-step"),
            &[("production|staging", env), ("title", title), ("cmd", shared)],
        );
        add("ordered-step", Some(key), q, vec![number.to_string()], true);

        let q = fill(template(templates, "code-block"), &[("title", title)]);
        add(
            "code-block",
            Some("troubleshooting"),
            q,
            vec![self.health_port.to_string()],
            true,
        );

        let incident = rng.pick(&self.incidents);
        let q = fill(template(templates, "reverse-lookup"), &[("cause", &incident.cause)]);
        add("reverse-lookup", Some("incidents"), q, vec![self.title.clone()], false);

        let q = fill(template(templates, "unanswerable"), &[("title", title)]);
        let gold = templates["unanswerable"]["gold"]
            .as_array()
            .expect("the unanswerable template has a gold list")
            .iter()
            .map(|g| g.as_str().expect("gold answers are strings").to_owned())
            .collect();
        add("unanswerable", None, q, gold, false);
        out
    }

    /// Document `i`'s identifier question: one of four kinds in turn, each quoting a name that
    /// only one section of this document holds, and never the title.
    fn identifier_question(&self, i: usize) -> Question {
        let (key, q, gold) = match i % 4 {
            0 => (
                "overview",
                format!("Which team is paged through `#{}-oncall`?", self.slug),
                self.team.to_owned(),
            ),
            1 => {
                let (number, cmd) = self
                    .production_steps
                    .iter()
                    .enumerate()
                    .find(|(_, step)| !self.staging_steps.contains(step) && step.contains(&self.slug))
                    .expect("a production-only step names the service (only `announce` does not)");
                (
                    "deploy-production",
                    format!("Which step number runs `{cmd}`?"),
                    (number + 1).to_string(),
                )
            }
            2 => (
                "troubleshooting",
                format!(
                    "How many lines does `kubectl logs deploy/{} --since=1h` keep?",
                    self.slug
                ),
                "50".to_owned(),
            ),
            _ => (
                "troubleshooting",
                format!(
                    "What does the check on `http://localhost:{}/metrics` grep for?",
                    self.metrics_port
                ),
                "queue_depth".to_owned(),
            ),
        };
        Question {
            id: format!("{}:identifier", self.slug),
            kind: "identifier".into(),
            doc: self.slug.clone(),
            section: section_path(key),
            q,
            gold: vec![gold],
            numeric: i % 4 == 1,
        }
    }

    /// Consumes the draws of mcp-ragdown's three edit tasks for this document (a new production
    /// replica count, a new dependency version, a new staging approver) without building them.
    fn skip_edit_task_draws(&self, rng: &mut Lcg, names: &mut Vec<String>) {
        rng.int(49, 99);
        draw_version(rng);
        pop_name(names);
    }
}

/// The five configuration rows, each drawn as staging then production.
fn draw_config(rng: &mut Lcg) -> Vec<ConfigRow> {
    let row = |name, staging: String, production: String| ConfigRow {
        name,
        staging,
        production,
    };
    let replicas = row("Replicas", rng.int(1, 4).to_string(), rng.int(6, 48).to_string());
    let low = rng.index(0, 4);
    let high = rng.index(low + 2, MEMORY_LIMITS.len() - 1);
    let memory = row(
        "Memory limit",
        MEMORY_LIMITS[low].to_owned(),
        MEMORY_LIMITS[high].to_owned(),
    );
    let timeout = row(
        "Queue timeout",
        format!("{}s", rng.int(2, 9) * 5),
        format!("{}s", rng.int(10, 36) * 5),
    );
    let batch = row(
        "Max batch size",
        (rng.int(1, 9) * 50).to_string(),
        (rng.int(10, 80) * 50).to_string(),
    );
    let low = rng.index(0, 3);
    let high = rng.index(low + 2, DB_CLASSES.len() - 1);
    let db = row(
        "DB instance class",
        DB_CLASSES[low].to_owned(),
        DB_CLASSES[high].to_owned(),
    );
    vec![replicas, memory, timeout, batch, db]
}

/// A version `a.b.c`.
fn draw_version(rng: &mut Lcg) -> String {
    format!("{}.{}.{}", rng.int(3, 17), rng.int(0, 9), rng.int(0, 12))
}

fn pop_name(names: &mut Vec<String>) -> String {
    names.pop().expect("320 names cover 3 per document")
}

/// The eight deploy commands of one service, before shuffling.
fn commands(slug: &str, team: &str) -> Vec<String> {
    vec![
        format!("veltra build {slug}"),
        format!("veltra test {slug} --suite=integration"),
        format!("veltra migrate {slug} --apply"),
        format!("veltra backup db-{slug}"),
        format!("veltra rollout {slug} --canary=10"),
        format!("veltra verify {slug}"),
        format!("veltra cordon {slug}"),
        format!("veltra announce #{}-releases", team.to_lowercase()),
    ]
}

fn ordered_list(steps: &[String]) -> String {
    steps
        .iter()
        .enumerate()
        .map(|(i, step)| format!("{}. Run `{step}`.", i + 1))
        .collect::<Vec<_>>()
        .join("\n")
}

fn purpose(role: &str) -> &'static str {
    ROLES
        .iter()
        .find(|(r, _)| *r == role)
        .map(|(_, p)| *p)
        .expect("a known role")
}

/// The `q` template of a question type.
fn template<'a>(templates: &'a serde_json::Value, kind: &str) -> &'a str {
    templates[kind]["q"]
        .as_str()
        .expect("a question template for every type")
}

/// Replaces each `${name}` in `template` by its value; every placeholder must be filled.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = template.to_owned();
    for (name, value) in values {
        out = out.replace(&format!("${{{name}}}"), value);
    }
    assert!(!out.contains("${"), "unfilled placeholder in {template:?}");
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use ragdownd::markdown::chunker::chunk_document;

    use super::*;

    fn answerable(corpus: &Corpus) -> impl Iterator<Item = &Question> {
        corpus.questions.iter().filter(|q| q.kind != "unanswerable")
    }

    fn doc_of<'a>(corpus: &'a Corpus, q: &Question) -> &'a CorpusDoc {
        corpus
            .docs
            .iter()
            .find(|d| d.slug == q.doc)
            .expect("the question's document exists")
    }

    #[test]
    fn rng_matches_javascript_doubles() {
        // Computed with Python floats (IEEE doubles, as in JavaScript):
        //   s = 1234567.0; s = math.fmod(s * 1103515245.0 + 12345.0, 2147483648.0); s / 2147483648.0
        let expected = [
            0.9437458161264658,
            0.5005276203155518,
            0.56178879737854,
            0.3774406909942627,
            0.5955088138580322,
            0.6242115497589111,
        ];
        let mut rng = Lcg::new();
        let got: Vec<f64> = (0..expected.len()).map(|_| rng.next()).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn shuffle_int_and_pick_match_the_reference_formulas() {
        // Python, from a fresh generator: Fisher-Yates over range(6) from the end with
        // j = floor(rnd() * (i + 1)), then 1 + floor(rnd() * 6) five times, then
        // "abcdefg"[floor(rnd() * 7)] five times.
        let mut rng = Lcg::new();
        assert_eq!(rng.shuffle(&[0, 1, 2, 3, 4, 5]), [0, 3, 1, 4, 2, 5]);
        let ints: Vec<i64> = (0..5).map(|_| rng.int(1, 6)).collect();
        assert_eq!(ints, [4, 2, 6, 3, 3]);
        let letters = ["a", "b", "c", "d", "e", "f", "g"];
        let picks: Vec<&str> = (0..5).map(|_| *rng.pick(&letters)).collect();
        assert_eq!(picks, ["c", "d", "f", "a", "c"]);
    }

    #[test]
    fn generation_is_deterministic() {
        assert_eq!(generate(), generate());
    }

    #[test]
    fn thirty_documents_and_240_questions() {
        let corpus = generate();
        assert_eq!(corpus.docs.len(), 30);
        assert_eq!(corpus.questions.len(), 240);
        assert_eq!(answerable(&corpus).count(), 210);

        let kinds = [
            "prose-owner",
            "table-cell",
            "scoped-section",
            "nested-list",
            "ordered-step",
            "code-block",
            "reverse-lookup",
            "unanswerable",
        ];
        for (doc, questions) in corpus.docs.iter().zip(corpus.questions.chunks(8)) {
            let got: Vec<&str> = questions.iter().map(|q| q.kind.as_str()).collect();
            assert_eq!(got, kinds);
            for q in questions {
                assert_eq!(q.doc, doc.slug);
                assert_eq!(q.id, format!("{}:{}", doc.slug, q.kind));
                assert_eq!(q.numeric, matches!(q.kind.as_str(), "ordered-step" | "code-block"));
                let unanswerable = q.kind == "unanswerable";
                assert_eq!(q.section.is_empty(), unanswerable, "{}", q.id);
                assert_eq!(q.gold == ["NOT FOUND"], unanswerable, "{}", q.id);
            }
        }
        let ids: HashSet<&str> = corpus.questions.iter().map(|q| q.id.as_str()).collect();
        assert_eq!(ids.len(), 240);
        let slugs: HashSet<&str> = corpus.docs.iter().map(|d| d.slug.as_str()).collect();
        assert_eq!(slugs.len(), 30);
    }

    #[test]
    fn documents_have_front_matter_and_every_role_three_times() {
        let corpus = generate();
        let mut roles = std::collections::HashMap::new();
        for doc in &corpus.docs {
            let (bird, role) = doc.title.split_once(' ').expect("a two-word title");
            assert_eq!(doc.slug, format!("{bird}-{role}").to_lowercase());
            let head = format!(
                "---\ntitle: {}\ntags: [runbook, {}]\n---\n# {}\n\n## Overview\n\n",
                doc.title,
                role.to_lowercase(),
                doc.title
            );
            assert!(doc.markdown.starts_with(&head), "{}", doc.markdown);
            *roles.entry(role).or_insert(0) += 1;
        }
        assert_eq!(roles.len(), 10);
        assert!(roles.values().all(|&n| n == 3));
    }

    #[test]
    fn every_gold_section_is_a_heading_of_its_document() {
        let corpus = generate();
        for q in answerable(&corpus) {
            let doc = doc_of(&corpus, q);
            for (depth, name) in q.section.split(HEADING_SEPARATOR).enumerate() {
                let heading = format!("{} {name}", "#".repeat(depth + 2));
                assert!(doc.markdown.lines().any(|l| l == heading), "{}: no {heading:?}", q.id);
            }
        }
    }

    #[test]
    fn the_chunker_makes_seven_chunks_per_document_under_the_gold_headings() {
        let corpus = generate();
        let mut total = 0;
        for doc in &corpus.docs {
            let chunked = chunk_document(&format!("{}.md", doc.slug), &doc.markdown);
            assert_eq!(chunked.title, doc.title);
            let headings: Vec<&str> = chunked.chunks.iter().map(|c| c.heading.as_str()).collect();
            let expected: Vec<String> = SECTIONS
                .iter()
                .map(|(key, _)| format!("{}{HEADING_SEPARATOR}{}", doc.title, section_path(key)))
                .collect();
            assert_eq!(headings, expected, "{}", doc.slug);
            total += chunked.chunks.len();

            for q in answerable(&corpus).filter(|q| q.doc == doc.slug) {
                let gold = format!("{}{HEADING_SEPARATOR}{}", doc.title, q.section);
                assert!(headings.contains(&gold.as_str()), "{}: no chunk under {gold:?}", q.id);
            }
        }
        assert_eq!(total, 210);
    }

    #[test]
    fn gold_answers_are_in_the_gold_chunk() {
        let corpus = generate();
        for q in answerable(&corpus) {
            let doc = doc_of(&corpus, q);
            let chunked = chunk_document(&format!("{}.md", doc.slug), &doc.markdown);
            let heading = format!("{}{HEADING_SEPARATOR}{}", doc.title, q.section);
            let chunk = chunked
                .chunks
                .iter()
                .find(|c| c.heading == heading)
                .expect("gold chunk");
            let needle = match q.kind.as_str() {
                // The answer is the title; the cause is what ties the chunk to it.
                "reverse-lookup" => {
                    let cause = q.q.split("caused by ").nth(1).expect("a cause").trim_end_matches('?');
                    format!("Outage caused by {cause}.")
                }
                "ordered-step" => {
                    let cmd = q.q.split('`').nth(1).expect("a command in backticks");
                    format!("{}. Run `{cmd}`.", q.gold[0])
                }
                "code-block" => format!("localhost:{}/healthz", q.gold[0]),
                _ => q.gold[0].clone(),
            };
            assert!(
                chunk.text.contains(&needle),
                "{}: {needle:?} not in {:?}",
                q.id,
                chunk.text
            );
        }
    }

    #[test]
    fn reverse_lookups_have_one_answer() {
        let corpus = generate();
        for q in corpus.questions.iter().filter(|q| q.kind == "reverse-lookup") {
            let cause = q.q.split("caused by ").nth(1).expect("a cause").trim_end_matches('?');
            let line = format!("Outage caused by {cause}.");
            let owners: Vec<&str> = corpus
                .docs
                .iter()
                .filter(|d| d.markdown.contains(&line))
                .map(|d| d.title.as_str())
                .collect();
            assert_eq!(owners, q.gold, "{}", q.id);
        }
    }

    #[test]
    fn questions_follow_their_templates() {
        let templates: serde_json::Value = serde_json::from_str(TEMPLATES_JSON).expect("valid JSON");
        for q in generate().questions {
            let entry = &templates[q.kind.as_str()];
            // The literal parts of the template appear in order.
            let mut rest = q.q.as_str();
            for (i, part) in template(&templates, &q.kind).split("${").enumerate() {
                let literal = if i == 0 {
                    part
                } else {
                    part.split_once('}').expect("closed placeholder").1
                };
                let at = rest
                    .find(literal)
                    .unwrap_or_else(|| panic!("{}: {literal:?} not in {:?}", q.id, q.q));
                rest = &rest[at + literal.len()..];
            }
            // The section is one of the template's section keys.
            match entry["section"].as_str() {
                Some(keys) => assert!(
                    keys.split(" | ").any(|key| section_path(key) == q.section),
                    "{}: {:?} not in {keys:?}",
                    q.id,
                    q.section
                ),
                None => assert_eq!(q.section, "", "{}", q.id),
            }
            assert_eq!(entry["numeric"].as_bool().unwrap_or(false), q.numeric, "{}", q.id);
        }
    }

    #[test]
    fn serialises_with_the_original_field_names() {
        let corpus = generate();
        let json = serde_json::to_value(&corpus.questions[1]).expect("serialisable");
        let mut keys: Vec<&str> = json
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(keys, ["doc", "gold", "id", "numeric", "q", "section", "type"]);
    }

    #[test]
    fn identifier_questions_quote_a_name_only_their_gold_section_holds() {
        let corpus = generate();
        assert_eq!(corpus.identifier_questions.len(), 30);
        for q in &corpus.identifier_questions {
            let name = q.q.split('`').nth(1).expect("a quoted name");
            let doc = doc_of(&corpus, q);
            assert!(!q.q.contains(&doc.title), "{}", q.id);
            let mut holders = Vec::new();
            for other in &corpus.docs {
                let chunked = chunk_document(&format!("{}.md", other.slug), &other.markdown);
                for chunk in chunked.chunks.iter().filter(|c| c.text.contains(name)) {
                    holders.push(chunk.heading.clone());
                }
            }
            let gold = format!("{}{HEADING_SEPARATOR}{}", doc.title, q.section);
            assert_eq!(holders, [gold], "{}: {name}", q.id);
            assert!(ragdownd::search::route::is_identifier_query(&q.q), "{}", q.id);
        }
    }

    #[test]
    fn of_the_answerable_questions_only_those_quoting_a_command_are_routed_to_score_fusion() {
        for q in answerable(&generate()) {
            assert_eq!(
                ragdownd::search::route::is_identifier_query(&q.q),
                q.kind == "ordered-step",
                "{}: {}",
                q.id,
                q.q
            );
        }
    }

    #[test]
    fn alias_questions_ask_by_a_codename_in_the_front_matter() {
        let corpus = generate();
        assert_eq!(corpus.alias_questions.len(), 30);
        let aliases: HashSet<&str> = corpus.docs.iter().map(|d| d.alias.as_str()).collect();
        assert_eq!(aliases.len(), 30);
        for q in &corpus.alias_questions {
            let doc = doc_of(&corpus, q);
            assert!(q.q.contains(&doc.alias) && !q.q.contains(&doc.title), "{}", q.id);
            let chunked = chunk_document(&format!("{}.md", doc.slug), &doc.aliased_markdown());
            assert_eq!(chunked.meta.aliases, std::slice::from_ref(&doc.alias));
            assert_eq!(chunked.chunks.len(), 7);
            // No runbook mentions a codename except as its own alias.
            assert!(
                corpus.docs.iter().all(|d| !d.markdown.contains(&doc.alias)),
                "{}",
                doc.alias
            );
        }
    }

    #[test]
    fn ten_off_topic_prompts() {
        let prompts = off_topic_prompts();
        assert_eq!(prompts.len(), 10);
        assert_eq!(prompts[0], "what is the weather in Paris tomorrow");
    }

    #[test]
    fn writes_one_markdown_file_per_document() {
        let corpus = generate();
        let dir = std::env::temp_dir().join(format!("ragdown-bench-corpus-{}", std::process::id()));
        write_markdown(&corpus, &dir.join("md")).expect("written");
        let mut files: Vec<String> = std::fs::read_dir(dir.join("md"))
            .expect("listed")
            .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let mut expected: Vec<String> = corpus.docs.iter().map(|d| format!("{}.md", d.slug)).collect();
        expected.sort();
        assert_eq!(files, expected);
        let first = &corpus.docs[0];
        let written = std::fs::read_to_string(dir.join("md").join(format!("{}.md", first.slug))).expect("read");
        assert_eq!(written, first.markdown);
        std::fs::remove_dir_all(&dir).expect("cleaned up");
    }
}
