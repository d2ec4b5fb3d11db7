//! The health probe behind `embedd health` and `ragdownd health`: the Docker images'
//! `HEALTHCHECK`, in images that carry no curl. One GET over loopback; healthy means a 200 within
//! the timeout.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

/// How long a probe waits for the whole answer.
pub const TIMEOUT: Duration = Duration::from_secs(3);

/// The address a probe on this host reaches a server listening on `listen` at: a wildcard
/// (`0.0.0.0`, `::`) is reached over loopback.
pub fn local_address(listen: SocketAddr) -> SocketAddr {
    let ip = match listen.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, listen.port())
}

/// Why a probe found the server unhealthy. Each message starts with the URL probed.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// No answer: nobody listens, the connection failed, the timeout passed or the body could
    /// not be read.
    #[error("{url}: {source}")]
    Request {
        url: String,
        #[source]
        source: ureq::Error,
    },
    /// An answer other than 200, with its (trimmed) body.
    #[error("{url}: HTTP {status}: {body}")]
    Status { url: String, status: u16, body: String },
}

/// GETs `http://<addr><path>`: the body on a 200, otherwise what went wrong, URL included.
pub fn probe(addr: SocketAddr, path: &str, timeout: Duration) -> Result<String, ProbeError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .build()
        .into();
    let url = format!("http://{addr}{path}");
    let request_failed = |source| ProbeError::Request {
        url: url.clone(),
        source,
    };
    let mut response = agent.get(&url).call().map_err(request_failed)?;
    let status = response.status();
    let body = response
        .body_mut()
        .with_config()
        .limit(1 << 20)
        .read_to_string()
        .map_err(request_failed)?;
    if status == 200 {
        Ok(body)
    } else {
        Err(ProbeError::Status {
            url,
            status: status.as_u16(),
            body: body.trim().to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn a_wildcard_listener_is_probed_over_loopback() {
        assert_eq!(
            local_address("0.0.0.0:3000".parse().unwrap()),
            "127.0.0.1:3000".parse().unwrap()
        );
        assert_eq!(
            local_address("[::]:8080".parse().unwrap()),
            "[::1]:8080".parse().unwrap()
        );
        assert_eq!(
            local_address("10.1.2.3:80".parse().unwrap()),
            "10.1.2.3:80".parse().unwrap()
        );
    }

    /// A one-shot server answering `status` with `body`; returns its address.
    fn answer_once(status: &'static str, body: &'static str) -> SocketAddr {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = [0u8; 1024];
            let _ = stream.read(&mut request);
            let reply = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            stream.write_all(reply.as_bytes()).unwrap();
        });
        addr
    }

    #[test]
    fn a_200_is_healthy_and_anything_else_is_not() {
        assert_eq!(probe(answer_once("200 OK", "ok"), "/health", TIMEOUT).unwrap(), "ok");
        let err = probe(answer_once("503 Service Unavailable", "loading"), "/health", TIMEOUT)
            .unwrap_err()
            .to_string();
        assert!(err.contains("HTTP 503: loading"), "{err}");
    }

    #[test]
    fn nobody_listening_is_unhealthy() {
        let addr = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let err = probe(addr, "/health", TIMEOUT).unwrap_err().to_string();
        assert!(err.starts_with(&format!("http://{addr}/health: ")), "{err}");
    }
}
