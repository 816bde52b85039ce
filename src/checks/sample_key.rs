//! The key mixed into the seed a file's samples are drawn from (see `checks::seed_for`). The
//! seed is the file's own hash XOR this key: with a key the file's author cannot know, every
//! order id is as likely as any other whatever the file holds, so no nonce comment searched for
//! offline picks the inputs its hard-coded sentences fit.
//!
//! - `grade`: a new random key for each run, said in the summary, so a run can be repeated
//!   (`WORKSHOP_SEED=<key>`) and no submission can aim at it.
//! - `check`: one key per user, kept in the cache folder: the same file gets the same report on
//!   the learner's machine, and a file made to fit one machine's key fits no other.
//! - `WORKSHOP_SEED` (hexadecimal) sets the key for either: to repeat a grading, or in tests.

use std::io::{Read, Write};
use std::sync::OnceLock;

use crate::error::{Error, FlagError};

static KEY: OnceLock<u64> = OnceLock::new();

/// `WORKSHOP_SEED`, when set: 1 to 16 hexadecimal digits, with or without `0x`.
fn from_env() -> Result<Option<u64>, Error> {
    let Some(text) = std::env::var_os("WORKSHOP_SEED").filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let text = text.to_string_lossy();
    let digits = text.trim().trim_start_matches("0x");
    match u64::from_str_radix(digits, 16) {
        Ok(key) if !digits.is_empty() && digits.len() <= 16 => Ok(Some(key)),
        _ => Err(FlagError::SampleKey { text: text.into_owned() }.into()),
    }
}

/// Whether `WORKSHOP_SEED` gives the key (a valid one: `choose` refuses any other).
pub(crate) fn given() -> bool {
    matches!(from_env(), Ok(Some(_)))
}

/// Eight bytes from the kernel's random source.
fn random() -> u64 {
    let mut bytes = [0u8; 8];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if read.is_err() {
        // No /dev/urandom: the clock's nanoseconds and the process id, still unknown in advance.
        let now =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        return (now.as_nanos() as u64).rotate_left(17) ^ u64::from(std::process::id());
    }
    u64::from_le_bytes(bytes)
}

/// The user's key for `check`, made on first use in `<cache>/workshop/sample-key`.
fn users_key() -> Option<u64> {
    let path = crate::files::cache_dir()?.join("sample-key");
    let parse = |text: &str| u64::from_str_radix(text.trim(), 16).ok();
    if let Ok(text) = crate::files::read_data_text(&path, 64) {
        return parse(&text);
    }
    crate::files::make_cache_dir(path.parent()?).ok()?;
    let key = random();
    let made = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path)
    };
    match made {
        Ok(mut file) => file.write_all(format!("{key:016x}\n").as_bytes()).ok().map(|()| key),
        // Another command made it first: its key is the one.
        Err(_) => crate::files::read_data_text(&path, 64).ok().and_then(|t| parse(&t)),
    }
}

/// Fix the key for this command: `WORKSHOP_SEED`, else a fresh random one (`grade`) or the
/// user's (`check` and the rest). Returns it; later calls keep the first.
pub(crate) fn choose(fresh: bool) -> Result<u64, Error> {
    let key = match from_env()? {
        Some(key) => key,
        None if fresh => random(),
        None => users_key().unwrap_or_else(random),
    };
    Ok(*KEY.get_or_init(|| key))
}

/// The key of this command (the user's, unless `choose` fixed another first).
pub(crate) fn current() -> u64 {
    match KEY.get() {
        Some(key) => *key,
        None => choose(false).unwrap_or_else(|_| random()),
    }
}
