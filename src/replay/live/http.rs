//! The HTTP side of the client (built with the `live` feature): one blocking request at a time
//! with ureq and rustls, retried by the SDK's rules in `retry.rs`.

use std::time::Duration;

use serde_json::Value;

use super::client::{
    describe_transient, said, ApiAnswer, NoReply, Settings, BASE_VAR, MAX_REQUESTS_VAR,
};
use super::retry::{self, Jitter};
use crate::replay::recordings;
use crate::secrets::KEY_VAR;

/// The `anthropic-version` header the SDK sends (`_constants.py`).
pub(super) use super::client::API_VERSION;

/// The SDK's connect timeout.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// A reply larger than this is not a Messages API reply to our small requests.
const MAX_BODY: u64 = 8 * 1024 * 1024;

/// A response read whole: its body and the headers that say what to do next.
struct WholeResponse {
    request_id: String,
    should_retry: Option<String>,
    wait: Option<Duration>,
    text: String,
}

/// One attempt's outcome, before the retry policy looks at it.
enum AttemptOutcome {
    Done(ApiAnswer),
    /// A status, its headers for the retry policy, and the API's own words about it.
    Status {
        status: u16,
        should_retry: Option<String>,
        wait: Option<Duration>,
        kind: String,
        message: String,
    },
    /// No response: the connection failed, was reset or timed out.
    Transport(String),
}

pub(crate) struct Client {
    agent: ureq::Agent,
    settings: Settings,
    jitter: Jitter,
    /// HTTP requests sent so far, retries included.
    pub sent: u32,
}

impl Client {
    pub(crate) fn new(settings: Settings) -> Client {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(settings.timeout))
            .timeout_connect(Some(CONNECT_TIMEOUT))
            // A redirect could carry the key to another host: none is followed.
            .max_redirects(0)
            .user_agent(format!("workshop/{}", env!("CARGO_PKG_VERSION")))
            .build();
        Client { agent: config.into(), settings, jitter: Jitter::default(), sent: 0 }
    }

    pub(crate) fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Send a request, retrying what the SDK retries, within the command's request cap.
    pub(crate) fn send(&mut self, request: &Value) -> Result<ApiAnswer, NoReply> {
        let body = recordings::canonical(request);
        let mut retries_taken = 0;
        loop {
            if self.sent >= self.settings.max_requests {
                return Err(NoReply(format!(
                    "stopped after {} requests to the API, the cap for one command, so a loop cannot run up a bill. Raise it with --max-requests N (or {MAX_REQUESTS_VAR}) if this lesson needs more.",
                    self.sent
                )));
            }
            self.sent += 1;
            let (wait, what, next) = match self.attempt(&body, retries_taken) {
                AttemptOutcome::Done(answer) => return Ok(answer),
                AttemptOutcome::Status { status, should_retry, wait, kind, message } => {
                    if !retry::should_retry(status, should_retry.as_deref()) {
                        return Err(self.refused(status, &kind, &message));
                    }
                    (
                        wait,
                        describe_transient(status, &kind, &message),
                        "Wait a minute and run this again.".to_string(),
                    )
                }
                AttemptOutcome::Transport(why) => (
                    None,
                    why,
                    format!(
                        "Check the network and {BASE_VAR} ({}), then run this again.",
                        self.settings.shown_base()
                    ),
                ),
            };
            if retries_taken >= retry::MAX_RETRIES {
                return Err(NoReply(format!(
                    "the API did not answer after {} attempts: {what}. {next}",
                    retries_taken + 1
                )));
            }
            if let Some(asked) = wait.filter(|w| *w > retry::MAX_SERVER_WAIT) {
                return Err(NoReply(format!(
                    "the API asked to wait {} s before trying again ({what}). Run this again after that.",
                    asked.as_secs()
                )));
            }
            std::thread::sleep(retry::delay(retries_taken, wait, self.jitter.draw()));
            retries_taken += 1;
        }
    }

    fn attempt(&mut self, body: &str, retries_taken: u32) -> AttemptOutcome {
        let key = &self.settings.key;
        let url = format!("{}/v1/messages", self.settings.base);
        let sent = self
            .agent
            .post(&url)
            .header("accept", "application/json")
            .header("content-type", "application/json")
            .header("anthropic-version", API_VERSION)
            .header("authorization", format!("Bearer {}", key.expose()))
            .header("x-stainless-retry-count", retries_taken.to_string())
            .send(body);
        let broke = |e: &ureq::Error| {
            AttemptOutcome::Transport(self.settings.redact(&transport_words(e, &self.settings)))
        };
        let mut response = match sent {
            Ok(response) => response,
            Err(e) => return broke(&e),
        };
        let status = response.status().as_u16();
        let header = |name: &str| {
            response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
        };
        let request_id = header("request-id").unwrap_or_default();
        let should_retry = header("x-should-retry");
        let wait = retry::server_wait(
            header("retry-after-ms").as_deref(),
            header("retry-after").as_deref(),
            std::time::SystemTime::now(),
        );
        let text = match response.body_mut().with_config().limit(MAX_BODY).read_to_string() {
            Ok(text) => text,
            Err(e) => return broke(&e),
        };
        self.outcome(status, WholeResponse { request_id, should_retry, wait, text })
    }

    /// What a response that arrived whole says: the API's message, or its error in its shape.
    fn outcome(&self, status: u16, got: WholeResponse) -> AttemptOutcome {
        let WholeResponse { request_id, should_retry, wait, text } = got;
        let parsed: Option<Value> = serde_json::from_str(&text).ok();
        if (200..300).contains(&status) {
            return match parsed {
                Some(response) if response.is_object() => {
                    AttemptOutcome::Done(ApiAnswer { response, request_id })
                }
                _ => AttemptOutcome::Status {
                    status,
                    should_retry: Some("false".into()),
                    wait: None,
                    kind: "not JSON".into(),
                    message: "the reply was not a JSON message".into(),
                },
            };
        }
        // The API's error shape: {"type": "error", "error": {"type": ..., "message": ...}}.
        let error = parsed.as_ref().and_then(|v| v.get("error"));
        let field = |name: &str| {
            error.and_then(|e| e.get(name)).and_then(Value::as_str).map(str::to_string)
        };
        let kind = field("type").unwrap_or_default();
        let mut message = field("message").unwrap_or_else(|| text.chars().take(200).collect());
        message = self.settings.redact(message.trim());
        AttemptOutcome::Status {
            status,
            should_retry,
            wait,
            kind: self.settings.redact(&kind),
            message,
        }
    }

    /// The message for a status that is not retried: what happened, and what to do.
    fn refused(&self, status: u16, kind: &str, message: &str) -> NoReply {
        let said = said(status, kind, message);
        let base = &self.settings.shown_base();
        NoReply(match status {
            401 => format!(
                "the API did not accept the key in {KEY_VAR} ({said}). Set {KEY_VAR} to a current key from your Anthropic console and run this again."
            ),
            403 => format!(
                "the key in {KEY_VAR} may not make this request ({said}). Use a key whose workspace may call this model, or ask its admin."
            ),
            404 => format!(
                "{base}/v1/messages has no such model or endpoint ({said}). Check the lesson's model and {BASE_VAR}."
            ),
            400 => format!(
                "the API refused the request ({said}). If it names the request, run ./workshop doctor and report it; if it names your account (such as its credit), fix that first."
            ),
            200..=299 => format!("the API's reply could not be read ({said}). Run this again; if it persists, check {BASE_VAR}."),
            _ => format!("the API refused the request ({said}). Its message says what to change."),
        })
    }
}

/// A transport failure in words, without the request (which would hold the key's header).
fn transport_words(error: &ureq::Error, settings: &Settings) -> String {
    let base = &settings.shown_base();
    match error {
        ureq::Error::Timeout(_) => format!("no reply within {} s", settings.timeout.as_secs_f64()),
        ureq::Error::HostNotFound => format!("the host of {base} was not found (check {BASE_VAR})"),
        ureq::Error::ConnectionFailed => format!("could not connect to {base}"),
        ureq::Error::Io(e) => format!("the connection to {base} failed: {e}"),
        other => format!("the request to {base} failed: {other}"),
    }
}
