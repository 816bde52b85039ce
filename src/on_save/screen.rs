//! What `check --watch` shows: the marker, the report, hint and notes, the door at green, and
//! the keys line, redrawn as one text.

use std::rc::Rc;

use crate::checks::Status;
use crate::context::Context;
use crate::error::Error;
use crate::render;

use super::note::WatchNote;
use super::session::Session;

impl Session<'_> {
    /// The next hint step of the first failing check, shown with the steps before it.
    pub(super) fn hint(&mut self) {
        self.notes.retain(WatchNote::stays_for_a_hint);
        self.hint_card = None;
        let note = match &self.report {
            None => "No report yet: the first check is still running.".to_string(),
            Some(r) if r.status == Status::Error => {
                "The file does not load, so no check ran: the message above says where to look."
                    .to_string()
            }
            Some(r) => match r.first_failure().map(|c| (c, self.lesson.check(&c.id))) {
                None => "Every check passes: no hint needed.".to_string(),
                Some((check, None)) => format!("{} has no hint.", check.id),
                Some((_, Some(spec))) if spec.hints.is_empty() => {
                    format!("{} has no hint.", spec.id)
                }
                Some((check, Some(spec))) => {
                    let (shown, newest) =
                        crate::hint::steps::next_step(self.ctx, &self.lesson.id, spec);
                    let card = crate::hint::card::Card {
                        check: spec,
                        failing: Some(check.message.as_str()),
                        shown,
                        newest,
                        lesson: &self.lesson.id,
                        again: crate::hint::card::Again::Key('h'),
                    };
                    self.hint_card = Some(card.text(&self.ctx.styles, self.width()));
                    return;
                }
            },
        };
        self.notes.push(WatchNote::Once(note));
    }

    pub(super) fn width(&self) -> usize {
        if self.output.terminal {
            crossterm::terminal::size()
                .map(|(w, _)| usize::from(w).clamp(40, 100))
                .unwrap_or(self.ctx.width)
        } else {
            self.ctx.width
        }
    }

    pub(super) fn draw(&self) {
        let s = &self.ctx.styles;
        let width = self.width();
        let mut text = String::new();
        let marker = match &self.on_screen {
            Some((run, why, at, took)) => {
                format!("── run {run} · {why} · {at} · checked in {} ms ──", took.as_millis())
            }
            None => format!("── run {} · {} · {} ──", self.run, self.why, self.at),
        };
        text.push_str(&s.paint(s.dim, marker));
        text.push_str("\n\n");
        match &self.report {
            Some(report) => {
                let mut report = report.clone();
                report.again = "save the file: every save runs the checks again".into();
                text.push_str(&render::check::text(&report, s, self.ctx.glyphs, width))
            }
            None => text.push_str(&format!("Grading {}…\n", self.shown)),
        }
        if let Some(card) = &self.hint_card {
            text.push('\n');
            text.push_str(card);
        }
        self.notes_and_door(&mut text, width);
        self.keys_line(&mut text, width);
        self.show(&text);
    }

    /// The notes, then at green the door and `n`, then a run in progress.
    fn notes_and_door(&self, text: &mut String, width: usize) {
        let s = &self.ctx.styles;
        for note in &self.notes {
            text.push('\n');
            // Never split at a hyphen: lesson ids and paths stay whole.
            let options =
                textwrap::Options::new(width).word_splitter(textwrap::WordSplitter::NoHyphenation);
            for line in textwrap::wrap(note.text(), options) {
                text.push_str(&s.paint(s.warn, line));
                text.push('\n');
            }
        }
        text.push('\n');
        if self.shows_green() {
            // Green is a door: the same next steps as `check`, and `n` for the next lesson.
            match self.door_at(width) {
                Ok(door) => {
                    let here = if door.next {
                        "q quits, n starts the next lesson here"
                    } else {
                        "q quits"
                    };
                    text.push_str(&s.paint(s.good, format!("All green. What next ({here}):")));
                    text.push('\n');
                    text.push_str(&door.text);
                }
                Err(e) => text.push_str(&format!("All green. ({e})\n")),
            }
            text.push('\n');
        }
        if self.running.is_some() && self.report.is_some() {
            text.push_str(&s.paint(s.dim, format!("Checking again ({})…", self.why)));
            text.push('\n');
        }
    }

    /// Whether the report on screen is green (a run may be in progress).
    fn shows_green(&self) -> bool {
        !self.gone && self.report.as_ref().is_some_and(|r| r.status == Status::Pass)
    }

    /// The last line: what is watched and the keys.
    fn keys_line(&self, text: &mut String, width: usize) {
        let how = if self.polling { "polling for saves" } else { "save it to grade again" };
        let next = if self.shows_green() { " · n next lesson" } else { "" };
        let keys = format!("Watching {} ({how}) · r re-run · h hint{next} · q quit", self.shown);
        if self.output.terminal {
            // On a terminal it wraps as words, not wherever the edge falls; off one it stays one
            // line, the end of the redraw for whoever reads it.
            let options =
                textwrap::Options::new(width).word_splitter(textwrap::WordSplitter::NoHyphenation);
            text.push_str(&textwrap::wrap(&keys, options).join("\n"));
        } else {
            text.push_str(&keys);
        }
        text.push('\n');
    }

    /// The next steps at green, laid out for `width` (see `door`).
    fn door_at(&self, width: usize) -> Result<crate::next::Door, Rc<Error>> {
        let mut kept = self.door.borrow_mut();
        if let Some((_, door)) = kept.as_ref().filter(|(at, _)| *at == width) {
            return door.clone();
        }
        let door =
            crate::next::door(&Context { width, ..self.ctx.clone() }, self.lesson).map_err(Rc::new);
        *kept = Some((width, door.clone()));
        door
    }

    /// Show text; the first failure to write is kept for the loop, which then ends.
    pub(super) fn show(&self, text: &str) {
        if let Err(e) = self.output.show(text) {
            let first = self.write_failed.take().unwrap_or(e);
            self.write_failed.set(Some(first));
        }
    }
}
