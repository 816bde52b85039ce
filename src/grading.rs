//! Grading one file: start Python with it, run the lesson's checks, make the report. One function
//! serves `check`, `check --watch`, `hint`, `doctor` and `grade`; a stop flag ends it early (a
//! newer save, or `q`), answering every call still to come at once, unrun.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;

use crate::bridge::{Bridge, BridgeConfig, Call, LoadError, LoadKind, Outcome, Stop};
use crate::checks::{self, Report};
use crate::harness::Code;
use crate::lesson::Lesson;

/// The learner's code, until told to stop.
struct Stoppable<'a> {
    bridge: &'a mut Bridge,
    stop: &'a AtomicBool,
}

impl Code for Stoppable<'_> {
    fn call(&mut self, function: &str, args: &[Value]) -> Call {
        if self.stop.load(Ordering::SeqCst) {
            let message = "not run: the grading was stopped".into();
            return Call { outcome: Outcome::Unavailable { message }, output: String::new(), dropped: 0 };
        }
        self.bridge.call(function, args)
    }
}

/// Start Python with a code file of a lesson loaded.
pub fn open(lesson: &Lesson, file: &Path, shown: &str, limit: Duration, stop: Stop) -> Result<Bridge, LoadError> {
    let cfg = BridgeConfig {
        python: BridgeConfig::default_python(),
        file: file.to_path_buf(),
        shown_as: shown.to_string(),
        functions: lesson.functions.clone(),
        timeout: limit,
    };
    Bridge::start_stoppable(cfg, stop)
}

/// Grade a file. `Err` only when no Python could be started; a file that does not load is a
/// report with status `error`. `None` when stopped before the end.
pub fn grade(
    lesson: &Lesson,
    file: &Path,
    shown: &str,
    limit: Duration,
    stop: &AtomicBool,
) -> Option<Result<Report, LoadError>> {
    let seed = checks::seed_for(&std::fs::read(file).unwrap_or_default());
    let result = match open(lesson, file, shown, limit, Stop::default()) {
        Ok(mut bridge) => {
            let results = checks::run_all(lesson, &mut Stoppable { bridge: &mut bridge, stop }, seed);
            let mut report = Report::graded(lesson, shown.to_string(), results);
            report.load_output = std::mem::take(&mut bridge.load_output);
            Ok(report)
        }
        Err(e) if e.kind == LoadKind::NoPython => Err(e),
        Err(e) => Ok(Report::not_loaded(lesson, shown.to_string(), &e)),
    };
    (!stop.load(Ordering::SeqCst)).then_some(result)
}
