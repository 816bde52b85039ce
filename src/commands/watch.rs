//! `workshop watch`: not built yet.

use crate::cli::WatchArgs;
use crate::commands::Context;
use crate::error::Error;

pub fn run(_ctx: &Context, _args: WatchArgs) -> Result<i32, Error> {
    Err(Error::usage("`workshop watch` is not built yet in this version."))
}
