//! `workshop lesson`: not built yet.

use crate::cli::LessonArgs;
use crate::commands::Context;
use crate::error::Error;

pub fn run(_ctx: &Context, _args: LessonArgs) -> Result<i32, Error> {
    Err(Error::usage("`workshop lesson` is not built yet in this version."))
}
