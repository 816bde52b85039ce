//! File operations that keep a learner's work safe: reading only regular files, and only so much
//! of them (a FIFO would block forever, `/dev/zero` would never end, a link to a huge file would
//! fill memory), moving without ever replacing what is at the destination, and a lock on a folder.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// What [`read_regular`] found at a path.
pub(crate) enum RegularRead {
    Nothing,
    Bytes(Vec<u8>),
    /// Something that is not a regular file, in words ("a named pipe (FIFO)").
    NotRegular(&'static str),
    /// A regular file longer than the cap: at least this many bytes.
    TooBig(u64),
}

/// The most a lesson's data file (a recording, the progress file) may hold: far beyond any real
/// one, far below what would hurt.
pub(crate) const DATA_CAP: u64 = 64 << 20;

/// A file type in words, for messages.
fn kind(t: std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a named pipe (FIFO)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_symlink() {
        "a symbolic link to nothing"
    } else {
        "not a regular file"
    }
}

/// What is at `path` when it is there but is no regular file (a folder, a FIFO, a link to
/// nothing), in words; `None` for a regular file or nothing at all.
pub(crate) fn not_regular(path: &Path) -> Option<&'static str> {
    match (std::fs::metadata(path), std::fs::symlink_metadata(path)) {
        (Ok(meta), _) if meta.is_file() => None,
        (Ok(meta), _) => Some(kind(meta.file_type())),
        (Err(_), Ok(meta)) => Some(kind(meta.file_type())),
        (Err(_), Err(_)) => None,
    }
}

/// A lock file opened (made when missing) for `flock`, never blocking on the open: what is
/// there must be a regular file of its own. A FIFO (whose open would wait for a reader), a
/// device or a link is refused with an error that names it and says to remove it.
pub(crate) fn open_lock_file(path: &Path) -> io::Result<File> {
    let refuse = |what: &str| {
        io::Error::other(format!(
            "{} is {what}, not a lock file: remove it (the workshop makes it again)",
            crate::text::inert::path(path)
        ))
    };
    let opened = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_NOFOLLOW)
        .open(path);
    let file = match opened {
        Ok(file) => file,
        // A FIFO without a reader (ENXIO), a link (ELOOP), a socket: named by what is there.
        Err(e) => {
            return Err(match std::fs::symlink_metadata(path) {
                Ok(meta) if meta.file_type().is_symlink() => refuse("a symbolic link"),
                Ok(meta) if !meta.is_file() => refuse(kind(meta.file_type())),
                _ => e,
            })
        }
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(refuse(kind(meta.file_type())));
    }
    Ok(file)
}

/// Whether the file at `path` holds exactly `bytes`: read a piece at a time into a buffer on the
/// stack, so a file checked at every start (the cached runner) costs no fresh memory.
pub(crate) fn holds(path: &Path, bytes: &[u8]) -> bool {
    let Ok(mut file) = File::open(path) else { return false };
    if file.metadata().map_or(true, |m| m.len() != bytes.len() as u64) {
        return false;
    }
    let mut buffer = [0u8; 8192];
    let mut rest = bytes;
    loop {
        match file.read(&mut buffer) {
            Ok(0) => return rest.is_empty(),
            Ok(n) if n <= rest.len() && buffer[..n] == rest[..n] => rest = &rest[n..],
            Ok(_) => return false,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

/// The cache folder `cache_dir` names instead of the user's, once set (see
/// `testing::cache_in`): for tests that drive the library in their own process.
pub(crate) static CACHE_INSTEAD: std::sync::OnceLock<std::path::PathBuf> =
    std::sync::OnceLock::new();

/// The workshop's folder in the user's cache (`$XDG_CACHE_HOME/workshop`, else
/// `~/.cache/workshop`): the runner's copy, the world's host, the sample key, the interpreters
/// found behind shims. `None` when neither names an absolute folder, or when another user could
/// change what is in it (said once on stderr): code runs from it, so the command goes without.
pub(crate) fn cache_dir() -> Option<std::path::PathBuf> {
    if let Some(instead) = CACHE_INSTEAD.get() {
        return Some(instead.clone());
    }
    static TRUSTED: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    TRUSTED
        .get_or_init(|| {
            let base = std::env::var_os("XDG_CACHE_HOME")
                .filter(|d| !d.is_empty())
                .map(std::path::PathBuf::from)
                .or_else(|| {
                    let home = std::env::var_os("HOME").filter(|d| !d.is_empty())?;
                    Some(std::path::PathBuf::from(home).join(".cache"))
                })?;
            let dir = base.is_absolute().then(|| base.join("workshop"))?;
            match untrusted(&base, &dir) {
                None => Some(dir),
                Some(why) => {
                    crate::errln!(
                        "warning: not using the cache folder {}: {why}. Commands run without it, \
                         slower: make it yours and writable by you alone (chown, chmod go-w), or \
                         set XDG_CACHE_HOME to a folder of your own.",
                        crate::text::inert::path(&dir)
                    );
                    None
                }
            }
        })
        .clone()
}

/// Why another user could change what is in the cache folder `dir` (in `root`, the user's
/// cache), judged as ssh judges `~/.ssh`: `dir` and `root` must be the user's and writable by
/// no one else, each folder above them the user's or root's and writable by no one else unless
/// sticky (`/tmp`). A folder not made yet is judged by the one it would be made in.
fn untrusted(root: &Path, dir: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let euid = rustix::process::geteuid().as_raw();
    for folder in dir.ancestors() {
        let shown = crate::text::inert::path(folder);
        let meta = match std::fs::metadata(folder) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Some(format!("{shown} cannot be looked at ({e})")),
        };
        let own = folder == dir || folder == root;
        if meta.uid() != euid && (own || meta.uid() != 0) {
            return Some(format!("{shown} belongs to uid {}, not to you (uid {euid})", meta.uid()));
        }
        let (mode, sticky) = (meta.mode() & 0o7777, !own && meta.mode() & 0o1000 != 0);
        if mode & 0o022 != 0 && !sticky {
            return Some(format!("{shown} can be written by others (mode {mode:o})"));
        }
    }
    None
}

/// Make the cache folder `dir` (and the user's cache above it) when it is not there: 0700, as
/// the XDG base directory specification asks, whatever the umask.
pub(crate) fn make_cache_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// The bytes of a regular file (or of a symbolic link to one), at most `cap` of them. Anything
/// else is named, not read: the file is opened without blocking (and never as a controlling
/// terminal) and checked on the open descriptor, so what is read is what was checked. The cap
/// holds for files whose size says nothing (in /proc) too.
pub(crate) fn read_regular(path: &Path, cap: u64) -> io::Result<RegularRead> {
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
    {
        Ok(file) => file,
        Err(e) => {
            // A dangling link or a socket is there, though it cannot be opened.
            return match std::fs::symlink_metadata(path) {
                Ok(meta) => Ok(RegularRead::NotRegular(kind(meta.file_type()))),
                Err(_) if e.kind() == io::ErrorKind::NotFound => Ok(RegularRead::Nothing),
                Err(_) => Err(e),
            };
        }
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(RegularRead::NotRegular(kind(meta.file_type())));
    }
    Ok(match capped(&file, meta.len(), cap)? {
        Ok(bytes) => RegularRead::Bytes(bytes),
        Err(size) => RegularRead::TooBig(size),
    })
}

/// The bytes of an open regular file of `len` bytes, or `Err` with its size when it holds more
/// than `cap` (said by its size, or found by reading: files in /proc say 0).
fn capped(file: &File, len: u64, cap: u64) -> io::Result<Result<Vec<u8>, u64>> {
    if len > cap {
        return Ok(Err(len));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    // O_NONBLOCK was only for the open, and means nothing to a regular file.
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Ok(Err(bytes.len() as u64));
    }
    Ok(Ok(bytes))
}

/// What [`read_submission`] found: the bytes of a file that is itself, or why it was not read.
pub(crate) enum Submitted {
    Bytes(Vec<u8>),
    /// A symbolic link: another file's bytes under this name, so never followed.
    Link,
    /// A regular file with this many names (hard links): the same bytes under another name too.
    HardLinked(u64),
    /// There, but no regular file: in words.
    NotRegular(&'static str),
    TooBig(u64),
    Nothing,
}

/// The bytes of a submission that is a file in its own right, at most `cap` of them. A link is
/// refused unread: a symbolic link is never followed (`O_NOFOLLOW`), and a regular file with more
/// than one name is refused on the open descriptor, so that a name never grades, or quotes,
/// bytes that belong to another name (a classmate's file, the grading user's `~/.netrc`).
pub(crate) fn read_submission(path: &Path, cap: u64) -> io::Result<Submitted> {
    let flags = libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_NOFOLLOW;
    let file = match std::fs::OpenOptions::new().read(true).custom_flags(flags).open(path) {
        Ok(file) => file,
        Err(e) => {
            return match std::fs::symlink_metadata(path) {
                Ok(meta) if meta.file_type().is_symlink() => Ok(Submitted::Link),
                Ok(meta) => Ok(Submitted::NotRegular(kind(meta.file_type()))),
                Err(_) if e.kind() == io::ErrorKind::NotFound => Ok(Submitted::Nothing),
                Err(_) => Err(e),
            };
        }
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(Submitted::NotRegular(kind(meta.file_type())));
    }
    {
        use std::os::unix::fs::MetadataExt;
        if meta.nlink() > 1 {
            return Ok(Submitted::HardLinked(meta.nlink()));
        }
    }
    Ok(match capped(&file, meta.len(), cap)? {
        Ok(bytes) => Submitted::Bytes(bytes),
        Err(size) => Submitted::TooBig(size),
    })
}

/// A data file's bytes, as `std::fs::read` gives them, but never from a FIFO or a device and
/// never more than `cap`: those are errors (`InvalidData`) whose text says what the path is.
/// A missing file is `NotFound`, as with `std::fs::read`.
pub(crate) fn read_data(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    match read_regular(path, cap)? {
        RegularRead::Bytes(bytes) => Ok(bytes),
        RegularRead::Nothing => {
            Err(io::Error::new(io::ErrorKind::NotFound, "there is no such file"))
        }
        RegularRead::NotRegular(what) => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("it is {what}, not a regular file"),
        )),
        RegularRead::TooBig(size) => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "it holds {}, more than the {} a data file may",
                size_text(size),
                size_text(cap)
            ),
        )),
    }
}

/// As [`read_data`], as text.
pub(crate) fn read_data_text(path: &Path, cap: u64) -> io::Result<String> {
    String::from_utf8(read_data(path, cap)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "it is not UTF-8 text"))
}

/// Move `from` to `to`, failing with `AlreadyExists` if `to` exists: never replaces anything.
/// One atomic step (renameat2 with RENAME_NOREPLACE) where the file system allows it; else a hard
/// link (which also refuses to replace) and an unlink.
pub(crate) fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        let err = match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            Err(errno) => io::Error::from(errno),
        };
        if !matches!(err.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP)) {
            return Err(err);
        }
    }
    std::fs::hard_link(from, to)?;
    std::fs::remove_file(from)
}

/// An exclusive lock on a folder, held until dropped. Taking turns this way leaves no lock file
/// behind in the learner's folder.
pub(crate) struct FolderLock {
    _dir: File,
}

pub(crate) fn lock_folder(dir: &Path) -> io::Result<FolderLock> {
    let handle = File::open(dir)?;
    // flock(2) on Unix; released when the handle is closed.
    handle.lock()?;
    Ok(FolderLock { _dir: handle })
}

/// `8 MiB`, `10.5 MiB`, `512 KiB`: a size as a person reads it.
pub(crate) fn size_text(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    let (value, unit) = if b >= KIB * KIB {
        (b / (KIB * KIB), "MiB")
    } else if b >= KIB {
        (b / KIB, "KiB")
    } else {
        (b, "bytes")
    };
    let text = format!("{value:.1}");
    format!("{} {unit}", text.strip_suffix(".0").unwrap_or(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rename_noreplace_never_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, "mine").unwrap();
        std::fs::write(&b, "kept").unwrap();
        let err = rename_noreplace(&a, &b).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "mine");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "kept");
        std::fs::remove_file(&b).unwrap();
        rename_noreplace(&a, &b).unwrap();
        assert!(!a.exists());
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "mine");
    }

    #[test]
    fn a_file_holds_exactly_the_bytes_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runner.py");
        // Longer than the buffer, so a difference past the first piece read counts too.
        let text: Vec<u8> = (0..20_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        assert!(!holds(&path, &text), "no file holds nothing");
        std::fs::write(&path, &text).unwrap();
        assert!(holds(&path, &text));
        let mut late = text.clone();
        late[19_000] = b'!';
        assert!(!holds(&path, &late), "one byte past the first piece differs");
        assert!(!holds(&path, &text[..19_999]), "the file is longer");
        let mut longer = text.clone();
        longer.push(b'\n');
        assert!(!holds(&path, &longer), "the file is shorter");
        std::fs::write(&path, &late).unwrap();
        assert!(!holds(&path, &text));
        assert!(holds(&path, &late));
    }

    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(matches!(
            read_regular(&link, 10).unwrap(),
            RegularRead::NotRegular("a character device")
        ));
        assert!(matches!(
            read_regular(dir.path(), 10).unwrap(),
            RegularRead::NotRegular("a folder")
        ));
        assert!(matches!(
            read_regular(&dir.path().join("none"), 10).unwrap(),
            RegularRead::Nothing
        ));
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("none"), &dangling).unwrap();
        assert!(matches!(
            read_regular(&dangling, 10).unwrap(),
            RegularRead::NotRegular("a symbolic link to nothing")
        ));
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo(3) with a NUL-terminated path that lives across the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(matches!(
            read_regular(&fifo, 10).unwrap(),
            RegularRead::NotRegular("a named pipe (FIFO)")
        ));
        let err = read_data(&fifo, 10).unwrap_err();
        assert_eq!(err.to_string(), "it is a named pipe (FIFO), not a regular file");
    }

    #[test]
    fn no_more_than_the_cap_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("big");
        std::fs::write(&file, [b'x'; 11]).unwrap();
        assert!(matches!(read_regular(&file, 10).unwrap(), RegularRead::TooBig(11)));
        assert!(matches!(read_regular(&file, 11).unwrap(), RegularRead::Bytes(b) if b.len() == 11));
        // A file whose size says nothing: read up to the cap, no further (such files are /proc's).
        if cfg!(target_os = "linux") {
            let environ = read_regular(Path::new("/proc/self/environ"), 1).unwrap();
            assert!(matches!(environ, RegularRead::TooBig(2)));
        }
        assert!(read_data(&file, 10)
            .unwrap_err()
            .to_string()
            .contains("more than the 10 bytes a data file may"));
    }
}
