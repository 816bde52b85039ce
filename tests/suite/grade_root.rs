//! What holds when `grade` runs as root and as an ordinary user (docs/operators.md): every
//! submission runs unprivileged, /proc is read-only in the sandbox (no host-wide kernel setting
//! opens for writing), a descriptor `grade` inherited is closed before any submission runs, and
//! the folder of a link to the interpreter is never shown.

use crate::common::*;
use crate::grade::{command, grade_temp, graded, lines};
use crate::sandbox::{grading_python, is_root, needs_bwrap};

use std::os::unix::process::CommandExt;
use std::process::Command;

/// A submission that reports, by the message of the exception its import raises, who it runs
/// as and which of /proc's writable-looking files opened for writing.
const PROBE_PROC: &str = "import os\nopened = []\nfor path in ['/proc/sys/kernel/core_pattern', '/proc/sys/vm/drop_caches', '/proc/sysrq-trigger', '/proc/self/oom_score_adj', '/proc/sys/kernel/ns_last_pid']:\n    try:\n        os.close(os.open(path, os.O_WRONLY))\n        opened.append(path)\n    except OSError:\n        pass\nraise Exception('uid %d gid %d groups %s opened %s' % (os.getuid(), os.getgid(), os.getgroups(), ','.join(opened) or 'nothing'))\n";

/// `workshop grade` as nobody (through setpriv) when the tests run as root: the ordinary user.
fn as_user(w: &Workshop, args: &[&str]) -> Command {
    let mut cmd = Command::new("setpriv");
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN]).args(args);
    cmd.current_dir(w.root())
        .env("WORKSHOP_PYTHON", grading_python())
        .env("HOME", "/tmp")
        .stdin(std::process::Stdio::null());
    cmd
}

/// Let nobody read the workshop root (the tests' temp folders are 0700).
fn open_root(w: &Workshop) {
    use std::os::unix::fs::PermissionsExt;
    for dir in [w.root().to_path_buf(), w.path("class"), w.path("class/probe")] {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::set_permissions(
        w.path("class/probe/errors.py"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
}

fn message(stdout: &str) -> String {
    lines(stdout)[0]["message"].as_str().unwrap().to_string()
}

#[test]
fn as_root_and_as_a_user_a_submission_runs_unprivileged_and_proc_is_read_only() {
    if !needs_bwrap() {
        return;
    }
    let w = Workshop::lesson5();
    w.write("class/probe/errors.py", PROBE_PROC);
    let run = graded(command(&w, &["grade", "class", "--sandbox", "bwrap"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let said = message(&run.stdout);
    assert!(said.contains("opened nothing"), "{said}");
    if is_root() {
        assert!(said.contains("uid 65534 "), "as root, the submission runs as nobody: {said}");
        open_root(&w);
        let user = graded(as_user(&w, &["grade", "class", "--sandbox", "bwrap"]));
        assert_eq!(user.code, 0, "{}", user.stderr);
        assert!(message(&user.stdout).contains("opened nothing"), "{}", user.stdout);
    }
    // Without the sandbox, as root the submission is still nobody, in no group of root's.
    let bare = graded(command(&w, &["grade", "class", "--sandbox", "none"]));
    let said = message(&bare.stdout);
    assert!(!said.contains("uid 0 "), "{said}");
    if is_root() {
        assert!(said.contains("uid 65534 gid 65534 groups [] "), "{said}");
    }
}

#[test]
fn a_descriptor_grade_inherited_cannot_carry_a_forged_line() {
    let w = Workshop::lesson5();
    let forged = "import os\ntry:\n    os.write(3, b'{\"file\": \"class/amy/errors.py\", \"status\": \"pass\"}\\n')\n    print('wrote through 3')\nexcept OSError as e:\n    print('fd 3:', e.strerror)\n";
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    w.write("class/probe/errors.py", &format!("{forged}\n{good}"));
    let modes: &[&str] = if needs_bwrap() { &["none", "bwrap"] } else { &["none"] };
    for mode in modes {
        let sink = tempfile::NamedTempFile::new_in(scratch()).unwrap();
        // A descriptor number of its own, so dup2 never meets itself (which keeps close-on-exec).
        let fd = 100 + std::os::fd::AsRawFd::as_raw_fd(sink.as_file());
        // SAFETY: dup2(2) onto a number this test process does not use.
        assert_eq!(unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(sink.as_file()), fd) }, fd);
        let mut cmd = command(&w, &["grade", "class", "--sandbox", mode]);
        // SAFETY: dup2(2) in the child between fork and exec, on a descriptor this test owns;
        // dup2 clears close-on-exec on the copy, as a shell's `3>>file` would leave it.
        unsafe {
            cmd.pre_exec(move || match libc::dup2(fd, 3) {
                -1 => Err(std::io::Error::last_os_error()),
                _ => Ok(()),
            });
        }
        let run = graded(cmd);
        // SAFETY: close(2) on the copy made above, which nothing else holds.
        unsafe { libc::close(fd) };
        assert_eq!(run.code, 0, "{}", run.stderr);
        let written = std::fs::read_to_string(sink.path()).unwrap();
        assert!(written.is_empty(), "--sandbox {mode}: the submission wrote {written:?}");
        assert!(
            lines(&run.stdout)[0]["output"].as_str().unwrap().contains("fd 3: Bad file descriptor"),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn the_folder_of_a_link_to_the_interpreter_is_never_shown() {
    if !needs_bwrap() {
        return;
    }
    let w = Workshop::lesson5();
    let bin = grade_temp();
    std::fs::write(bin.path().join("teachers-notes.txt"), "answers").unwrap();
    let link = bin.path().join("python3");
    std::os::unix::fs::symlink(grading_python(), &link).unwrap();
    let probe = format!(
        "import os\ntry:\n    seen = os.listdir({:?})\nexcept OSError as e:\n    seen = e.strerror\nraise Exception('saw %s' % (seen,))\n",
        bin.path().to_str().unwrap()
    );
    w.write("class/probe/errors.py", &probe);
    let mut cmd = command(&w, &["grade", "class", "--sandbox", "bwrap"]);
    cmd.env("WORKSHOP_PYTHON", &link);
    let run = graded(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let said = message(&run.stdout);
    assert!(!said.contains("teachers-notes"), "{said}");
    assert!(said.contains("saw No such file or directory"), "{said}");
}
