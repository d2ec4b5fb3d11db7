//! Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document-00, the MCP spec's
//! preferred registration): a client whose `client_id` is an https URL is described by the JSON
//! document at that URL, which this server fetches when the client asks to be authorized.
//!
//! Fetching a URL a stranger names is a server-side request forgery risk, so ([`Fetcher`]):
//! - only `https`, with a path, no credentials, no fragment, no `.`/`..` segments;
//! - never to a private, loopback, link-local or otherwise non-public address, checked on the
//!   addresses the name resolves to at connect time (a DNS resolver that refuses them), so a name
//!   that resolves to `127.0.0.1` is refused like the literal, unless the owner allows private
//!   addresses (`RAGDOWN_OAUTH_PRIVATE_CLIENTS`, for a client on the home network);
//! - no redirects followed, no proxy from the environment, 3 s to connect, 5 s in all, and at most
//!   [`MAX_BYTES`] read;
//! - the document must name itself (`client_id` equal to the URL, character for character), name
//!   the client, and list redirect URIs that [`super::redirect::check`] accepts.
//!
//! A document is cached as its `Cache-Control: max-age` says (at most a day; five minutes when it
//! says nothing; not at all with `no-store`).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde::Deserialize;
use url::{Host, Url};

use super::{Rejected, redirect};

/// Most bytes of a metadata document read (the draft suggests 5 KB).
pub const MAX_BYTES: usize = 5 * 1024;

/// Longest `client_id` URL accepted.
const MAX_URL_LEN: usize = 2_000;

/// Most documents cached.
const MAX_CACHED: usize = 64;

/// How long a document is cached when it does not say.
const DEFAULT_CACHE_MS: u64 = 5 * 60 * 1000;

/// The longest a document is cached whatever it says.
const MAX_CACHE_MS: u64 = 24 * 60 * 60 * 1000;

/// What a client's document says, as far as this server uses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientMetadata {
    pub client_id: String,
    pub client_name: String,
    pub client_uri: Option<String>,
    pub redirect_uris: Vec<String>,
}

/// The document's fields this server reads; others are ignored.
#[derive(Debug, Deserialize)]
struct Document {
    client_id: Option<String>,
    client_name: Option<String>,
    client_uri: Option<String>,
    #[serde(default)]
    redirect_uris: Vec<String>,
    grant_types: Option<Vec<String>>,
    token_endpoint_auth_method: Option<String>,
}

/// Whether a `client_id` is meant as a metadata document's URL.
pub fn is_document_url(client_id: &str) -> bool {
    client_id.starts_with("https://")
}

/// Checks a `client_id` URL before anything is fetched.
pub fn check_url(client_id: &str) -> Result<Url, Rejected> {
    if client_id.len() > MAX_URL_LEN {
        return Err("client_id URL too long".into());
    }
    let url = Url::parse(client_id).map_err(|err| format!("client_id is not a URL: {err}"))?;
    if url.scheme() != "https" || url.host().is_none() {
        return Err("a client_id URL must be https".into());
    }
    if !url.username().is_empty() || url.password().is_some() || url.fragment().is_some() {
        return Err("a client_id URL must not hold credentials or a fragment".into());
    }
    let path = url.path();
    if path.is_empty() || path == "/" {
        return Err("a client_id URL must have a path (https://app.example/client.json)".into());
    }
    // The parser folds `.`/`..` away, so compare with what was given.
    if client_id
        .split(['?', '#'])
        .next()
        .unwrap_or_default()
        .split('/')
        .any(|s| s == "." || s == "..")
    {
        return Err("a client_id URL must not have . or .. segments".into());
    }
    Ok(url)
}

/// Whether `ip` is an address on the public internet: not private, loopback, link-local,
/// shared, documentation, benchmarking, multicast, reserved or unspecified.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public_v4(v4);
            }
            let s = v6.segments();
            // NAT64 (64:ff9b::/96) reaches the IPv4 address it embeds.
            if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
                let [a, b] = s[6].to_be_bytes();
                let [c, d] = s[7].to_be_bytes();
                return is_public_v4(Ipv4Addr::new(a, b, c, d));
            }
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00 // unique local
                || (s[0] & 0xffc0) == 0xfe80 // link-local
                || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
                || v6 == Ipv6Addr::from_bits(1)) // ::1, again for clarity
        }
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_documentation()
        || ip.is_multicast()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240) // reserved
}

/// A DNS resolver that gives only public addresses (unless private ones are allowed): the check
/// happens on what the connection will use, so DNS rebinding between a check and the connect
/// cannot slip past.
#[derive(Debug)]
struct PublicOnly {
    allow_private: bool,
}

impl reqwest::dns::Resolve for PublicOnly {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow_private = self.allow_private;
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((name.as_str(), 0)).await?.collect();
            if !allow_private && addrs.iter().any(|a| !is_public(a.ip())) {
                return Err(format!(
                    "{} resolves to a private address (set RAGDOWN_OAUTH_PRIVATE_CLIENTS=true to allow clients on your network)",
                    name.as_str()
                )
                .into());
            }
            let addrs: reqwest::dns::Addrs = Box::new(addrs.into_iter());
            Ok(addrs)
        })
    }
}

/// Fetches and caches client metadata documents.
#[derive(Debug)]
pub struct Fetcher {
    http: reqwest::Client,
    allow_private: bool,
    cache: Mutex<HashMap<String, (ClientMetadata, u64)>>,
}

impl Fetcher {
    /// A fetcher; `allow_private` lets documents come from private addresses.
    pub fn new(allow_private: bool) -> Self {
        let http = reqwest::Client::builder()
            .dns_resolver(Arc::new(PublicOnly { allow_private }))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .connect_timeout(Duration::from_secs(3))
            .timeout(Duration::from_secs(5))
            .user_agent(concat!("ragdown/", env!("CARGO_PKG_VERSION")))
            .build()
            .unwrap_or_default();
        Self {
            http,
            allow_private,
            cache: Mutex::default(),
        }
    }

    /// The document of `client_id`, from the cache or fetched now; `Err` says why it cannot be used
    /// (shown to the person connecting, never a redirect).
    pub async fn get(&self, client_id: &str, now: u64) -> Result<ClientMetadata, Rejected> {
        if let Some((meta, until)) = self.cache.lock().get(client_id)
            && *until > now
        {
            return Ok(meta.clone());
        }
        let url = check_url(client_id)?;
        if !self.allow_private {
            let literal = match url.host() {
                Some(Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
                Some(Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
                _ => None,
            };
            if literal.is_some_and(|ip| !is_public(ip)) {
                return Err(format!(
                    "the client's metadata document is on a private address ({}); set RAGDOWN_OAUTH_PRIVATE_CLIENTS=true to allow clients on your network",
                    url.host_str().unwrap_or_default()
                )
                .into());
            }
        }
        let (meta, keep_ms) = self.fetch(url, client_id).await?;
        if let Some(keep_ms) = keep_ms {
            let mut cache = self.cache.lock();
            cache.retain(|_, (_, until)| *until > now);
            if cache.len() < MAX_CACHED {
                cache.insert(client_id.to_string(), (meta.clone(), now + keep_ms));
            }
        }
        Ok(meta)
    }

    async fn fetch(&self, url: Url, client_id: &str) -> Result<(ClientMetadata, Option<u64>), Rejected> {
        let failed = |why: String| {
            Rejected::from(format!(
                "could not fetch the client's metadata document {client_id}: {why}"
            ))
        };
        let mut response = self
            .http
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|err| failed(error_chain(&err)))?;
        if response.status() != reqwest::StatusCode::OK {
            return Err(failed(format!("it answered {}", response.status())));
        }
        let keep_ms = cache_time(response.headers().get(reqwest::header::CACHE_CONTROL));
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|err| failed(error_chain(&err)))? {
            body.extend_from_slice(&chunk);
            if body.len() > MAX_BYTES {
                return Err(failed(format!("it is larger than {MAX_BYTES} bytes")));
            }
        }
        Ok((parse(&body, client_id)?, keep_ms))
    }
}

/// An error with its causes (reqwest's own message hides the resolver's refusal).
fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// How long to cache, from `Cache-Control`; `None`: not at all.
fn cache_time(header: Option<&reqwest::header::HeaderValue>) -> Option<u64> {
    let Some(value) = header.and_then(|v| v.to_str().ok()) else {
        return Some(DEFAULT_CACHE_MS);
    };
    let mut keep = DEFAULT_CACHE_MS;
    for directive in value.split(',').map(str::trim) {
        let lower = directive.to_ascii_lowercase();
        if lower == "no-store" || lower == "no-cache" {
            return None;
        }
        if let Some(seconds) = lower.strip_prefix("max-age=").and_then(|s| s.parse::<u64>().ok()) {
            keep = seconds.saturating_mul(1000).min(MAX_CACHE_MS);
        }
    }
    (keep > 0).then_some(keep)
}

/// Reads and checks a document fetched from `client_id`.
pub fn parse(body: &[u8], client_id: &str) -> Result<ClientMetadata, Rejected> {
    let bad = |why: String| {
        Rejected::from(format!(
            "the client's metadata document {client_id} cannot be used: {why}"
        ))
    };
    let doc: Document = serde_json::from_slice(body).map_err(|err| bad(format!("not a JSON object ({err})")))?;
    if doc.client_id.as_deref() != Some(client_id) {
        return Err(bad("its client_id is not its own URL".into()));
    }
    let name = super::client_name(doc.client_name.as_deref()).ok_or_else(|| bad("it has no client_name".into()))?;
    redirect::check_all(&doc.redirect_uris).map_err(|why| bad(why.to_string()))?;
    if let Some(method) = doc.token_endpoint_auth_method.as_deref().filter(|m| *m != "none") {
        return Err(bad(format!(
            "token_endpoint_auth_method {method:?}: this server takes public clients (none) with PKCE"
        )));
    }
    if let Some(types) = &doc.grant_types {
        super::check_grant_types(types).map_err(|why| bad(why.to_string()))?;
    }
    Ok(ClientMetadata {
        client_id: client_id.to_string(),
        client_name: name,
        client_uri: super::client_uri(doc.client_uri),
        redirect_uris: doc.redirect_uris,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_id_urls_are_https_with_a_path() {
        assert!(check_url("https://app.example/client.json").is_ok());
        for bad in [
            "http://app.example/client.json",
            "https://app.example",
            "https://app.example/",
            "https://user:pw@app.example/c.json",
            "https://app.example/c.json#x",
            "https://app.example/a/../c.json",
            "https://app.example/./c.json",
        ] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn private_and_special_addresses_are_not_public() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "198.18.0.1",
            "240.0.0.1",
            "::1",
            "::",
            "fc00::1",
            "fd12::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
            "2001:db8::1",
        ] {
            assert!(!is_public(private.parse().unwrap()), "{private}");
        }
        for public in ["1.1.1.1", "93.184.216.34", "2606:4700::1111", "::ffff:8.8.8.8"] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }

    #[test]
    fn a_document_must_name_itself_the_client_and_good_redirect_uris() {
        let id = "https://app.example/client.json";
        let good = format!(r#"{{"client_id":"{id}","client_name":"App","redirect_uris":["https://app.example/cb"]}}"#);
        let meta = parse(good.as_bytes(), id).unwrap();
        assert_eq!(meta.client_name, "App");
        assert!(parse(good.as_bytes(), "https://other.example/client.json").is_err());
        for bad in [
            format!(r#"{{"client_id":"{id}","redirect_uris":["https://app.example/cb"]}}"#),
            format!(r#"{{"client_id":"{id}","client_name":"App","redirect_uris":[]}}"#),
            format!(r#"{{"client_id":"{id}","client_name":"App","redirect_uris":["http://evil.example/cb"]}}"#),
            format!(
                r#"{{"client_id":"{id}","client_name":"App","redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}}"#
            ),
            "[1,2]".to_string(),
        ] {
            assert!(parse(bad.as_bytes(), id).is_err(), "{bad}");
        }
    }

    #[test]
    fn cache_time_follows_cache_control() {
        use reqwest::header::HeaderValue;
        assert_eq!(cache_time(None), Some(DEFAULT_CACHE_MS));
        assert_eq!(cache_time(Some(&HeaderValue::from_static("max-age=60"))), Some(60_000));
        assert_eq!(
            cache_time(Some(&HeaderValue::from_static("public, max-age=999999"))),
            Some(MAX_CACHE_MS)
        );
        assert_eq!(cache_time(Some(&HeaderValue::from_static("no-store"))), None);
        assert_eq!(cache_time(Some(&HeaderValue::from_static("max-age=0"))), None);
    }

    #[tokio::test]
    async fn a_document_on_a_private_address_is_never_fetched() {
        let fetcher = Fetcher::new(false);
        let err = fetcher.get("https://127.0.0.1:9/client.json", 0).await.unwrap_err();
        assert!(err.to_string().contains("private address"), "{err}");
        let err = fetcher.get("https://localhost:9/client.json", 0).await.unwrap_err();
        assert!(err.to_string().contains("private address"), "{err}");
    }
}
