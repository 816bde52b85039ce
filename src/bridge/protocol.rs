//! The runner's answers as they arrive (JSON lines), and what they say about a file that did not load.

use serde::Deserialize;
use serde_json::Value;

use super::{BridgeConfig, LoadError, LoadKind, Location};

/// The version of the wire between the workshop and its Python: the runner's frames and the world
/// host's (docs/protocol.md). Both Python ends carry it (`PROTOCOL` in runner/start.py and host.py): the
/// runner says it in its hello and the host is given it with its load, and each side refuses the
/// other's when they differ. Raise it with any change to a frame.
pub(crate) const PROTOCOL: u64 = 1;

/// Whether a runner's first line is its hello, and in which version of the wire: `None` when it
/// is no hello at all.
pub(super) fn hello_version(line: &[u8]) -> Option<Option<u64>> {
    spoken(&serde_json::from_slice(line).ok()?)
}

/// As `hello_version`, of a line already read as JSON.
pub(super) fn spoken(hello: &Value) -> Option<Option<u64>> {
    (hello["hello"] == true).then(|| hello["protocol"].as_u64())
}

/// Why a runner that said hello in another version of the wire is not taken.
pub(super) fn other_version(spoken: Option<u64>) -> String {
    let spoken = spoken.map_or("no version".to_string(), |v| format!("version {v}"));
    format!(
        "its runner speaks {spoken} of the workshop's protocol, and this workshop speaks version \
         {PROTOCOL} (a runner kept from another build of the workshop?)"
    )
}

#[derive(Deserialize)]
pub(super) struct TraceFrame {
    line: u32,
    function: String,
    code: String,
}

#[derive(Deserialize)]
pub(super) struct RunnerAnswer {
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
    pub frames: Vec<TraceFrame>,
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
    pub frames: Vec<TraceFrame>,
}

pub(super) fn location(frames: &[TraceFrame], file: &str) -> Option<Location> {
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
            let code = report
                .code
                .filter(|c| !c.is_empty())
                .map(|c| format!("\n    {c}"))
                .unwrap_or_default();
            (LoadKind::Syntax, format!("{file}{at}: {}{code}", report.message))
        }
        "missing" => {
            let names: Vec<&str> =
                cfg.functions.iter().map(|f| f.split('=').next().unwrap_or(f)).collect();
            (
                LoadKind::Missing,
                format!(
                    "{file} has {}: the lesson needs {} defined in it.",
                    report.message,
                    names.join(" and ")
                ),
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
        "unreadable" => {
            (LoadKind::Unreadable, format!("could not read {file}: {}", report.message))
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_python_ends_carry_the_workshops_version_of_the_wire() {
        let line = format!("\nPROTOCOL = {PROTOCOL}\n");
        assert!(
            super::super::runner::RUNNER.contains(&line),
            "the runner's PROTOCOL is not {PROTOCOL}"
        );
        assert!(crate::world::python::HOST.contains(&line), "host.py's PROTOCOL is not {PROTOCOL}");
    }

    #[test]
    fn a_hello_is_told_by_its_version() {
        assert_eq!(hello_version(br#"{"hello": true, "protocol": 1, "pid": 7}"#), Some(Some(1)));
        assert_eq!(hello_version(br#"{"hello": true, "pid": 7}"#), Some(None));
        assert_eq!(hello_version(br#"{"ready": true}"#), None);
        assert_eq!(hello_version(b"Python 2.7"), None);
        assert!(other_version(Some(2)).contains("speaks version 2 of the workshop's protocol"));
        assert!(other_version(None).contains("speaks no version"));
    }
}
