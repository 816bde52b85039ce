//! A lesson as data: `lessons/<id>/lesson.toml`, its starter files and its reference solution.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::error::Error;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    pub id: String,
    pub number: u32,
    pub course: String,
    pub title: String,
    pub summary: String,
    /// The learner's file name inside `work/<id>/`.
    pub file: String,
    pub functions: Vec<String>,
    /// The reference solution, relative to the lesson folder.
    pub solution: String,
    pub agent: AgentData,
    pub world: WorldData,
    pub tickets: Vec<Ticket>,
    pub checks: Vec<CheckText>,
    #[serde(skip)]
    pub dir: PathBuf,
}

/// What the agent sends the model, per runtime.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentData {
    pub model: String,
    pub max_tokens: u32,
    pub harness_system: String,
    pub sdk_system: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorldData {
    pub today: String,
    pub refund_window_days: i64,
    pub messages: BTreeMap<String, String>,
    pub customers: Vec<Customer>,
    pub orders: Vec<Order>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Customer {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Order {
    pub id: String,
    pub customer: String,
    pub item: String,
    pub purchased: String,
    pub total: String,
    /// Where the parcel is, for order lookups.
    #[serde(default = "default_status")]
    pub status: String,
}

fn default_status() -> String {
    "delivered".into()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ticket {
    pub id: String,
    pub customer: String,
    pub text: String,
    pub category: String,
    #[serde(default)]
    pub payment_timeouts: u32,
    /// Order lookups that time out this many times before they answer, by order id.
    #[serde(default)]
    pub lookup_timeouts: BTreeMap<String, u32>,
    /// The tools the model is offered; empty means the lesson's usual two.
    #[serde(default)]
    pub tools: Vec<String>,
    /// The runtimes the ticket runs in; empty means all of them.
    #[serde(default)]
    pub runtimes: Vec<String>,
    pub probe: Probe,
}

impl Ticket {
    pub fn runs_in(&self, runtime: &str) -> bool {
        self.runtimes.is_empty() || self.runtimes.iter().any(|r| r == runtime)
    }
}

/// The tool call `check` makes for a ticket.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Probe {
    pub tool: String,
    pub input: Value,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckText {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub hints: Vec<String>,
    /// The numbered task of the lesson the check belongs to, if the lesson has tasks.
    #[serde(default)]
    pub task: Option<u32>,
}

/// A lesson id is a folder name: no separators, no `..`, nothing hidden.
pub fn validate_id(id: &str) -> Result<(), Error> {
    let bad = id.is_empty()
        || id.starts_with('.')
        || id.contains(['/', '\\'])
        || id.contains("..")
        || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if bad {
        return Err(Error::usage(format!(
            "'{id}' is not a lesson id: ids are plain names such as structured-errors, with no path in them. Run ./workshop list to see them."
        )));
    }
    Ok(())
}

/// The ids of the lessons under `root/lessons`, sorted.
pub fn known_ids(root: &Path) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(root.join("lessons"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("lesson.toml").is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    ids.sort();
    ids
}

impl Lesson {
    /// Load and validate `lessons/<id>/lesson.toml`.
    pub fn load(root: &Path, id: &str) -> Result<Lesson, Error> {
        validate_id(id)?;
        let dir = root.join("lessons").join(id);
        let path = dir.join("lesson.toml");
        if !path.is_file() {
            let known = known_ids(root);
            let list = if known.is_empty() { "none".to_string() } else { known.join(", ") };
            return Err(Error::usage(format!("there is no lesson '{id}'. Lessons here: {list}.")));
        }
        let text = std::fs::read_to_string(&path).map_err(|e| Error::corrupt(&path, format!("cannot be read: {e}")))?;
        let mut lesson: Lesson = toml::from_str(&text).map_err(|e| {
            let at = e
                .span()
                .map(|s| format!(" (line {})", text[..s.start.min(text.len())].lines().count().max(1)))
                .unwrap_or_default();
            Error::corrupt(
                &path,
                format!(
                    "is not a valid lesson manifest{at}: {}. Fix it, or restore it with git checkout.",
                    e.message()
                ),
            )
        })?;
        lesson.dir = dir;
        if lesson.id != id {
            return Err(Error::corrupt(&path, format!("says its id is '{}', but it lives in lessons/{id}", lesson.id)));
        }
        lesson.validate().map_err(|why| Error::corrupt(&path, why))?;
        Ok(lesson)
    }

    fn validate(&self) -> Result<(), String> {
        crate::lumen::parse_date(&self.world.today)
            .ok_or_else(|| format!("world.today '{}' is not a YYYY-MM-DD date", self.world.today))?;
        for order in &self.world.orders {
            crate::lumen::parse_date(&order.purchased).ok_or_else(|| {
                format!("order {} has a purchase date '{}' that is not YYYY-MM-DD", order.id, order.purchased)
            })?;
            if !self.world.customers.iter().any(|c| c.id == order.customer) {
                return Err(format!("order {} belongs to an unknown customer '{}'", order.id, order.customer));
            }
        }
        for ticket in &self.tickets {
            if !self.world.customers.iter().any(|c| c.id == ticket.customer) {
                return Err(format!("ticket {} names an unknown customer '{}'", ticket.id, ticket.customer));
            }
        }
        Ok(())
    }

    /// The tickets that run in a runtime.
    pub fn tickets_for(&self, runtime: &str) -> Vec<&Ticket> {
        self.tickets.iter().filter(|t| t.runs_in(runtime)).collect()
    }

    pub fn ticket(&self, id: &str) -> Option<&Ticket> {
        self.tickets.iter().find(|t| t.id == id)
    }

    pub fn check_text(&self, id: &str) -> Option<&CheckText> {
        self.checks.iter().find(|c| c.id == id)
    }

    pub fn solution_path(&self) -> PathBuf {
        self.dir.join(&self.solution)
    }

    pub fn starter_dir(&self, root: &Path) -> PathBuf {
        root.join("starter").join(&self.id)
    }

    pub fn work_dir(&self, root: &Path) -> PathBuf {
        root.join("work").join(&self.id)
    }

    pub fn recordings_dir(&self, root: &Path) -> PathBuf {
        root.join("recordings").join(&self.id)
    }

    pub fn starter_file(&self, root: &Path) -> PathBuf {
        self.starter_dir(root).join(&self.file)
    }

    pub fn work_file(&self, root: &Path) -> PathBuf {
        self.work_dir(root).join(&self.file)
    }
}
