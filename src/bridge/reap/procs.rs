//! What /proc says of processes: our children, a process's children, and the mark a process
//! carries.

use super::{mark, MARK};

/// The children of a process now (from every thread's list); `None` when /proc cannot show them.
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
        let _ = pid;
        None
    }
}

/// The mark a process carries, when it is one of this workshop's: it descends from one of our
/// workers (whose own mark it names).
#[cfg(target_os = "linux")]
pub(super) fn mark_of(pid: i32) -> Option<String> {
    let prefix = format!("{MARK}=");
    let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let value = env.split(|&b| b == 0).find_map(|var| var.strip_prefix(prefix.as_bytes()))?;
    let value = String::from_utf8_lossy(value).into_owned();
    let base = mark();
    (value == base || value.strip_prefix(base).is_some_and(|rest| rest.starts_with('-'))).then_some(value)
}

/// Every process carrying one of our marks, wherever it runs: the sweep without a subreaper.
#[cfg(target_os = "linux")]
pub(super) fn marked_processes() -> Vec<i32> {
    processes().filter(|(pid, _)| mark_of(*pid).is_some()).map(|(pid, _)| pid).collect()
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
            processes().filter(|(_, rest)| rest.split_whitespace().nth(1) == Some(me.as_str())).map(|(pid, _)| pid),
        );
    }
    found
}

/// Whether a process sits stopped by a signal (`T` in its stat line), as one held from outside
/// does; false where /proc cannot say (then a hang is told as a hang).
pub(in crate::bridge) fn stopped(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next()) == Some("T")
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        false
    }
}
