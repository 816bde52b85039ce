//! The full-screen player for `watch` (issue 4). Until it is built, the plain replay.

use crate::cli::WatchArgs;
use crate::commands::Context;
use crate::error::Error;

pub fn run(ctx: &Context, args: WatchArgs) -> Result<i32, Error> {
    crate::commands::watch::plain(ctx, args)
}
