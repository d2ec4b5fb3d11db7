//! Redirect URIs: which a client may register, and whether a presented one is registered.
//!
//! A client may register `https` URIs, `http` URIs on this computer (`localhost`, `127.0.0.1`,
//! `[::1]`: the MCP spec allows no other plain `http`), and a native app's private-use scheme,
//! which must hold a dot (`com.example.app:/callback`, RFC 8252 §7.1), so `javascript:`,
//! `data:` and `file:` never pass. None may carry a fragment.
//!
//! A presented URI must be one of the client's, character for character; the only latitude is
//! the one RFC 8252 §7.3 and OAuth 2.1 require: for a loopback IP literal (`127.0.0.1`, `[::1]`)
//! the port may differ, since a native app gets a free port from the system each time. Nothing
//! else is normalised, so there is no open redirect through a lookalike.

use url::{Host, Url};

use super::Rejected;

/// Most redirect URIs one client may register.
pub const MAX_URIS: usize = 10;

/// Longest redirect URI accepted.
const MAX_LEN: usize = 2_000;

/// Checks a redirect URI a client registers; `Err` says why it cannot be one.
pub fn check(uri: &str) -> Result<Url, Rejected> {
    if uri.len() > MAX_LEN {
        return Err("redirect URI too long".into());
    }
    let url = Url::parse(uri).map_err(|err| format!("redirect URI {uri:?} is not a URL: {err}"))?;
    if url.fragment().is_some() {
        return Err(format!("redirect URI {uri:?} must not have a fragment").into());
    }
    match url.scheme() {
        "https" if url.host().is_some() => Ok(url),
        "http" if is_loopback(&url) => Ok(url),
        "http" => Err(format!(
            "redirect URI {uri:?}: plain http only on this computer (localhost, 127.0.0.1, [::1]); use https"
        ).into()),
        scheme if scheme.contains('.') => Ok(url),
        _ => Err(format!(
            "redirect URI {uri:?}: use https, http on localhost, or an app's own scheme with a dot (com.example.app:/callback)"
        ).into()),
    }
}

/// Checks the redirect URIs a client lists: 1 to [`MAX_URIS`], each one [`check`] accepts.
pub fn check_all(uris: &[String]) -> Result<(), Rejected> {
    if uris.is_empty() || uris.len() > MAX_URIS {
        return Err(format!("redirect_uris must list 1 to {MAX_URIS} URIs").into());
    }
    uris.iter().try_for_each(|uri| check(uri).map(drop))
}

/// Whether an `http`/`https` URL's host is this computer.
fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// Whether `presented` is one of `registered`: the same text, or for a loopback IP literal over
/// `http`, the same URI on another port.
pub fn matches(registered: &[String], presented: &str) -> bool {
    if registered.iter().any(|r| r == presented) {
        return true;
    }
    let Ok(mut wanted) = Url::parse(presented) else {
        return false;
    };
    if wanted.scheme() != "http"
        || !matches!(wanted.host(), Some(Host::Ipv4(_) | Host::Ipv6(_)))
        || !is_loopback(&wanted)
    {
        return false;
    }
    // Compare with the port taken out of both, as parsed URLs (so only the port may differ).
    if wanted.set_port(None).is_err() {
        return false;
    }
    registered
        .iter()
        .filter_map(|r| Url::parse(r).ok())
        .any(|mut r| r.scheme() == "http" && r.set_port(None).is_ok() && r == wanted)
}

/// Whether every URI of a client returns to this computer (the consent page warns then: any app on
/// the computer could claim such a client's name).
pub fn localhost_only(uris: &[String]) -> bool {
    !uris.is_empty() && uris.iter().all(|u| Url::parse(u).is_ok_and(|url| is_loopback(&url)))
}

/// What the consent page shows of a redirect URI: its host, or for an app's own scheme, the scheme.
pub fn shown_host(uri: &str) -> String {
    match Url::parse(uri) {
        Ok(url) => match url.host_str() {
            Some(host) if !host.is_empty() => host.to_string(),
            _ => format!("{}:", url.scheme()),
        },
        Err(_) => uri.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_localhost_and_app_schemes_may_be_registered() {
        for good in [
            "https://claude.ai/api/mcp/auth_callback",
            "http://localhost:33418/callback",
            "http://127.0.0.1:8080/cb",
            "http://[::1]/cb",
            "com.example.app:/oauth",
            "cursor.app://callback",
        ] {
            assert!(check(good).is_ok(), "{good}");
        }
        for bad in [
            "http://example.com/cb",
            "http://192.168.1.4/cb",
            "javascript:alert(1)",
            "data:text/html,hi",
            "file:///etc/passwd",
            "https://claude.ai/cb#frag",
            "not a url",
            "myapp://cb",
        ] {
            assert!(check(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_client_lists_one_to_ten_good_uris() {
        assert!(check_all(&["https://app.example/cb".into()]).is_ok());
        assert!(check_all(&[]).is_err());
        assert!(check_all(&vec!["https://app.example/cb".to_string(); MAX_URIS + 1]).is_err());
        assert!(check_all(&["https://app.example/cb".into(), "http://evil.example/cb".into()]).is_err());
    }

    #[test]
    fn a_presented_uri_matches_exactly_but_for_a_loopback_ip_s_port() {
        let registered = vec![
            "https://claude.ai/api/mcp/auth_callback".to_string(),
            "http://127.0.0.1:3000/callback".to_string(),
            "http://localhost:3000/callback".to_string(),
        ];
        assert!(matches(&registered, "https://claude.ai/api/mcp/auth_callback"));
        assert!(matches(&registered, "http://127.0.0.1:49152/callback"));
        assert!(matches(&registered, "http://127.0.0.1/callback"));
        for bad in [
            "https://claude.ai/api/mcp/auth_callback/",
            "https://claude.ai/api/mcp/auth_callback?x=1",
            "https://CLAUDE.ai/api/mcp/auth_callback",
            "https://claude.ai.evil.example/api/mcp/auth_callback",
            "http://127.0.0.1:49152/callback2",
            "http://127.0.0.1:49152/callback?next=https://evil.example",
            "http://localhost:49152/callback",
            "https://127.0.0.1:3000/callback",
        ] {
            assert!(!matches(&registered, bad), "{bad}");
        }
    }

    #[test]
    fn what_the_consent_page_shows() {
        assert!(localhost_only(&[
            "http://127.0.0.1:1/cb".into(),
            "http://localhost/cb".into()
        ]));
        assert!(!localhost_only(&[
            "http://127.0.0.1:1/cb".into(),
            "https://app.example/cb".into()
        ]));
        assert!(!localhost_only(&[]));
        assert_eq!(shown_host("https://claude.ai/api/cb"), "claude.ai");
        assert_eq!(shown_host("com.example.app:/oauth"), "com.example.app:");
    }
}
