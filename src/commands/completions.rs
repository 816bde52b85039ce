//! `workshop completions`: not built yet.

use crate::cli::CompletionsArgs;
use crate::commands::Context;
use crate::error::Error;

pub fn run(_ctx: &Context, _args: CompletionsArgs) -> Result<i32, Error> {
    Err(Error::usage("`workshop completions` is not built yet in this version."))
}
