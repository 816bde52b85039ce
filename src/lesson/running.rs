//! How a code file of a lesson is run: the learner's Python with the file loaded, its functions
//! declared, each call bounded by the lesson's limit.

use std::path::Path;
use std::time::Duration;

use super::Lesson;
use crate::bridge::BridgeConfig;

impl Lesson {
    /// The settings to start the learner's Python with `file` loaded (named `shown` in messages).
    pub(crate) fn python_for(&self, file: &Path, shown: &str, limit: Duration) -> BridgeConfig {
        BridgeConfig {
            python: BridgeConfig::learner_python(),
            file: file.to_path_buf(),
            shown_as: shown.to_string(),
            functions: self.function_specs(),
            timeout: limit,
            sandbox: None,
            world: false,
        }
    }
}
