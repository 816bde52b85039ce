//! The world host's file (`host.py`), written once where a Python can import it: the cache
//! folder, else an in-memory file.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::HOST;

/// The host could be written neither to the cache folder nor to an in-memory file.
#[derive(Clone, Debug, thiserror::Error)]
#[error("there is no cache folder to write it to, and no in-memory file: {0}{next}", next = crate::error::next_step(.0))]
pub(super) struct NoHostFile(Arc<std::io::Error>);

/// The world's host, for the Python a command starts before its lesson is read, to read ahead
/// (see `bridge::warm_up`); `None` where it could not be written (a world then says why).
pub(crate) fn host_to_read_ahead() -> Option<&'static Path> {
    host_file().ok()
}

/// Where the runner loads the host from: a copy beside the cached runner, named by a hash of its
/// text (so a new host never meets an old one) and rewritten when it is not that text; else,
/// with no cache to write to, an in-memory file the world's process reads through /proc, so
/// nothing is left behind in a temporary folder (elsewhere than Linux, a private temporary one).
pub(super) fn host_file() -> Result<&'static Path, NoHostFile> {
    static PATH: OnceLock<Result<PathBuf, NoHostFile>> = OnceLock::new();
    PATH.get_or_init(|| {
        let cache = crate::files::cache_dir();
        const HASH: u64 = crate::fnv::fnv1a(HOST.as_bytes());
        let name = format!("workshop_world_host_{HASH:016x}.py");
        if let Some(path) = cache.and_then(|dir| write_host(&dir, &name).ok()) {
            return Ok(path);
        }
        in_memory().map_err(|e| NoHostFile(Arc::new(e)))
    })
    .as_ref()
    .map(PathBuf::as_path)
    .map_err(Clone::clone)
}

/// The host as a memfd, open for the life of the workshop, read by the world's process as
/// `/proc/<the workshop's pid>/fd/<n>` (its text is no secret). Not inherited: every process the
/// workshop starts gets no descriptor of its own but 0, 1 and 2 (see `bridge::reap`).
#[cfg(target_os = "linux")]
fn in_memory() -> std::io::Result<PathBuf> {
    use std::io::Write;
    use std::os::fd::IntoRawFd;
    let memfd = rustix::fs::memfd_create(c"workshop-world-host", rustix::fs::MemfdFlags::CLOEXEC)?;
    let mut file = std::fs::File::from(memfd);
    file.write_all(HOST.as_bytes())?;
    // Kept open (never closed) so every world process started later can read it.
    let fd = file.into_raw_fd();
    Ok(PathBuf::from(format!("/proc/{}/fd/{fd}", std::process::id())))
}

/// Without memfd or /proc (macOS): the host in a folder of its own under the temporary folder,
/// made with an unpredictable name and readable by this user alone, and left there for the
/// system's clean-up (the world's process may be started again until the workshop exits).
#[cfg(not(target_os = "linux"))]
fn in_memory() -> std::io::Result<PathBuf> {
    let dir = tempfile::Builder::new().prefix("workshop-world-host-").tempdir()?.keep();
    let path = dir.join("workshop_world_host.py");
    std::fs::write(&path, HOST)?;
    Ok(path)
}

fn write_host(dir: &Path, name: &str) -> std::io::Result<PathBuf> {
    let path = dir.join(name);
    if crate::files::holds(&path, HOST.as_bytes()) {
        return Ok(path);
    }
    crate::files::make_cache_dir(dir)?;
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&temp, HOST)?;
    std::fs::rename(&temp, &path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })?;
    Ok(path)
}
