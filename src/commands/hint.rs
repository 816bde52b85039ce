//! `workshop hint`: not built yet.

use crate::cli::HintArgs;
use crate::commands::Context;
use crate::error::Error;

pub fn run(_ctx: &Context, _args: HintArgs) -> Result<i32, Error> {
    Err(Error::usage("`workshop hint` is not built yet in this version."))
}
