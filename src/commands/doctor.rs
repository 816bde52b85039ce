//! `workshop doctor`: not built yet.

use crate::cli::DoctorArgs;
use crate::commands::Context;
use crate::error::Error;

pub fn run(_ctx: &Context, _args: DoctorArgs) -> Result<i32, Error> {
    Err(Error::usage("`workshop doctor` is not built yet in this version."))
}
