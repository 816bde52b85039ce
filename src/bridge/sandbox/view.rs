//! What every bubblewrap sandbox of a run is shown: one read-only folder, prepared once, mounted as
//! its root, with the host's system folders mounted on top.
//!
//! bubblewrap pays for every mount it makes (and, after each bind, reads the whole mount table
//! back), on every start. So what can be a plain file of a folder made once per run is one: the
//! links `/bin`, `/lib`... of a merged-`/usr` system, the mount points, two files of `/etc`
//! (copies: the loader's cache, the time zone), the compiled runner, and the links and mount
//! points of a minimal `/dev`. Each sandbox then mounts only what must come from the host live:
//! `/usr` (and the top-level folders that are not links to it), Debian's alternatives, the
//! devices, the interpreter's own folders, `/proc`, and its private file systems.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

use super::Folder;

/// Where the compiled runner is, inside the sandbox.
pub(super) const RUNNER_INSIDE: &str = "/etc/workshop/runner";

/// The devices a sandbox's `/dev` holds, each the host's own, bound (each bind costs every start
/// a mount, a remount and a read of the mount table): the three programs use. Not the rest of
/// what bwrap's `--dev` gives: `tty` (a sandbox has no controlling terminal, so it never opened),
/// `full` (for testing a full disk), `random` (the same as `urandom`, which Python does not open
/// either: `os.urandom` is a system call), nor pseudo-terminals (their file system is what made
/// bwrap nest a second user namespace).
pub(super) const DEVICES: [&str; 3] = ["null", "zero", "urandom"];

/// The files of `/etc` a sandbox sees, copied: the dynamic loader's cache (the loader reads only
/// that at run time; `ld.so.conf` is ldconfig's) and the time zone.
const ETC: [&str; 2] = ["ld.so.cache", "localtime"];

/// The folders of `/etc` a sandbox sees, mounted: Debian's alternatives (the links behind
/// `/usr/bin/awk` and the like), hundreds of links, which would cost more to copy once than to
/// mount in every sandbox of a class.
const ETC_FOLDERS: [&str; 1] = ["alternatives"];

/// The top-level folders of programs and libraries: links into `/usr` on a merged-`/usr` system
/// (made as the same links), folders of their own elsewhere (mounted).
const TOP: [&str; 6] = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];

/// The root every sandbox of a run is shown, and the bwrap arguments that mount it and the
/// host's folders on it. Removed when dropped (and on SIGINT, SIGTERM and SIGHUP, as every
/// folder of `grade` is).
pub(crate) struct View {
    folder: Folder,
    /// `--ro-bind <view> /`, then the system's folders: first of all.
    pub(super) system: Vec<OsString>,
    /// The interpreter's own folders: after the private `/tmp`, since an interpreter can live
    /// under `/tmp` (a venv made there).
    pub(super) interpreter: Vec<OsString>,
    /// The devices of `/dev`.
    pub(super) devices: Vec<OsString>,
}

impl std::fmt::Debug for View {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("View").field("root", &self.folder.path()).finish_non_exhaustive()
    }
}

impl View {
    /// Prepare the root for sandboxes that run an interpreter living in `interpreter` (its
    /// prefixes and its program's folder, links resolved), with `runner` (the compiled runner)
    /// at [`RUNNER_INSIDE`] when there is one.
    pub(super) fn build(interpreter: &[PathBuf], runner: Option<&[u8]>) -> std::io::Result<View> {
        let (folder, (system, interpreter, devices)) = Folder::shared(|root| {
            let root = root.canonicalize()?;
            let (system, covered) = system(&root)?;
            etc(&root, runner)?;
            let devices = dev(&root)?;
            let mut binds = Vec::new();
            for dir in interpreter_binds(interpreter_dirs(interpreter), &covered) {
                // A mount point in the read-only root, unless the private /tmp will hold it
                // (bwrap makes those in the tmpfs).
                if !dir.starts_with("/tmp") {
                    make_dir(&root, dir.strip_prefix("/").unwrap_or(&dir))?;
                }
                ro(&mut binds, &dir);
            }
            Ok((system, binds, devices))
        })?;
        Ok(View { folder, system, interpreter, devices })
    }

    /// The prepared folder, on the host.
    #[cfg(test)]
    pub(super) fn path(&self) -> &Path {
        self.folder.path()
    }
}

/// `--ro-bind path path`.
fn ro(args: &mut Vec<OsString>, path: &Path) {
    args.extend([OsString::from("--ro-bind"), path.into(), path.into()]);
}

/// The view's mount points and the system's links in it; the mounts of the view itself and of
/// the system's folders, and those folders.
fn system(root: &Path) -> std::io::Result<(Vec<OsString>, Vec<PathBuf>)> {
    let mut system: Vec<OsString> = vec!["--ro-bind".into(), root.into(), "/".into()];
    let mut covered = vec![PathBuf::from("/usr")];
    for dir in ["usr", "proc", "tmp", "dev/shm"] {
        make_dir(root, Path::new(dir))?;
    }
    ro(&mut system, Path::new("/usr"));
    for top in TOP {
        let host = Path::new("/").join(top);
        let Ok(meta) = std::fs::symlink_metadata(&host) else { continue };
        if meta.file_type().is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&host)?, root.join(top))?;
        } else if meta.is_dir() {
            make_dir(root, Path::new(top))?;
            ro(&mut system, &host);
        }
        covered.push(host);
    }
    if Path::new("/nix/store").is_dir() {
        make_dir(root, Path::new("nix/store"))?;
        system.extend(["--ro-bind-try", "/nix/store", "/nix/store"].map(OsString::from));
    }
    for name in ETC_FOLDERS {
        let host = Path::new("/etc").join(name);
        if host.is_dir() {
            make_dir(root, &Path::new("etc").join(name))?;
            ro(&mut system, &host);
        }
    }
    Ok((system, covered))
}

/// The interpreter's folders that exist, links resolved.
fn interpreter_dirs(dirs: &[PathBuf]) -> Vec<PathBuf> {
    dirs.iter().filter_map(|d| d.canonicalize().ok()).collect()
}

/// Each folder at its real place only (the interpreter is started by its real path, and the
/// folder of a link to it, which may hold anything of the operator's, is never shown), once,
/// and none that a system mount shows already.
fn interpreter_binds(dirs: Vec<PathBuf>, covered: &[PathBuf]) -> Vec<PathBuf> {
    let mut binds: Vec<PathBuf> = Vec::new();
    for real in dirs {
        if real == Path::new("/")
            || covered.iter().any(|c| real.starts_with(c))
            || binds.iter().any(|d| real.starts_with(d))
        {
            continue;
        }
        binds.retain(|d| !d.starts_with(&real));
        binds.push(real);
    }
    binds.sort();
    binds
}

/// The copies of `/etc`, each by its content (a link such as `localtime` is followed, as a bind
/// mount of it would be), and the compiled runner.
fn etc(root: &Path, runner: Option<&[u8]>) -> std::io::Result<()> {
    make_dir(root, Path::new("etc"))?;
    for name in ETC {
        let host = Path::new("/etc").join(name);
        if host.is_file() {
            write_file(&root.join("etc").join(name), &std::fs::read(&host)?)?;
        }
    }
    if let Some(runner) = runner {
        let inside = Path::new(RUNNER_INSIDE.trim_start_matches('/'));
        if let Some(parent) = inside.parent() {
            make_dir(root, parent)?;
        }
        write_file(&root.join(inside), runner)?;
    }
    Ok(())
}

/// A minimal `/dev`: a mount point for each device, the links bwrap's `--dev` makes
/// (`/dev/fd`, `/dev/stdin`...), and a mount point for `/dev/shm`. The `--dev-bind`s of the
/// devices, returned.
fn dev(root: &Path) -> std::io::Result<Vec<OsString>> {
    let mut binds = Vec::new();
    for device in DEVICES {
        let host = Path::new("/dev").join(device);
        if std::fs::metadata(&host).is_err() {
            continue;
        }
        write_file(&root.join("dev").join(device), b"")?;
        binds.extend([OsString::from("--dev-bind"), host.clone().into(), host.into()]);
    }
    std::os::unix::fs::symlink("/proc/self/fd", root.join("dev/fd"))?;
    for (fd, name) in ["stdin", "stdout", "stderr"].into_iter().enumerate() {
        std::os::unix::fs::symlink(format!("/proc/self/fd/{fd}"), root.join("dev").join(name))?;
    }
    Ok(binds)
}

/// `relative` under `root`, each folder made readable by all and writable by its owner alone
/// (0755), whatever the umask.
fn make_dir(root: &Path, relative: &Path) -> std::io::Result<()> {
    let mut path = root.to_path_buf();
    for part in relative.components() {
        let Component::Normal(part) = part else { continue };
        path.push(part);
        match std::fs::create_dir(&path) {
            Ok(()) => std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A file readable by all, writable by its owner alone (0644), whatever the umask.
fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, bytes)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(args: &[OsString]) -> Vec<String> {
        args.iter().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn the_interpreters_folders_are_shown_once_and_the_system_is_not_shown_twice() {
        let home = tempfile::tempdir().unwrap();
        let prefix = home.path().join("py");
        std::fs::create_dir_all(prefix.join("bin")).unwrap();
        let real = prefix.canonicalize().unwrap();
        let view = View::build(
            &[prefix.clone(), prefix.join("bin"), PathBuf::from("/usr/lib"), PathBuf::from("/")],
            None,
        )
        .unwrap();
        let args = words(&[view.system.clone(), view.interpreter.clone()].concat());
        let shown = real.to_string_lossy().into_owned();
        let binds: Vec<&[String]> = args.windows(3).filter(|w| w[0] == "--ro-bind").collect();
        assert!(binds.iter().any(|w| w[1] == shown && w[2] == shown), "{args:?}");
        assert_eq!(
            binds.iter().filter(|w| w[2].starts_with(&shown)).count(),
            1,
            "the bin folder is inside: {args:?}"
        );
        assert_eq!(binds.iter().filter(|w| w[2] == "/usr").count(), 1, "{args:?}");
        assert_eq!(binds.iter().filter(|w| w[2] == "/").count(), 1, "the view, once: {args:?}");
        assert!(!binds.iter().any(|w| w[1] == "/" || w[2] == "/usr/lib"), "{args:?}");
        assert!(
            !args.iter().any(|a| a == "/home" || a == "/root" || a == "/run" || a == "/tmp"),
            "{args:?}"
        );
        // The interpreter's folder has its mount point in the view (it is not under /tmp here
        // only when TMPDIR is elsewhere; either way bwrap finds or makes it).
        if !real.starts_with("/tmp") {
            assert!(view.path().join(real.strip_prefix("/").unwrap()).is_dir());
        }
    }

    #[test]
    fn the_view_holds_the_systems_links_copies_of_etc_mount_points_and_the_runner_readable_by_all()
    {
        let view = View::build(&[], Some(b"compiled")).unwrap();
        let root = view.path().to_path_buf();
        let mode = |p: &Path| std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&root), 0o755);
        for top in TOP {
            let host = Path::new("/").join(top);
            if std::fs::symlink_metadata(&host).is_ok_and(|m| m.file_type().is_symlink()) {
                assert_eq!(
                    std::fs::read_link(root.join(top)).unwrap(),
                    std::fs::read_link(&host).unwrap()
                );
            }
        }
        for name in ["ld.so.cache", "localtime"] {
            let host = Path::new("/etc").join(name);
            if host.is_file() {
                assert_eq!(
                    std::fs::read(root.join("etc").join(name)).unwrap(),
                    std::fs::read(&host).unwrap()
                );
                assert_eq!(mode(&root.join("etc").join(name)), 0o644);
            }
        }
        if Path::new("/etc/alternatives").is_dir() {
            assert!(root.join("etc/alternatives").is_dir(), "a mount point");
            let system = words(&view.system);
            assert!(system
                .windows(3)
                .any(|w| w == ["--ro-bind", "/etc/alternatives", "/etc/alternatives"]));
        }
        for dir in ["usr", "proc", "tmp", "dev/shm", "etc", "etc/workshop"] {
            assert!(root.join(dir).is_dir(), "{dir}");
            assert_eq!(mode(&root.join(dir)), 0o755, "{dir}");
        }
        assert_eq!(
            std::fs::read(root.join(RUNNER_INSIDE.trim_start_matches('/'))).unwrap(),
            b"compiled"
        );
        assert_eq!(mode(&root.join(RUNNER_INSIDE.trim_start_matches('/'))), 0o644);
        assert_eq!(std::fs::read_link(root.join("dev/fd")).unwrap(), Path::new("/proc/self/fd"));
        let devices = words(&view.devices);
        assert!(
            devices.windows(3).any(|w| w == ["--dev-bind", "/dev/null", "/dev/null"]),
            "{devices:?}"
        );
        assert!(root.join("dev/null").is_file(), "a mount point for the host's /dev/null");
        assert!(!devices.iter().any(|d| d.contains("tty") || d.contains("pts")), "{devices:?}");
        drop(view);
        assert!(!root.exists(), "dropping removes it");
    }
}
