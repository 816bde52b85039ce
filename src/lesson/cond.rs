//! What one count of a run must be, for a ticket's notes and its question's choices.

use serde::Deserialize;
use serde_json::Value;

/// The ways a run can end, as a condition's `ends` names them (`counts::Counts::ends`).
pub(crate) const ENDINGS: [&str; 7] = [
    "reply",
    // Without the model's final answer.
    "no_recording",
    "api_error",
    "code_error",
    "cap",
    // An MCP host that ended the run on a JSON-RPC error (`[mcp] on_error`).
    "rpc_ended",
    "none",
];

/// The counts a note or a prediction may name, besides the world's own counts: the fields of
/// `counts::Counts` as a run writes them (a test below keeps the two lists the same).
pub(crate) const COUNT_KEYS: [&str; 21] = [
    "attempts",
    "reads",
    "retries",
    "wasted_retries",
    "blind_retries",
    "overturned_retries",
    "bare_failures",
    "reports",
    "leaks",
    "model_read_bare",
    "unflagged_failures",
    "protocol_errors",
    "tool_errors",
    "relists",
    "failed",
    "ends",
    "api_errors",
    "api_retries",
    "client_retries",
    "turns",
    "elapsed_ms",
];

/// The prefix of the counts of facts named: `named_until` is how many failures the model read
/// named their `until`, for any fact a world's failure carries.
pub(crate) const NAMED: &str = "named_";

/// The prefix of the counts of properties: `has_names_until` is how many failures the model read
/// had the lesson's property `names_until` (0 when those it could be read on all lacked it).
pub(crate) const HAS: &str = "has_";

/// What one count must be: a number (`1`), a comparison (`">=1"`, `"<3"`, `"!=2"`), a yes or
/// no (`failed = true`), or a word (`ends = "reply"`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Cond {
    Bool(bool),
    Number(i64),
    Text(String),
}

impl Cond {
    /// A comparison written as text: `">=1"` is `(">=", 1)`.
    fn comparison(text: &str) -> Option<(&str, i64)> {
        let text = text.trim();
        let op = [">=", "<=", "!=", ">", "<", "="].into_iter().find(|op| text.starts_with(op))?;
        Some((op, text[op.len()..].trim().parse().ok()?))
    }

    /// Whether a count holds this condition; a count the run does not have holds none.
    pub fn holds(&self, value: Option<&Value>) -> bool {
        let Some(value) = value else { return false };
        match self {
            Cond::Bool(b) => value.as_bool() == Some(*b),
            Cond::Number(n) => value.as_i64() == Some(*n),
            Cond::Text(text) => match (Cond::comparison(text), value.as_i64()) {
                (Some((op, n)), Some(v)) => match op {
                    ">=" => v >= n,
                    "<=" => v <= n,
                    "!=" => v != n,
                    ">" => v > n,
                    "<" => v < n,
                    _ => v == n,
                },
                _ => value.as_str() == Some(text.as_str()),
            },
        }
    }

    /// Why this condition cannot apply to the count `key`, if it cannot.
    pub(super) fn problem(&self, key: &str) -> Option<String> {
        match (key, self) {
            ("failed", Cond::Bool(_)) => None,
            ("failed", _) => Some("failed is true or false".into()),
            ("ends", Cond::Text(word)) if ENDINGS.contains(&word.as_str()) => None,
            ("ends", _) => Some(format!("ends is one of {}", ENDINGS.join(", "))),
            (_, Cond::Number(n)) if *n >= 0 => None,
            (_, Cond::Text(text)) if Cond::comparison(text).is_some() => None,
            _ => Some(format!(
                "{key} is a count: give a number such as 1, or a comparison such as \">=1\""
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Cond;
    use serde_json::json;

    #[test]
    fn the_counts_a_lesson_may_name_are_the_counts_a_run_writes() {
        let written = crate::replay::counts::Counts::default().value();
        let written: Vec<&str> =
            written.as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default();
        assert_eq!(written, super::COUNT_KEYS);
    }

    #[test]
    fn a_condition_holds_of_a_number_a_comparison_a_yes_or_no_and_a_word() {
        let holds = |cond: Cond, value: serde_json::Value| cond.holds(Some(&value));
        assert!(holds(Cond::Number(2), json!(2)));
        assert!(!holds(Cond::Number(2), json!(1)));
        for (text, yes, no) in
            [(">=1", 1, 0), ("<3", 2, 3), ("!=2", 1, 2), (">0", 5, 0), ("<=1", 1, 2), ("=4", 4, 3)]
        {
            assert!(holds(Cond::Text(text.into()), json!(yes)), "{text} of {yes}");
            assert!(!holds(Cond::Text(text.into()), json!(no)), "{text} of {no}");
        }
        assert!(holds(Cond::Bool(true), json!(true)));
        assert!(!holds(Cond::Bool(true), json!(1)), "a yes is not a number");
        assert!(holds(Cond::Text("reply".into()), json!("reply")));
        assert!(!holds(Cond::Text("reply".into()), json!("no_recording")));
        // A count the run does not have holds nothing, not even a "not".
        assert!(!Cond::Text("!=1".into()).holds(None));
    }

    #[test]
    fn a_condition_that_cannot_apply_to_its_count_says_why() {
        assert_eq!(Cond::Number(1).problem("reads"), None);
        assert_eq!(Cond::Text(">= 2".into()).problem("retries"), None);
        assert!(Cond::Text("many".into()).problem("retries").is_some());
        assert!(Cond::Number(-1).problem("attempts").is_some());
        assert!(Cond::Number(1).problem("failed").is_some());
        assert!(Cond::Text("later".into()).problem("ends").is_some());
        assert_eq!(Cond::Text("api_error".into()).problem("ends"), None);
    }
}
