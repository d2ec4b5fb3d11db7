//! The embedd server over real sockets: gRPC (and reflection) and HTTP, started in-process on
//! 127.0.0.1:0 with the real scheduler and minilm, and the built binary for start-up and shutdown.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use embedd::batch::BatchLimits;
use embedd::model::ModelSource;
use embedd::provider::Provider;
use embedd::server::{self, ServeSettings};
use embedd::{LocalEmbedder, LocalOptions, registry};
use proto::embedd_v1 as pb;
use proto::embedd_v1::embedder_client::EmbedderClient;
use serde::Deserialize;
use tokio::sync::oneshot;
use tonic::transport::Channel;

use super::minilm::{cache_dir, source};

fn options() -> LocalOptions {
    LocalOptions {
        threads: 1,
        ..LocalOptions::default()
    }
}

pub async fn load(options: LocalOptions) -> LocalEmbedder {
    load_from(source(), options).await
}

async fn load_from(source: ModelSource, options: LocalOptions) -> LocalEmbedder {
    tokio::task::spawn_blocking(move || LocalEmbedder::start(registry::find("minilm").unwrap(), &source, &options))
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("{e}\nrun scripts/install-ort.sh and scripts/install-model.sh minilm first"))
}

/// A server running in this process until dropped.
struct Running {
    embedder: LocalEmbedder,
    grpc: String,
    http: String,
    _stop: oneshot::Sender<()>,
}

async fn serve(options: LocalOptions, token: Option<&str>) -> Running {
    serve_embedder(load(options).await, token).await
}

async fn serve_embedder(embedder: LocalEmbedder, token: Option<&str>) -> Running {
    let grpc = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let http = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let urls = (
        format!("http://{}", grpc.local_addr().unwrap()),
        format!("http://{}", http.local_addr().unwrap()),
    );
    let (stop, stopped) = oneshot::channel::<()>();
    let settings = ServeSettings {
        token: token.map(String::from),
    };
    tokio::spawn(server::serve(embedder.clone(), settings, grpc, http, async move {
        let _ = stopped.await;
    }));
    Running {
        embedder,
        grpc: urls.0,
        http: urls.1,
        _stop: stop,
    }
}

async fn client(running: &Running) -> EmbedderClient<Channel> {
    EmbedderClient::connect(running.grpc.clone()).await.unwrap()
}

fn request(texts: &[&str], kind: pb::TextKind, lane: pb::Lane) -> pb::EmbedRequest {
    pb::EmbedRequest {
        texts: texts.iter().map(|t| t.to_string()).collect(),
        kind: kind as i32,
        lane: lane as i32,
    }
}

#[derive(Deserialize)]
struct Golden {
    onnx_sha256: String,
    texts: Vec<String>,
    vectors: Vec<Vec<f32>>,
}

fn golden() -> Golden {
    let path = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("tests/data/golden-minilm.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// Polls `check` until it holds; panics after ten seconds.
async fn until(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn health(client: &mut EmbedderClient<Channel>) -> pb::HealthResponse {
    client.health(pb::HealthRequest {}).await.unwrap().into_inner()
}

#[tokio::test]
async fn grpc_vectors_match_the_golden_ones_alone_in_a_batch_and_in_a_stream() {
    let golden = golden();
    let running = serve(options(), None).await;
    let mut client = client(&running).await;

    let info = client.info(pb::InfoRequest {}).await.unwrap().into_inner();
    let fingerprint = info.fingerprint.unwrap();
    assert_eq!(fingerprint.name, "minilm");
    assert_eq!(fingerprint.index_name, "all-MiniLM-L6-v2-q8");
    assert_eq!((fingerprint.dim, fingerprint.max_tokens), (384, 256));
    assert_eq!(fingerprint.pooling, "mean");
    assert_eq!(fingerprint.weights_sha256, golden.onnx_sha256);
    assert_eq!(
        (info.provider.as_str(), info.requested_provider.as_str()),
        ("cpu", "cpu")
    );
    assert_eq!((info.threads, info.max_batch_tokens), (1, 512));
    assert_eq!((info.bucket_step, info.pad_to_bucket), (8, false));

    let texts: Vec<&str> = golden.texts.iter().map(String::as_str).collect();
    for (text, expected) in texts.iter().zip(&golden.vectors) {
        let answer = client
            .embed(request(&[text], pb::TextKind::Query, pb::Lane::Interactive))
            .await
            .unwrap()
            .into_inner();
        let got = &answer.vectors[0].values;
        assert!(max_abs_diff(got, expected) < 1e-4, "{text:?} alone");
        let norm = got.iter().map(|v| v * v).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "{text:?}: norm {norm}");
        assert!(answer.tokens >= 3, "{text:?}: [CLS] text [SEP] is at least 3 tokens");
        assert!(answer.timings.unwrap().inference_us > 0);
    }

    let batch = client
        .embed(request(&texts, pb::TextKind::Document, pb::Lane::Bulk))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(batch.vectors.len(), texts.len());
    assert_eq!(batch.fingerprint.unwrap().weights_sha256, golden.onnx_sha256);
    for ((text, got), expected) in texts.iter().zip(&batch.vectors).zip(&golden.vectors) {
        assert!(max_abs_diff(&got.values, expected) < 1e-4, "{text:?} in a batch");
    }

    // A stream of three requests answers three times, in order.
    let requests: Vec<pb::EmbedRequest> = texts
        .iter()
        .take(3)
        .map(|text| request(&[text], pb::TextKind::Document, pb::Lane::Bulk))
        .collect();
    let mut answers = client
        .embed_stream(tokio_stream::iter(requests))
        .await
        .unwrap()
        .into_inner();
    let mut index = 0;
    while let Some(answer) = answers.message().await.unwrap() {
        assert!(
            max_abs_diff(&answer.vectors[0].values, &golden.vectors[index]) < 1e-4,
            "stream answer {index}"
        );
        index += 1;
    }
    assert_eq!(index, 3);
}

#[tokio::test]
async fn an_interactive_request_overtakes_a_queued_bulk_backlog() {
    // Paused, so the backlog is all queued before anything runs; a budget of 16 tokens makes
    // the 40 bulk texts (about 7 tokens each, bucket 8) 20 batches.
    let running = serve(
        LocalOptions {
            start_paused: true,
            limits: BatchLimits {
                max_batch_tokens: 16,
                max_batch_size: 32,
            },
            ..options()
        },
        None,
    )
    .await;
    let mut client = client(&running).await;
    let bulk_texts: Vec<String> = (0..40).map(|i| format!("bulk note number {i}")).collect();
    let (done, mut finished) = tokio::sync::mpsc::unbounded_channel();

    let mut bulk_client = client.clone();
    let bulk_done = done.clone();
    let bulk_texts_sent = bulk_texts.clone();
    tokio::spawn(async move {
        let texts: Vec<&str> = bulk_texts_sent.iter().map(String::as_str).collect();
        let answer = bulk_client
            .embed(request(&texts, pb::TextKind::Document, pb::Lane::Bulk))
            .await;
        bulk_done
            .send(("bulk", answer.map(|a| a.into_inner().vectors.len())))
            .unwrap();
    });
    until("the bulk backlog is queued", async || {
        health(&mut client).await.bulk_queued == 40
    })
    .await;

    let mut query_client = client.clone();
    tokio::spawn(async move {
        let answer = query_client
            .embed(request(
                &["how do I restore a backup?"],
                pb::TextKind::Query,
                pb::Lane::Interactive,
            ))
            .await;
        done.send(("interactive", answer.map(|a| a.into_inner().vectors.len())))
            .unwrap();
    });
    until("the query is queued", async || {
        health(&mut client).await.interactive_queued == 1
    })
    .await;
    running.embedder.resume();

    let (first, first_answer) = finished.recv().await.unwrap();
    let (second, second_answer) = finished.recv().await.unwrap();
    assert_eq!(
        (first, second),
        ("interactive", "bulk"),
        "the query waited behind the bulk backlog"
    );
    assert_eq!(first_answer.unwrap(), 1);
    assert_eq!(second_answer.unwrap(), 40);
    assert!(
        running.embedder.batches_run() >= 21,
        "{}",
        running.embedder.batches_run()
    );
}

#[tokio::test]
async fn a_full_queue_answers_resource_exhausted_and_leaves_the_other_lane_open() {
    let running = serve(
        LocalOptions {
            start_paused: true,
            // "fill" is 3 tokens with [CLS] and [SEP]; the second text alone is more than 5.
            max_queue_tokens: 8,
            ..options()
        },
        None,
    )
    .await;
    let mut client = client(&running).await;
    let mut first_client = client.clone();
    let first = tokio::spawn(async move {
        first_client
            .embed(request(&["fill"], pb::TextKind::Document, pb::Lane::Bulk))
            .await
    });
    until("the first bulk request is queued", async || {
        health(&mut client).await.bulk_queued == 1
    })
    .await;

    let refused = client
        .embed(request(
            &["a second bulk text that does not fit in what is left of the queue"],
            pb::TextKind::Document,
            pb::Lane::Bulk,
        ))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::ResourceExhausted, "{refused:?}");
    assert!(
        refused.message().contains("bulk queue is full"),
        "{}",
        refused.message()
    );
    assert_eq!(
        health(&mut client).await.bulk_queued,
        1,
        "the refused request left nothing queued"
    );

    // The interactive lane has its own room.
    let mut query_client = client.clone();
    let query = tokio::spawn(async move {
        query_client
            .embed(request(&["a query"], pb::TextKind::Query, pb::Lane::Interactive))
            .await
    });
    until("the query is queued", async || {
        health(&mut client).await.interactive_queued == 1
    })
    .await;
    running.embedder.resume();
    assert_eq!(first.await.unwrap().unwrap().into_inner().vectors.len(), 1);
    assert_eq!(query.await.unwrap().unwrap().into_inner().vectors.len(), 1);
}

fn http_agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).build().into()
}

/// POSTs JSON (blocking, on a blocking thread); returns the status and body.
async fn post(url: String, body: serde_json::Value, token: Option<&'static str>) -> (u16, serde_json::Value) {
    tokio::task::spawn_blocking(move || {
        let mut request = http_agent().post(&url).header("content-type", "application/json");
        if let Some(token) = token {
            request = request.header("authorization", &format!("Bearer {token}"));
        }
        let mut response = request.send(body.to_string()).unwrap();
        let text = response.body_mut().read_to_string().unwrap();
        (
            response.status().as_u16(),
            serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)),
        )
    })
    .await
    .unwrap()
}

async fn get(url: String, token: Option<&'static str>) -> (u16, String) {
    tokio::task::spawn_blocking(move || {
        let mut request = http_agent().get(&url);
        if let Some(token) = token {
            request = request.header("authorization", &format!("Bearer {token}"));
        }
        let mut response = request.call().unwrap();
        let text = response.body_mut().read_to_string().unwrap();
        (response.status().as_u16(), text)
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn a_missing_or_wrong_token_is_refused_on_both_transports() {
    let running = serve(options(), Some("s3cret")).await;
    let mut client = client(&running).await;
    let one = || request(&["hello"], pb::TextKind::Query, pb::Lane::Interactive);

    let missing = client.embed(one()).await.unwrap_err();
    assert_eq!(missing.code(), tonic::Code::Unauthenticated);
    let mut wrong = tonic::Request::new(one());
    wrong
        .metadata_mut()
        .insert("authorization", "Bearer s3cre".parse().unwrap());
    assert_eq!(
        client.embed(wrong).await.unwrap_err().code(),
        tonic::Code::Unauthenticated
    );
    let mut right = tonic::Request::new(one());
    right
        .metadata_mut()
        .insert("authorization", "Bearer s3cret".parse().unwrap());
    assert_eq!(client.embed(right).await.unwrap().into_inner().vectors.len(), 1);

    let url = format!("{}/v1/embeddings", running.http);
    let body = serde_json::json!({"input": "hello", "model": "minilm"});
    let (status, answer) = post(url.clone(), body.clone(), None).await;
    assert_eq!(status, 401);
    assert_eq!(answer["error"]["type"], "authentication_error");
    assert_eq!(post(url.clone(), body.clone(), Some("wrong")).await.0, 401);
    assert_eq!(post(url, body, Some("s3cret")).await.0, 200);
    assert_eq!(get(format!("{}/metrics", running.http), None).await.0, 401);
    assert_eq!(get(format!("{}/health", running.http), None).await.0, 200);
}

#[tokio::test]
async fn the_openai_endpoint_answers_like_openai_and_metrics_explain_the_batches() {
    let running = serve(options(), None).await;
    let mut client = client(&running).await;
    let url = format!("{}/v1/embeddings", running.http);
    let texts = ["How do I restore a backup?", "a recipe for carbonara"];

    let (status, one) = post(
        url.clone(),
        serde_json::json!({"input": texts[0], "model": "anything"}),
        None,
    )
    .await;
    assert_eq!(status, 200, "{one}");
    assert_eq!(one["object"], "list");
    assert_eq!(one["model"], "minilm");
    assert_eq!(one["data"][0]["object"], "embedding");
    assert_eq!(one["data"][0]["index"], 0);
    assert_eq!(one["data"][0]["embedding"].as_array().unwrap().len(), 384);
    let tokens = one["usage"]["prompt_tokens"].as_u64().unwrap();
    assert!(tokens >= 3);
    assert_eq!(one["usage"]["total_tokens"].as_u64(), Some(tokens));

    let (status, many) = post(
        url.clone(),
        serde_json::json!({"input": texts, "model": "minilm"}),
        None,
    )
    .await;
    assert_eq!(status, 200);
    let data = many["data"].as_array().unwrap();
    assert_eq!(data.len(), 2);
    let grpc = client
        .embed(request(&texts, pb::TextKind::Document, pb::Lane::Bulk))
        .await
        .unwrap()
        .into_inner();
    for (index, entry) in data.iter().enumerate() {
        assert_eq!(entry["index"], index);
        let http: Vec<f32> = serde_json::from_value(entry["embedding"].clone()).unwrap();
        assert!(max_abs_diff(&http, &grpc.vectors[index].values) < 1e-6, "text {index}");
    }

    let (status, bad) = post(url.clone(), serde_json::json!({"input": 42}), None).await;
    assert_eq!(status, 400, "{bad}");
    assert!(bad["error"]["message"].is_string());
    let (status, _) = post(
        url,
        serde_json::json!({"input": "x", "encoding_format": "base64"}),
        None,
    )
    .await;
    assert_eq!(status, 400);

    let (status, metrics) = get(format!("{}/metrics", running.http), None).await;
    assert_eq!(status, 200);
    for family in [
        "embedd_batch_size",
        "embedd_batch_padded_tokens",
        "embedd_padding_share",
        "embedd_tokens_total",
        "embedd_queue_depth_texts",
        "embedd_queue_depth_tokens",
        "embedd_request_seconds",
        "embedd_requests_total",
        "embedd_inference_seconds",
        "embedd_sessions_resident",
    ] {
        assert!(metrics.contains(family), "{family} missing:\n{metrics}");
    }
    // One interactive request (the single string) and two bulk ones (the array, the gRPC batch).
    assert!(
        metrics.contains(r#"embedd_requests_total{lane="interactive",outcome="ok"} 1"#),
        "{metrics}"
    );
    assert!(
        metrics.contains(r#"embedd_requests_total{lane="bulk",outcome="ok"} 2"#),
        "{metrics}"
    );
}

#[tokio::test]
async fn an_idle_server_rests_its_bulk_session_and_metrics_say_so() {
    let running = serve(
        LocalOptions {
            rest_after_idle: Some(Duration::from_millis(300)),
            ..options()
        },
        None,
    )
    .await;
    let url = format!("{}/v1/embeddings", running.http);
    let texts = ["How do I restore a backup?", "a recipe for carbonara"];
    let resident = async || {
        let (status, metrics) = get(format!("{}/metrics", running.http), None).await;
        assert_eq!(status, 200);
        metrics
            .lines()
            .find_map(|line| line.strip_prefix("embedd_sessions_resident "))
            .unwrap_or_else(|| panic!("no embedd_sessions_resident in\n{metrics}"))
            .parse::<u64>()
            .unwrap()
    };
    // One bulk session and the query one; the bulk one rests once documents stop coming.
    let (status, before) = post(url.clone(), serde_json::json!({"input": texts}), None).await;
    assert_eq!(status, 200, "{before}");
    until("the bulk session rests", async || resident().await == 1).await;
    assert_eq!(running.embedder.resident_sessions(), 1);

    // The next documents make it again and get the same vectors.
    let (status, after) = post(url, serde_json::json!({"input": texts}), None).await;
    assert_eq!(status, 200, "{after}");
    for index in 0..texts.len() {
        let a: Vec<f32> = serde_json::from_value(before["data"][index]["embedding"].clone()).unwrap();
        let b: Vec<f32> = serde_json::from_value(after["data"][index]["embedding"].clone()).unwrap();
        assert!(max_abs_diff(&a, &b) < 1e-5, "text {index}");
    }
    until("the bulk session rests again", async || resident().await == 1).await;
}

/// A copy of minilm's directory in the model cache, in `dir/minilm`.
fn copy_of_minilm(dir: &std::path::Path) -> ModelSource {
    let mut copy = source();
    let from = copy.models_dir.join("minilm");
    std::fs::create_dir_all(dir.join("minilm")).unwrap();
    for file in std::fs::read_dir(&from).unwrap() {
        let file = file.unwrap();
        if file.file_type().unwrap().is_file() {
            std::fs::copy(file.path(), dir.join("minilm").join(file.file_name())).unwrap();
        }
    }
    copy.models_dir = dir.to_owned();
    copy
}

#[tokio::test]
async fn a_model_that_cannot_be_loaded_again_is_unavailable_over_http_and_grpc_alike() {
    let models = tempfile::tempdir().unwrap();
    let options = LocalOptions {
        rest_after_idle: Some(Duration::from_millis(200)),
        ..options()
    };
    let running = serve_embedder(load_from(copy_of_minilm(models.path()), options).await, None).await;
    let url = format!("{}/v1/embeddings", running.http);
    let documents = serde_json::json!({"input": ["How do I restore a backup?", "a recipe"]});
    let (status, body) = post(url.clone(), documents.clone(), None).await;
    assert_eq!(status, 200, "{body}");
    until("the bulk session rests", async || {
        running.embedder.resident_sessions() == 1
    })
    .await;

    // The bulk session must be made again from a model file that is gone.
    std::fs::remove_file(models.path().join("minilm/model.onnx")).unwrap();
    let (status, body) = post(url.clone(), documents, None).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["type"], "server_error");
    let message = body["error"]["message"].as_str().unwrap().to_owned();
    assert!(message.starts_with("cannot load model minilm"), "{message}");

    let mut grpc = client(&running).await;
    let refused = grpc
        .embed(request(
            &["How do I restore a backup?"],
            pb::TextKind::Document,
            pb::Lane::Bulk,
        ))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unavailable, "{refused:?}");
    assert_eq!(refused.message(), message);

    // Queries have a session of their own, which never rested: they are still answered.
    let (status, body) = post(
        url,
        serde_json::json!({"input": "restore a backup", "kind": "query"}),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn reflection_lists_the_embedder_service() {
    use tonic_reflection::pb::v1::ServerReflectionRequest;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

    let running = serve(options(), Some("s3cret")).await;
    let channel = Channel::from_shared(running.grpc.clone())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut reflection = ServerReflectionClient::new(channel);
    let ask = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut answers = reflection
        .server_reflection_info(tokio_stream::iter(vec![ask]))
        .await
        .unwrap()
        .into_inner();
    let answer = answers.message().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = answer.message_response else {
        panic!("not a service list: {answer:?}");
    };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    assert!(names.contains(&"embedd.v1.Embedder".to_string()), "{names:?}");
}

#[tokio::test]
async fn auto_falls_back_to_cpu_and_reports_both() {
    let embedder = load(LocalOptions {
        provider: Provider::Auto,
        ..options()
    })
    .await;
    // No GPU and the CPU library here: auto must end on CPU.
    assert_eq!(embedder.info().provider, Provider::Cpu);
    assert_eq!(embedder.info().requested_provider, Provider::Auto);
}

fn binary(args: &[&str]) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_embedd"));
    command
        .args(["--model", "minilm", "--offline", "--threads", "1"])
        .args(["--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0"])
        .args(args)
        .env("RAGDOWN_CACHE", cache_dir())
        .env_remove("EMBEDD_TOKEN")
        .env_remove("EMBEDD_PROVIDER");
    command
}

#[test]
fn asking_for_cuda_without_it_is_a_clear_error() {
    let output = binary(&["--provider", "cuda"]).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("execution provider cuda is not usable") && stderr.contains("onnxruntime-gpu"),
        "{stderr}"
    );
}

#[tokio::test]
async fn the_binary_serves_on_auto_and_stops_cleanly_on_sigterm() {
    let mut child = binary(&["--provider", "auto"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    // Reads stderr to its end on its own thread (a closed pipe would fail the server's last logs).
    let (lines_tx, lines_rx) = std::sync::mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    let (lines, grpc, rest) = tokio::task::spawn_blocking(move || {
        let mut seen = Vec::new();
        while let Ok(line) = lines_rx.recv_timeout(Duration::from_secs(60)) {
            seen.push(line.clone());
            if line.contains("embedd serving") {
                let addr = line
                    .split("grpc=")
                    .nth(1)
                    .unwrap()
                    .split_whitespace()
                    .next()
                    .unwrap()
                    .to_string();
                return (seen, addr, lines_rx);
            }
        }
        panic!("embedd exited before serving:\n{}", seen.join("\n"));
    })
    .await
    .unwrap();
    assert!(
        lines.iter().any(|l| l.contains("auto: falling back to cpu")),
        "auto did not say it fell back:\n{}",
        lines.join("\n")
    );
    let mut client = EmbedderClient::connect(format!("http://{grpc}")).await.unwrap();
    let info = client.info(pb::InfoRequest {}).await.unwrap().into_inner();
    assert_eq!(
        (info.provider.as_str(), info.requested_provider.as_str()),
        ("cpu", "auto")
    );

    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    reader.join().unwrap();
    let last_logs: Vec<String> = rest.try_iter().collect();
    assert!(
        exit.success(),
        "embedd did not exit cleanly on SIGTERM: {exit:?}\n{}",
        last_logs.join("\n")
    );
    assert!(
        last_logs.iter().any(|l| l.contains("embedd stopped")),
        "{}",
        last_logs.join("\n")
    );
}

/// Regression: with stderr closed (a supervisor gone), logging the shutdown made tracing's own
/// error report panic, and SIGTERM right after the "serving" line could kill the process before
/// its handler was installed.
#[test]
fn the_binary_stops_cleanly_on_sigterm_with_stderr_closed() {
    let mut child = binary(&["--provider", "cpu"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("embedd serving") {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "embedd exited before serving");
    }
    drop(stderr);
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    assert!(exit.success(), "{exit:?}");
}
