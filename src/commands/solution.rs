//! `workshop solution`: not built yet.

use crate::cli::SolutionArgs;
use crate::commands::Context;
use crate::error::Error;

pub fn run(_ctx: &Context, _args: SolutionArgs) -> Result<i32, Error> {
    Err(Error::usage("`workshop solution` is not built yet in this version."))
}
