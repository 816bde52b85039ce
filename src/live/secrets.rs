//! Keeping the API key inside the process: a key type that never prints itself, redaction of
//! anything that echoes it, and a scan that refuses recordings holding key-shaped text or
//! authentication headers.

use std::fmt;

/// The variable the key is read from, named in every message about it.
pub const KEY_VAR: &str = "ANTHROPIC_API_KEY";

/// An API key. It has no `Display`, and its `Debug` shows nothing of it, so no message, log or
/// JSON can carry it by accident; `expose` is called in one place, where the header is set.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    /// The key from the environment; `None` when it is unset or blank.
    pub fn from_env() -> Option<ApiKey> {
        std::env::var(KEY_VAR).ok().map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).map(ApiKey)
    }

    #[cfg(test)]
    pub fn new(key: &str) -> ApiKey {
        ApiKey(key.trim().to_string())
    }

    #[cfg_attr(not(feature = "live"), allow(dead_code))]
    pub(super) fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced, for text that came from outside (an
    /// error body, an I/O error) before it is shown.
    pub fn redact(&self, text: &str) -> String {
        if self.0.len() < 4 {
            return text.to_string();
        }
        text.replace(&self.0, "[redacted]")
    }
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
pub fn scan(text: &str) -> Option<&'static str> {
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find(KEY_PREFIX) {
        let start = from + at + KEY_PREFIX.len();
        let tail = lower[start..].bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_').count();
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
    fn the_key_never_prints() {
        let key = ApiKey::new("sk-ant-test-0123456789abcdef");
        assert_eq!(format!("{key:?}"), "ApiKey([redacted])");
        assert_eq!(key.redact("bad key sk-ant-test-0123456789abcdef!"), "bad key [redacted]!");
    }
}
