//! A blocking client for one endpoint of the Messages API, `POST {base}/v1/messages`,
//! authenticated and versioned as the official Python SDK (anthropic 2.14.0) does: the key from
//! `ANTHROPIC_API_KEY` as `Authorization: Bearer <key>`, and `anthropic-version: 2026-10-21`.
//! The body sent is the request's canonical JSON, byte for byte what the replay key is made of.
//!
//! This file holds what every build has (settings, answers, failures in words); the HTTP side is
//! `http.rs`, built with the `live` feature, and without it `Client` is a stand-in that refuses.

use std::time::Duration;

use serde_json::Value;

use crate::secrets::{ApiKey, KEY_VAR};

/// The `anthropic-version` header the SDK sends (`_constants.py`).
pub(crate) const API_VERSION: &str = "2026-10-21";
/// Where the API lives unless `ANTHROPIC_BASE_URL` says otherwise.
pub(crate) const DEFAULT_BASE: &str = "https://api.anthropic.com";
pub(crate) const BASE_VAR: &str = "ANTHROPIC_BASE_URL";
/// Requests one command may send at most, retries included, unless told otherwise.
pub(crate) const DEFAULT_MAX_REQUESTS: u32 = 50;
pub(crate) const MAX_REQUESTS_VAR: &str = "WORKSHOP_LIVE_MAX_REQUESTS";
/// How long one request may take, unless told otherwise.
pub(crate) const DEFAULT_TIMEOUT_SECS: f64 = 60.0;

/// Why `--live` cannot work in a build without the `live` feature, and how to get one.
pub(crate) const NOT_BUILT_IN: &str = "this workshop was built without the live model client. Build it in once with WORKSHOP_FEATURES=live ./workshop (the launcher keeps it from then on), or cargo build --release --features live, then run this again.";

/// Why the live model cannot be asked with these settings: each says what to set.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Unset {
    #[error("{NOT_BUILT_IN}")]
    NotBuiltIn,
    #[error("--live asks the model, which needs an API key: set {KEY_VAR} (export {KEY_VAR}=...) and run this again.")]
    NoKey,
    #[error("{BASE_VAR} must be an http:// or https:// address, such as {DEFAULT_BASE}.")]
    BadBase,
    #[error("{MAX_REQUESTS_VAR}={0} is not a whole number: give the most requests one command may send, such as 50.")]
    BadMaxRequests(String),
    #[error("the request cap is 0, so nothing could be asked: give --max-requests 1 or more.")]
    NoRequests,
    #[error(
        "--request-timeout {0} is out of range: give seconds above 0 and at most 600, such as 60."
    )]
    BadTimeout(f64),
}

/// What a live command needs to reach the API.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub base: String,
    pub key: ApiKey,
    pub timeout: Duration,
    pub max_requests: u32,
}

impl Settings {
    /// From the environment and the command's flags. Every problem says what to set.
    pub(crate) fn resolve(
        max_requests: Option<u32>,
        timeout_secs: Option<f64>,
    ) -> Result<Settings, Unset> {
        if !cfg!(feature = "live") {
            return Err(Unset::NotBuiltIn);
        }
        let key = ApiKey::from_env().ok_or(Unset::NoKey)?;
        let base =
            std::env::var(BASE_VAR).ok().map(|b| b.trim().to_string()).filter(|b| !b.is_empty());
        let base =
            base.unwrap_or_else(|| DEFAULT_BASE.to_string()).trim_end_matches('/').to_string();
        if !(base.starts_with("https://") || base.starts_with("http://")) {
            return Err(Unset::BadBase);
        }
        let max_requests = match max_requests {
            Some(n) => n,
            None => match std::env::var(MAX_REQUESTS_VAR) {
                Ok(text) => text.trim().parse().map_err(|_| Unset::BadMaxRequests(text))?,
                Err(_) => DEFAULT_MAX_REQUESTS,
            },
        };
        if max_requests == 0 {
            return Err(Unset::NoRequests);
        }
        let secs = timeout_secs.unwrap_or(DEFAULT_TIMEOUT_SECS);
        if !(secs.is_finite() && secs > 0.0 && secs <= 600.0) {
            return Err(Unset::BadTimeout(secs));
        }
        Ok(Settings { base, key, timeout: Duration::from_secs_f64(secs), max_requests })
    }

    /// The API's address as messages show it: without a password in it.
    pub(crate) fn shown_base(&self) -> String {
        crate::secrets::shown_address(&self.base)
    }

    /// `text` from outside (an error body, an I/O error) with the key and the address's password
    /// taken out, before it is shown.
    pub(crate) fn redact(&self, text: &str) -> String {
        let text = self.key.redact(text);
        match crate::secrets::address_secret(&self.base) {
            Some(secret) if secret.len() >= 4 => text.replace(secret, "[redacted]"),
            _ => text,
        }
    }
}

/// The model's reply to one request.
#[derive(Debug, Clone)]
pub(crate) struct ApiAnswer {
    pub response: Value,
    /// The `request-id` response header, as the SDK exposes it.
    pub request_id: String,
}

/// Why a request got no reply. Every message says what to do, and none holds the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NoReply(pub String);

impl std::fmt::Display for NoReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg_attr(not(feature = "live"), allow(dead_code))]
pub(super) fn said(status: u16, kind: &str, message: &str) -> String {
    match (kind.is_empty(), message.is_empty()) {
        (true, true) => format!("HTTP {status}"),
        (true, false) => format!("HTTP {status}: {message}"),
        (false, true) => format!("HTTP {status} {kind}"),
        (false, false) => format!("HTTP {status} {kind}: {message}"),
    }
}

#[cfg_attr(not(feature = "live"), allow(dead_code))]
pub(super) fn describe_transient(status: u16, kind: &str, message: &str) -> String {
    let what = match status {
        429 => "rate limited",
        529 => "overloaded",
        408 => "the request timed out",
        s if s >= 500 => "a server error",
        _ => "a passing error",
    };
    format!("{what}, {}", said(status, kind, message))
}
