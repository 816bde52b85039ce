//! The course on disk: the workshop root that holds `lessons/`, the learner's work folder and
//! its files, the learner's progress, what the course says of itself (`preface`), and a new
//! course folder (`init`).

pub(crate) mod init;
mod layout;
pub(crate) mod preface;
pub(crate) mod progress;
pub(crate) mod root;
pub(crate) mod starter;
pub(crate) mod work_file;
