//! Which chunks a search may return, as one value both retrieval paths read: a SQL clause for
//! LanceDB (the BM25 search) and a predicate over a document's path, tags and author for the
//! resident vectors ([`super::resident`]). The two must agree; `tests/it/search.rs` checks them
//! against each other on a real table.

/// A SQL string literal.
pub fn quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

/// A search's constraints; the default lets everything through.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Paths starting with this (a subfolder endpoint); empty for none.
    pub path_prefix: String,
    /// Paths starting with any of these; `None` for no constraint (an empty list matches nothing).
    pub within: Option<Vec<String>>,
    /// This document only (link following).
    pub path: Option<String>,
    /// A tag as stored (lowercase, no `#`), matching it and its children (`a` matches `a/b`).
    pub tag: Option<String>,
    /// `Some(true)`: documents an agent wrote (`created_by` set); `Some(false)`: the others.
    pub by_agent: Option<bool>,
    /// Paths left out (superseded documents).
    pub exclude: Vec<String>,
}

impl Filter {
    /// The same constraints, narrowed to one document.
    pub fn and_path(&self, path: &str) -> Self {
        Self {
            path: Some(path.to_string()),
            ..self.clone()
        }
    }

    /// The WHERE clause LanceDB evaluates, or `None` when nothing filters.
    pub fn to_sql(&self) -> Option<String> {
        let mut clauses = Vec::new();
        if !self.path_prefix.is_empty() {
            clauses.push(format!("starts_with(path, {})", quote(&self.path_prefix)));
        }
        if let Some(within) = &self.within {
            if within.is_empty() {
                clauses.push("false".into());
            } else {
                let any = within
                    .iter()
                    .map(|prefix| format!("starts_with(path, {})", quote(prefix)))
                    .collect::<Vec<_>>()
                    .join(" OR ");
                clauses.push(format!("({any})"));
            }
        }
        if let Some(path) = &self.path {
            clauses.push(format!("path = {}", quote(path)));
        }
        if let Some(tag) = &self.tag {
            clauses.push(format!(
                "(strpos(tags, {}) > 0 OR strpos(tags, {}) > 0)",
                quote(&format!(" {tag} ")),
                quote(&format!(" {tag}/"))
            ));
        }
        match self.by_agent {
            Some(true) => clauses.push("created_by <> ''".into()),
            Some(false) => clauses.push("created_by = ''".into()),
            None => {}
        }
        if !self.exclude.is_empty() {
            let list = self.exclude.iter().map(|p| quote(p)).collect::<Vec<_>>().join(", ");
            clauses.push(format!("path NOT IN ({list})"));
        }
        (!clauses.is_empty()).then(|| clauses.join(" AND "))
    }

    /// Whether a chunk of the document at `path`, with stored `tags` (`" a b/c "`), written by an
    /// agent or not, passes: what [`Filter::to_sql`] selects, evaluated in memory.
    pub fn matches(&self, path: &str, tags: &str, by_agent: bool) -> bool {
        (self.path_prefix.is_empty() || path.starts_with(self.path_prefix.as_str()))
            && self
                .within
                .as_ref()
                .is_none_or(|within| within.iter().any(|prefix| path.starts_with(prefix.as_str())))
            && self.path.as_deref().is_none_or(|only| only == path)
            && self
                .tag
                .as_ref()
                .is_none_or(|tag| tags.contains(&format!(" {tag} ")) || tags.contains(&format!(" {tag}/")))
            && self.by_agent.is_none_or(|agent| agent == by_agent)
            && !self.exclude.iter().any(|excluded| excluded == path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn everything() -> Filter {
        Filter {
            path_prefix: "ops/".into(),
            within: Some(vec!["ops/db/".into(), "ops/k8s/".into()]),
            path: Some("ops/db/pg.md".into()),
            tag: Some("db".into()),
            by_agent: Some(false),
            exclude: vec!["ops/db/old.md".into()],
        }
    }

    #[test]
    fn no_constraint_is_no_clause_and_matches_anything() {
        assert_eq!(Filter::default().to_sql(), None);
        assert!(Filter::default().matches("any.md", "", true));
    }

    #[test]
    fn each_constraint_narrows_what_matches() {
        let filter = everything();
        assert!(filter.matches("ops/db/pg.md", " db/postgres ", false));
        for (path, tags, by_agent) in [
            ("ops/db/other.md", " db ", false), // not the one path
            ("ops/db/pg.md", " dbx ", false),   // tag is a word, not a prefix of one
            ("ops/db/pg.md", " db ", true),     // written by an agent
            ("notes/db/pg.md", " db ", false),  // outside the prefix
        ] {
            assert!(!filter.matches(path, tags, by_agent), "{path} {tags:?} {by_agent}");
        }
        let excluded = Filter {
            exclude: vec!["a.md".into()],
            ..Filter::default()
        };
        assert!(!excluded.matches("a.md", "", false) && excluded.matches("b.md", "", false));
        let nowhere = Filter {
            within: Some(Vec::new()),
            ..Filter::default()
        };
        assert!(!nowhere.matches("a.md", "", false));
        assert_eq!(nowhere.to_sql().as_deref(), Some("false"));
    }

    #[test]
    fn the_clause_names_every_constraint() {
        assert_eq!(
            everything().to_sql().unwrap(),
            "starts_with(path, 'ops/') AND (starts_with(path, 'ops/db/') OR starts_with(path, 'ops/k8s/')) \
             AND path = 'ops/db/pg.md' AND (strpos(tags, ' db ') > 0 OR strpos(tags, ' db/') > 0) \
             AND created_by = '' AND path NOT IN ('ops/db/old.md')"
        );
    }
}
