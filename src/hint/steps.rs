//! How far a check's hints have gone, kept in progress so `hint` and `h` in `check --watch` count
//! together.

use crate::context::Context;
use crate::course::progress::Progress;
use crate::lesson::CheckSpec;

/// Show one more hint step of `check` than before (kept in progress, so `hint` and `h` in
/// `check --watch` count together): how many steps to show, and the one that is new, if any.
pub(crate) fn next_step(ctx: &Context, lesson: &str, check: &CheckSpec) -> (usize, Option<usize>) {
    let seen = Progress::read(&ctx.root)
        .lessons
        .get(lesson)
        .and_then(|p| p.hint_steps.get(&check.id).copied());
    let seen = seen.unwrap_or(0).min(check.hints.len());
    let shown = (seen + 1).min(check.hints.len());
    if shown > seen {
        if let Err(e) = Progress::update(&ctx.root, lesson, |p| {
            p.hint_steps.insert(check.id.clone(), shown);
        }) {
            crate::errln!(
                "warning: progress was not saved ({e}); the next hint will start here again."
            );
        }
    }
    (shown, (shown > seen).then_some(shown))
}
