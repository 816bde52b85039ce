//! What macOS says of processes where Linux has /proc: the kernel's process lists, a process's
//! state, and its environment as it was started (`sysctl`'s `KERN_PROCARGS2`).

use std::os::raw::{c_int, c_void};

/// `proc_listpids`' kinds (sys/proc_info.h), which the libc crate does not name.
const PROC_UID_ONLY: u32 = 4;
const PROC_RUID_ONLY: u32 = 5;

/// The processes whose effective user is `uid` (what a sweep may signal).
pub(in crate::bridge) fn of_user(uid: u32) -> Vec<i32> {
    listed(PROC_UID_ONLY, uid)
}

/// The processes whose real user is `uid` (what `RLIMIT_NPROC` counts there).
pub(in crate::bridge) fn of_real_user(uid: u32) -> Vec<i32> {
    listed(PROC_RUID_ONLY, uid)
}

fn listed(kind: u32, uid: u32) -> Vec<i32> {
    // SAFETY: a null buffer of size 0 asks only for the size the list needs, in bytes.
    let needed = unsafe { libc::proc_listpids(kind, uid, std::ptr::null_mut(), 0) };
    let Ok(needed) = usize::try_from(needed) else { return Vec::new() };
    // Room for processes started between the two calls.
    let mut pids = vec![0 as c_int; needed / std::mem::size_of::<c_int>() + 64];
    let bytes = c_int::try_from(std::mem::size_of_val(pids.as_slice())).unwrap_or(c_int::MAX);
    let buffer = pids.as_mut_ptr().cast::<c_void>();
    // SAFETY: the buffer is `pids`, of `bytes` bytes, which the call fills at most.
    let filled = unsafe { libc::proc_listpids(kind, uid, buffer, bytes) };
    let Ok(filled) = usize::try_from(filled) else { return Vec::new() };
    pids.truncate(filled / std::mem::size_of::<c_int>());
    pids.retain(|&pid| pid > 0);
    pids
}

/// Whether `pid` sits stopped by a signal; false where the kernel does not say.
pub(in crate::bridge) fn stopped(pid: i32) -> bool {
    // SAFETY: a plain C struct of integers and byte arrays, for which zero is a valid value.
    let mut info: libc::proc_bsdinfo = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::proc_bsdinfo>();
    let Ok(bytes) = c_int::try_from(size) else { return false };
    let buffer = (&raw mut info).cast::<c_void>();
    // SAFETY: the buffer is `info`, of `bytes` bytes, the size this flavour fills.
    let got = unsafe { libc::proc_pidinfo(pid, libc::PROC_PIDTBSDINFO, 0, buffer, bytes) };
    got == bytes && info.pbi_status == libc::SSTOP
}

/// The environment `pid` was started with, as `NAME=value` entries each ended by a zero byte
/// (as Linux's /proc/<pid>/environ reads); `None` for a process of another user, or gone.
pub(in crate::bridge) fn environment(pid: i32) -> Option<Vec<u8>> {
    let mut args = vec![0_u8; argmax()?];
    let mut mib = [libc::CTL_KERN, libc::KERN_PROCARGS2, pid];
    let mut size = args.len();
    let (buffer, none) = (args.as_mut_ptr().cast::<c_void>(), std::ptr::null_mut());
    // SAFETY: `mib` names three integers; the kernel writes at most `size` bytes into `args`
    // and sets `size` to what it wrote.
    let done = unsafe { libc::sysctl(mib.as_mut_ptr(), 3, buffer, &mut size, none, 0) };
    if done != 0 {
        return None;
    }
    args.truncate(size);
    super::procs::environment_in_procargs(&args).map(<[u8]>::to_vec)
}

/// The most bytes a process's arguments and environment take (`kern.argmax`).
fn argmax() -> Option<usize> {
    static ARGMAX: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *ARGMAX.get_or_init(|| {
        let mut mib = [libc::CTL_KERN, libc::KERN_ARGMAX];
        let mut value: c_int = 0;
        let mut size = std::mem::size_of::<c_int>();
        let (buffer, none) = ((&raw mut value).cast::<c_void>(), std::ptr::null_mut());
        // SAFETY: `mib` names two integers; the kernel writes one `c_int` into `value`.
        let done = unsafe { libc::sysctl(mib.as_mut_ptr(), 2, buffer, &mut size, none, 0) };
        (done == 0).then(|| usize::try_from(value).ok()).flatten().filter(|&n| n > 0)
    })
}
