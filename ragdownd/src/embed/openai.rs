//! `openai:<model>`: any OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, llama.cpp,
//! `embedd`'s own HTTP side).
//!
//! `POST <RAGDOWN_EMBEDDING_URL>/embeddings` with `{model, input}` and the key as
//! a bearer token when one is set; batches of 64; answers ordered by `index` and L2-normalised; the
//! index name `openai:<model>@<dim>`, the dimension found by embedding `"probe"` at start;
//! connections kept alive 30 s; 60 s per request. Such a model has no measured score scale, so the
//! hook's floor is the default model's, as a guess.

use std::time::Duration;

use embedd::TextKind;
use embedd::model::normalize;
use embedd::registry;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::json;

use super::{EmbedError, Embedder};

/// The endpoint when `RAGDOWN_EMBEDDING_URL` is unset.
pub const DEFAULT_URL: &str = "https://api.openai.com/v1";

/// Texts per request.
pub const BATCH: usize = 64;

/// An OpenAI-compatible embedding endpoint.
#[derive(Debug, Clone)]
pub struct OpenAiEmbedder {
    client: reqwest::Client,
    url: String,
    model: String,
    key: Option<String>,
    index_name: String,
    dim: usize,
}

#[derive(Debug, Deserialize)]
struct Answer {
    data: Vec<Item>,
}

#[derive(Debug, Deserialize)]
struct Item {
    index: usize,
    embedding: Vec<f32>,
}

impl OpenAiEmbedder {
    /// Checks the endpoint by embedding `"probe"`, which also gives the dimension.
    pub async fn connect(model: &str, url: &str, key: Option<String>) -> Result<Self, EmbedError> {
        let load_error = |reason: String| EmbedError::Load {
            name: format!("openai:{model}"),
            reason,
        };
        if model.trim().is_empty() {
            return Err(load_error(
                "name a model after openai:, e.g. openai:text-embedding-3-small".into(),
            ));
        }
        let parsed = reqwest::Url::parse(url)
            .map_err(|err| load_error(format!("RAGDOWN_EMBEDDING_URL is not a URL: {url:?} ({err})")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(load_error(format!("RAGDOWN_EMBEDDING_URL must be http(s): {url:?}")));
        }
        let client = reqwest::Client::builder()
            .pool_idle_timeout(Duration::from_secs(30))
            .timeout(Duration::from_secs(60))
            .build()
            .map_err(|err| load_error(err.to_string()))?;
        let mut embedder = Self {
            client,
            url: format!("{}/embeddings", url.trim_end_matches('/')),
            model: model.to_string(),
            key: key.filter(|k| !k.is_empty()),
            index_name: String::new(),
            dim: 0,
        };
        let probe = embedder
            .request(vec!["probe".to_string()])
            .await
            .map_err(|err| load_error(err.to_string()))?;
        embedder.dim = probe.first().map(Vec::len).unwrap_or_default();
        if embedder.dim == 0 {
            return Err(load_error("the endpoint answered an empty vector".into()));
        }
        embedder.index_name = format!("openai:{model}@{}", embedder.dim);
        Ok(embedder)
    }

    async fn request(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, EmbedError> {
        let count = texts.len();
        let mut request = self
            .client
            .post(&self.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(json!({ "model": self.model, "input": texts }).to_string());
        if let Some(key) = &self.key {
            request = request.bearer_auth(key);
        }
        let failed = |reason: String| EmbedError::Inference(format!("{}: {reason}", self.url));
        let response = request.send().await.map_err(|err| failed(err.to_string()))?;
        let status = response.status();
        let body = response.text().await.map_err(|err| failed(err.to_string()))?;
        if !status.is_success() {
            let body: String = body.chars().take(300).collect();
            return Err(failed(format!("HTTP {status}: {body}")));
        }
        let answer: Answer =
            serde_json::from_str(&body).map_err(|err| failed(format!("not an embeddings answer: {err}")))?;
        let mut items = answer.data;
        items.sort_by_key(|item| item.index);
        if items.len() != count || items.iter().enumerate().any(|(i, item)| item.index != i) {
            return Err(failed(format!("{} embeddings for {count} texts", items.len())));
        }
        Ok(items.into_iter().map(|item| normalize(item.embedding)).collect())
    }
}

impl Embedder for OpenAiEmbedder {
    fn index_name(&self) -> &str {
        &self.index_name
    }

    fn fingerprint(&self) -> String {
        self.index_name.clone()
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn min_score(&self) -> f32 {
        registry::find(registry::DEFAULT_MODEL)
            .and_then(|spec| spec.min_score)
            .unwrap_or(registry::DEFAULT_MIN_SCORE)
    }

    fn unrelated_score(&self) -> Option<f32> {
        None
    }

    fn embed<'a>(&'a self, texts: Vec<String>, _kind: TextKind) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
        Box::pin(async move {
            let mut vectors = Vec::with_capacity(texts.len());
            for batch in texts.chunks(BATCH) {
                let answer = self.request(batch.to_vec()).await?;
                if answer.iter().any(|v| v.len() != self.dim) {
                    return Err(EmbedError::Inference(format!(
                        "{} answered vectors of another dimension than {}",
                        self.url, self.dim
                    )));
                }
                vectors.extend(answer);
            }
            Ok(vectors)
        })
    }
}
