//! The course on disk: the workshop root that holds `lessons/`, the learner's work folder and
//! its files, and the learner's progress.

pub(crate) mod progress;
pub(crate) mod root;
pub(crate) mod starter;
pub(crate) mod work_file;
