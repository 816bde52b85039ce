//! `workshop quiz`: not built yet.

use crate::cli::QuizArgs;
use crate::commands::Context;
use crate::error::Error;

pub fn run(_ctx: &Context, _args: QuizArgs) -> Result<i32, Error> {
    Err(Error::usage("`workshop quiz` is not built yet in this version."))
}
