//! What every command needs, decided once: the root, the styles, the width, whether this is a
//! terminal, and which lesson a command means when it names none.

use std::path::{Path, PathBuf};

use crate::course::progress::Progress;
use crate::error::{CourseError, Error, LessonError};
use crate::lesson::{self, Lesson};
use crate::render::styles::{Glyphs, Styles};

/// What every command needs, decided once.
#[derive(Clone, Debug)]
pub struct Context {
    pub root: PathBuf,
    pub cwd: PathBuf,
    pub styles: Styles,
    pub glyphs: Glyphs,
    pub width: usize,
    /// Whether standard output and input are terminals, asked once.
    pub stdout_terminal: bool,
    pub stdin_terminal: bool,
    /// The command being run (`check`, `watch`, ...), for notes that suggest running it again.
    pub command: &'static str,
}

impl Context {
    /// The learner's file for a lesson, or the one given with `--file`, checked to exist.
    pub fn learner_file(&self, lesson: &Lesson, given: Option<&Path>) -> Result<PathBuf, Error> {
        let ctx = self;
        match given {
            Some(path) => ctx.given_file(path, "--file"),
            None => crate::course::work_file::existing(&ctx.root, lesson)
                .map_err(|e| e.error(lesson, |p| ctx.shown(p), None)),
        }
    }

    /// A file named on the command line (`check --file`, `watch --code`), relative to the
    /// current folder, checked to be a file. `flag` names the option in the message.
    pub fn given_file(&self, path: &Path, flag: &str) -> Result<PathBuf, Error> {
        // `./x.py` is shown as `x.py`: the `.` parts say nothing.
        let full: PathBuf = self
            .cwd
            .join(path)
            .components()
            .filter(|c| *c != std::path::Component::CurDir)
            .collect();
        if full.is_file() {
            return Ok(full);
        }
        let what = crate::files::not_regular(&full);
        Err(CourseError::NotAFile { path: self.shown(&full), what, flag: flag.to_string() }.into())
    }

    /// A path for messages: relative to the root when run there; from a folder inside the root, relative to that
    /// folder, so the path works where the learner is.
    pub fn shown(&self, path: &Path) -> String {
        self.at().shown(path)
    }

    /// The root and the current folder, for domain code.
    pub fn at(&self) -> crate::course::root::Where {
        crate::course::root::Where { root: self.root.clone(), cwd: self.cwd.clone() }
    }

    /// The lesson named (by id or number), or the one to assume when none is: the only lesson,
    /// or the one started last.
    pub fn lesson(&self, id: Option<&str>) -> Result<Lesson, Error> {
        if let Some(word) = id {
            let id = lesson::resolve(&self.root, word)?;
            // Another lesson named: the next command that names none says which it means again.
            if Progress::read(&self.root).announced.is_some_and(|said| said != id) {
                self.announce(None);
            }
            return Lesson::load(&self.root, &id);
        }
        let known = lesson::known_ids(&self.root);
        if known.len() == 1 {
            return Lesson::load(&self.root, &known[0]);
        }
        let progress = Progress::read(&self.root);
        // The lesson started last; a work file counts as started when progress lost track.
        let latest = known
            .iter()
            .filter_map(|id| {
                let entry = progress.lessons.get(id);
                let started =
                    entry.is_some_and(|p| p.started) || self.root.join("work").join(id).is_dir();
                started.then(|| (entry.and_then(|p| p.started_at).unwrap_or(0), id))
            })
            .max();
        if let Some((_, id)) = latest {
            let lesson = Lesson::load(&self.root, id)?;
            // Said once per switch of lesson, not on every command.
            if progress.announced.as_deref() == Some(id.as_str()) {
                return Ok(lesson);
            }
            self.announce(Some(id));
            let note = format!(
                "(lesson {}: the one you started last. Name another to switch, such as ./workshop {} {}.)",
                lesson.id,
                self.command,
                known.iter().find(|k| *k != id).map(String::as_str).unwrap_or("<lesson>")
            );
            let options = textwrap::Options::new(self.width)
                .word_splitter(textwrap::WordSplitter::NoHyphenation);
            crate::output::note(&textwrap::wrap(&note, options).join("\n"));
            return Ok(lesson);
        }
        Err(LessonError::NoneStarted { listing: self.lesson_list()? }.into())
    }

    /// Keep which lesson the note last named (none: the next inference names it again). Progress
    /// is a convenience: a failure to save it is said, and the command goes on.
    fn announce(&self, id: Option<&str>) {
        if let Err(e) = Progress::change(&self.root, |p| p.announced = id.map(str::to_string)) {
            crate::errln!("warning: progress was not saved ({e}); your files are fine.");
        }
    }

    /// The lessons as a short list, one a line, for messages that ask for one.
    pub fn lesson_list(&self) -> Result<String, Error> {
        let (lessons, broken) = lesson::all_in_order(&self.root);
        if lessons.is_empty() && broken.is_empty() {
            return Ok(format!(
                "  (there are none under {})",
                self.shown(&self.root.join("lessons"))
            ));
        }
        let ids = lessons.iter().map(|l| &l.id).chain(broken.iter().map(|(id, _)| id));
        let width = ids.map(String::len).max().unwrap_or(0);
        let mut lines: Vec<String> = lessons
            .iter()
            .map(|l| format!("  {:<width$}  {} ({})", l.id, l.title, l.course))
            .collect();
        // A broken lesson is still one the learner may mean: named, with where to see why.
        let broken_line = |id: &String| format!("  {id:<width$}  (broken: ./workshop doctor {id})");
        lines.extend(broken.iter().map(|(id, _)| broken_line(id)));
        let first = lessons.first().map(|l| &l.id).or(broken.first().map(|(id, _)| id));
        let first = first.map_or("<lesson>", String::as_str);
        Ok(format!(
            "{}\nStart one with ./workshop start <lesson>, such as ./workshop start {}.",
            lines.join("\n"),
            first
        ))
    }
}
