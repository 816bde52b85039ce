//! What /proc says of processes: our children, a process's children, and the mark a process
//! carries (on macOS, what the kernel's own calls say of the last two: see `darwin`).

use super::{mark, MARK};

/// The children of a process now (from every thread's list); `None` when /proc cannot show them.
/// Only for speed (a childless worker is not waited for), so elsewhere always `None`.
pub(super) fn children_of(pid: i32) -> Option<Vec<i32>> {
    #[cfg(target_os = "linux")]
    {
        let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
        let mut found = Vec::new();
        for task in tasks.flatten() {
            let list = std::fs::read_to_string(task.path().join("children")).ok()?;
            found.extend(list.split_whitespace().filter_map(|p| p.parse::<i32>().ok()));
        }
        Some(found)
    }
    #[cfg(not(target_os = "linux"))]
    {
        // Every killed worker is then waited for, as one with children is on Linux.
        let _ = pid;
        None
    }
}

/// The mark a process carries, when it is one of this workshop's: it descends from one of our
/// workers (whose own mark it names).
pub(super) fn mark_of(pid: i32) -> Option<String> {
    let prefix = format!("{MARK}=");
    let env = environment(pid)?;
    let value = env.split(|&b| b == 0).find_map(|var| var.strip_prefix(prefix.as_bytes()))?;
    let value = String::from_utf8_lossy(value).into_owned();
    let base = mark();
    (value == base || value.strip_prefix(base).is_some_and(|rest| rest.starts_with('-')))
        .then_some(value)
}

/// The environment `pid` was started with, its entries each ended by a zero byte.
fn environment(pid: i32) -> Option<Vec<u8>> {
    #[cfg(target_os = "linux")]
    {
        std::fs::read(format!("/proc/{pid}/environ")).ok()
    }
    #[cfg(target_os = "macos")]
    {
        super::darwin::environment(pid)
    }
    // No way to read it elsewhere: no process is found by its mark there.
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = pid;
        None
    }
}

/// Every process carrying one of our marks, wherever it runs: the sweep without a subreaper.
#[cfg(target_os = "linux")]
pub(super) fn marked_processes() -> Vec<i32> {
    processes().filter(|(pid, _)| mark_of(*pid).is_some()).map(|(pid, _)| pid).collect()
}

/// Every process of this user carrying one of our marks: the sweep on macOS, which has no
/// subreaper (processes of other users neither carry it nor can be signalled).
#[cfg(target_os = "macos")]
pub(super) fn marked_processes() -> Vec<i32> {
    let me = rustix::process::geteuid().as_raw();
    super::darwin::of_user(me).into_iter().filter(|&pid| mark_of(pid).is_some()).collect()
}

/// No process list to read elsewhere: what left the worker's group is not found there.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
pub(super) fn marked_processes() -> Vec<i32> {
    Vec::new()
}

/// The environment in what macOS's `KERN_PROCARGS2` gives: the argument count, the program's
/// path, padding zeros, the arguments, then the environment up to an empty entry. Its entries
/// each with their zero, as Linux's /proc/<pid>/environ reads; `None` when it is not that shape.
#[cfg(any(test, target_os = "macos"))]
pub(super) fn environment_in_procargs(args: &[u8]) -> Option<&[u8]> {
    let count = args.get(..4).and_then(|b| <[u8; 4]>::try_from(b).ok()).map(i32::from_ne_bytes)?;
    let mut at = 4 + args.get(4..)?.iter().position(|&b| b == 0)?;
    at += args[at..].iter().position(|&b| b != 0)?;
    for _ in 0..count.max(0) {
        at += args.get(at..)?.iter().position(|&b| b == 0)? + 1;
    }
    let start = at;
    while let Some(len) = args.get(at..).and_then(|rest| rest.iter().position(|&b| b == 0)) {
        if len == 0 {
            break;
        }
        at += len + 1;
    }
    args.get(start..at)
}

/// Every process in /proc, with the text of its `stat` file after the command name.
#[cfg(target_os = "linux")]
pub(super) fn processes() -> impl Iterator<Item = (i32, String)> {
    let entries = std::fs::read_dir("/proc").into_iter().flatten().flatten();
    entries.filter_map(|entry| {
        let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
        Some((pid, stat.rsplit_once(')')?.1.to_string()))
    })
}

/// Our children, from `/proc/self/task/<tid>/children` (one list per thread: an orphan is
/// re-parented to any thread of ours); from every process's parent where those lists are absent.
#[cfg(target_os = "linux")]
pub(super) fn children() -> Vec<i32> {
    children_listed_in(std::path::Path::new("/proc/self/task"))
}

/// Our children, from the `children` lists of the threads in `tasks`, or from every process's
/// parent when none of them has one (a kernel without `CONFIG_PROC_CHILDREN`).
#[cfg(target_os = "linux")]
pub(super) fn children_listed_in(tasks: &std::path::Path) -> Vec<i32> {
    let mut found = Vec::new();
    let mut listed = false;
    for task in std::fs::read_dir(tasks).into_iter().flatten().flatten() {
        if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
            listed = true;
            found.extend(list.split_whitespace().filter_map(|p| p.parse::<i32>().ok()));
        }
    }
    if !listed {
        let me = std::process::id().to_string();
        // `stat` after the name: " S <ppid> ...".
        found.extend(
            processes()
                .filter(|(_, rest)| rest.split_whitespace().nth(1) == Some(me.as_str()))
                .map(|(pid, _)| pid),
        );
    }
    found
}

/// Whether a process sits stopped by a signal (`T` in its stat line), as one held from outside
/// does; false where the system cannot say (then a hang is told as a hang).
pub(in crate::bridge) fn stopped(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next()) == Some("T")
    }
    #[cfg(target_os = "macos")]
    {
        i32::try_from(pid).is_ok_and(super::darwin::stopped)
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = pid;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::environment_in_procargs;

    /// As macOS lays out a process's arguments: count, path, padding, arguments, environment,
    /// an empty entry, then the loader's own strings (not the environment).
    fn procargs(args: &[&str], env: &[&str]) -> Vec<u8> {
        let mut out = (args.len() as i32).to_ne_bytes().to_vec();
        out.extend_from_slice(b"/usr/bin/python3\0\0\0\0");
        for entry in args.iter().chain(env) {
            out.extend_from_slice(entry.as_bytes());
            out.push(0);
        }
        out.extend_from_slice(b"\0executable_path=/usr/bin/python3\0ptr_munge=\0");
        out
    }

    #[test]
    fn the_environment_is_read_from_macos_process_arguments() {
        let args = procargs(&["python3", "-c", "pass"], &["WORKSHOP_BRIDGE=1-2-3", "LANG=C"]);
        let env = environment_in_procargs(&args).unwrap();
        assert_eq!(env, b"WORKSHOP_BRIDGE=1-2-3\0LANG=C\0");
        let none = procargs(&["python3"], &[]);
        assert_eq!(environment_in_procargs(&none).unwrap(), b"");
        assert_eq!(environment_in_procargs(&args[..6]), None, "cut short");
        assert_eq!(environment_in_procargs(b"\x01\0"), None, "too short for a count");
    }
}
