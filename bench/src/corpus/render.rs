//! A runbook as Markdown: front matter, the H1, and the seven sections under their parent
//! headings, each with its paragraphs, table, lists and code blocks.

use super::{Runbook, SECTIONS, ordered_list, purpose};

impl Runbook {
    /// The Markdown file: front matter, H1, then the seven sections with their parent headings.
    pub(super) fn markdown(&self) -> String {
        let mut lines = vec![
            "---".to_owned(),
            format!("title: {}", self.title),
            format!("tags: [runbook, {}]", self.role.to_lowercase()),
            "---".to_owned(),
            format!("# {}", self.title),
            String::new(),
        ];
        let mut previous: &[&str] = &[];
        for (key, path) in SECTIONS {
            for depth in 0..path.len() {
                if previous.get(..=depth) != Some(&path[..=depth]) {
                    lines.push(format!("{} {}", "#".repeat(depth + 2), path[depth]));
                    lines.push(String::new());
                }
            }
            previous = path;
            lines.push(self.blocks(key).join("\n\n"));
            lines.push(String::new());
        }
        lines.join("\n")
    }

    /// The rendered blocks (paragraphs, table, lists, code) of the section with key `key`.
    fn blocks(&self, key: &str) -> Vec<String> {
        match key {
            "overview" => vec![
                format!(
                    "{} {}. It belongs to the **{}** team and has run in production since {}.",
                    self.title,
                    purpose(self.role),
                    self.team,
                    self.year
                ),
                format!(
                    "The code base is {}. Alerts page the on-call engineer through `#{}-oncall`.",
                    self.language, self.slug
                ),
            ],
            "config" => {
                let mut table = vec![
                    "| Setting | Staging | Production |".to_owned(),
                    "|---|---|---|".to_owned(),
                ];
                table.extend(
                    self.config
                        .iter()
                        .map(|row| format!("| {} | {} | {} |", row.name, row.staging, row.production)),
                );
                vec![
                    "Settings per environment. Change them in the deploy config and let the pipeline roll them \
                     out; never edit a running host."
                        .to_owned(),
                    table.join("\n"),
                ]
            }
            "deploy-staging" => vec![
                format!(
                    "Each merge to main goes to staging once {} has approved it.",
                    self.approver_staging
                ),
                ordered_list(&self.staging_steps),
            ],
            "deploy-production" => vec![
                format!(
                    "A production release needs approval from {} and ships only in the {} window.",
                    self.approver_production, self.window
                ),
                ordered_list(&self.production_steps),
            ],
            "deps" => vec![
                self.dependencies
                    .iter()
                    .map(|d| {
                        format!(
                            "- **{}**\n  - version: {}\n  - purpose: {}",
                            d.name, d.version, d.purpose
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
            ],
            "troubleshooting" => vec![
                "Start with the liveness endpoint; if it answers, look at the queue depth in the metrics.".to_owned(),
                format!(
                    "```sh\ncurl -fsS http://localhost:{}/healthz\ncurl -fsS http://localhost:{}/metrics | grep \
                     queue_depth\nkubectl logs deploy/{} --since=1h | tail -n 50\n```",
                    self.health_port, self.metrics_port, self.slug
                ),
            ],
            "incidents" => vec![
                self.incidents
                    .iter()
                    .map(|i| format!("- {}: Outage caused by {}.", i.date, i.cause))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ],
            _ => unreachable!("{key} is not a section key"),
        }
    }
}
