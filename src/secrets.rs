//! Keeping the API key inside the process: a key type that never prints itself, redaction of
//! anything that echoes it, and a scan that refuses recordings holding key-shaped text or
//! authentication headers.

use std::fmt;

/// The variable the key is read from, named in every message about it.
pub(crate) const KEY_VAR: &str = "ANTHROPIC_API_KEY";

/// An API key. It has no `Display`, and its `Debug` shows nothing of it, so no message, log or
/// JSON can carry it by accident; `expose` is called in one place, where the header is set.
#[derive(Clone)]
pub(crate) struct ApiKey(String);

impl ApiKey {
    /// The key from the environment; `None` when it is unset or blank.
    pub(crate) fn from_env() -> Option<ApiKey> {
        std::env::var(KEY_VAR)
            .ok()
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty())
            .map(ApiKey)
    }

    #[cfg(test)]
    pub(crate) fn new(key: &str) -> ApiKey {
        ApiKey(key.trim().to_string())
    }

    #[cfg_attr(not(feature = "live"), allow(dead_code))]
    pub(super) fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced, for text that came from outside (an
    /// error body, an I/O error) before it is shown.
    pub(crate) fn redact(&self, text: &str) -> String {
        if self.0.len() < 4 {
            return text.to_string();
        }
        text.replace(&self.0, "[redacted]")
    }

    /// Whether `text` holds the key itself, whatever its shape (a gateway's token is no
    /// `sk-ant-` key): what a server echoes must never be written to a recording.
    pub(crate) fn is_in(&self, text: &str) -> bool {
        self.0.len() >= 4 && text.contains(&self.0)
    }
}

/// An address as it may be shown: a password in it (`https://user:secret@host`) is replaced, and
/// so is a lone user part, which gateways use for tokens.
pub(crate) fn shown_address(address: &str) -> String {
    let Some((scheme, rest)) = address.split_once("://") else { return address.to_string() };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let Some((userinfo, host)) = authority.rsplit_once('@') else { return address.to_string() };
    let user = match userinfo.split_once(':') {
        Some((user, _)) => format!("{user}:[redacted]"),
        None => "[redacted]".to_string(),
    };
    format!("{scheme}://{user}@{host}{}", &rest[authority.len()..])
}

/// The password (or lone user part) of an address, to take out of messages that quote it.
pub(crate) fn address_secret(address: &str) -> Option<&str> {
    let rest = address.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let userinfo = authority.rsplit_once('@')?.0;
    let secret = userinfo.split_once(':').map_or(userinfo, |(_, password)| password);
    (!secret.is_empty()).then_some(secret)
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

/// The prefix of Anthropic API keys, and how many key characters must follow it to count.
const KEY_PREFIX: &str = "sk-ant-";
const KEY_MIN_TAIL: usize = 16;

/// Header names that carry credentials; a recording must never hold them.
const AUTH_HEADERS: [&str; 3] = ["x-api-key", "authorization", "proxy-authorization"];

/// What a recording line holds that it must not, or `None` when it is clean.
pub(crate) fn scan(text: &str) -> Option<&'static str> {
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find(KEY_PREFIX) {
        let start = from + at + KEY_PREFIX.len();
        let tail = lower[start..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_')
            .count();
        if tail >= KEY_MIN_TAIL {
            return Some("something shaped like an API key (sk-ant-...)");
        }
        from = start;
    }
    for header in AUTH_HEADERS {
        // As a JSON key: `"authorization":`, with any spacing.
        let quoted = format!("\"{header}\"");
        let mut rest = lower.as_str();
        while let Some(at) = rest.find(&quoted) {
            rest = &rest[at + quoted.len()..];
            if rest.trim_start().starts_with(':') {
                return Some(match header {
                    "x-api-key" => "an x-api-key header",
                    _ => "an authorization header",
                });
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_key_shapes_and_auth_headers() {
        assert!(scan(r#"{"text":"key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv"}"#).is_some());
        assert!(scan(r#"{"headers":{"X-Api-Key" : "abc"}}"#).unwrap().contains("x-api-key"));
        assert!(scan(r#"{"Authorization":"Bearer t"}"#).unwrap().contains("authorization"));
        // Words that merely mention them are not secrets.
        assert_eq!(scan(r#"{"text":"set the authorization header; keys start sk-ant-"}"#), None);
        assert_eq!(scan(r#"{"text":"the \"authorization\" step"}"#), None);
    }

    #[test]
    fn an_address_is_shown_without_its_password() {
        assert_eq!(
            shown_address("https://me:hunter2@gw.example/v1?x=1"),
            "https://me:[redacted]@gw.example/v1?x=1"
        );
        assert_eq!(shown_address("https://tok3n@gw.example"), "https://[redacted]@gw.example");
        assert_eq!(shown_address("https://api.anthropic.com"), "https://api.anthropic.com");
        assert_eq!(address_secret("http://me:hunter2@127.0.0.1:9/"), Some("hunter2"));
        assert_eq!(address_secret("http://127.0.0.1:9"), None);
    }

    #[test]
    fn the_key_is_found_whatever_its_shape() {
        let key = ApiKey::new("gw-token-0123456789");
        assert!(key.is_in(r#"{"request_id":"echo gw-token-0123456789"}"#));
        assert!(!key.is_in(r#"{"request_id":"req_1"}"#));
    }

    #[test]
    fn the_key_never_prints() {
        let key = ApiKey::new("sk-ant-test-0123456789abcdef");
        assert_eq!(format!("{key:?}"), "ApiKey([redacted])");
        assert_eq!(key.redact("bad key sk-ant-test-0123456789abcdef!"), "bad key [redacted]!");
    }
}
