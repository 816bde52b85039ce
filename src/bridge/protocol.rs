//! The runner's answers as they arrive (JSON lines), and what they say about a file that did not load.

use serde::Deserialize;
use serde_json::Value;

use super::{BridgeConfig, LoadError, LoadKind, Location};

#[derive(Deserialize)]
pub(super) struct Frame {
    line: u32,
    function: String,
    code: String,
}

#[derive(Deserialize)]
pub(super) struct Answer {
    /// The request answered; 0 for the answer to loading.
    pub id: Option<u64>,
    #[serde(default)]
    pub ok: bool,
    #[serde(default)]
    pub ready: bool,
    /// There even when it is `null` (a function that returned None), which `Option` alone would
    /// take for absent.
    #[serde(default, deserialize_with = "present")]
    pub value: Option<Value>,
    pub kind: Option<String>,
    pub message: Option<String>,
    #[serde(default)]
    pub frames: Vec<Frame>,
    pub load_error: Option<LoadReport>,
    /// Bytes of output the runner counted past the cap instead of writing them.
    #[serde(default)]
    pub dropped: u64,
    /// The size of a value too big to send.
    pub size: Option<u64>,
}

/// A key that is there, even holding `null`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

#[derive(Deserialize)]
pub(super) struct LoadReport {
    kind: String,
    message: String,
    line: Option<u32>,
    code: Option<String>,
    #[serde(default)]
    pub frames: Vec<Frame>,
}

pub(super) fn location(frames: &[Frame], file: &str) -> Option<Location> {
    frames.last().map(|f| Location {
        file: file.to_string(),
        line: f.line,
        function: (f.function != "<module>").then(|| f.function.clone()),
        code: f.code.clone(),
    })
}

pub(super) fn load_error(cfg: &BridgeConfig, report: LoadReport) -> LoadError {
    let file = &cfg.shown_as;
    let (kind, message) = match report.kind.as_str() {
        "syntax" => {
            let at = report.line.map(|l| format!(", line {l}")).unwrap_or_default();
            let code = report.code.filter(|c| !c.is_empty()).map(|c| format!("\n    {c}")).unwrap_or_default();
            (LoadKind::Syntax, format!("{file}{at}: {}{code}", report.message))
        }
        "missing" => {
            let names: Vec<&str> = cfg.functions.iter().map(|f| f.split('=').next().unwrap_or(f)).collect();
            (
                LoadKind::Missing,
                format!("{file} has {}: the lesson needs {} defined in it.", report.message, names.join(" and ")),
            )
        }
        "signature" => {
            let at = report.line.map(|l| format!(", line {l}")).unwrap_or_default();
            (
                LoadKind::Missing,
                format!(
                    "{file}{at}: {}. Give it the parameters the lesson names (see ./workshop lesson).",
                    report.message
                ),
            )
        }
        "unreadable" => (LoadKind::Unreadable, format!("could not read {file}: {}", report.message)),
        other => {
            let kind = match other {
                "import" => LoadKind::Import,
                "exit" => LoadKind::Exit,
                _ => LoadKind::Exception,
            };
            let at = match location(&report.frames, &cfg.shown_as) {
                Some(l) => format!(", line {}: {}\n    {}", l.line, report.message, l.code),
                None => format!(": {}", report.message),
            };
            (kind, format!("{file} failed while loading{at}"))
        }
    };
    LoadError::new(kind, message)
}
