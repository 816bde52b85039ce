//! `workshop check --watch` (issue 4): not built yet.

use crate::cli::CheckArgs;
use crate::commands::Context;
use crate::error::Error;

pub fn run(_ctx: &Context, _args: CheckArgs) -> Result<i32, Error> {
    Err(Error::usage("`check --watch` is not built yet in this version: run ./workshop check after each save."))
}
