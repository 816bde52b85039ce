//! The shared builder for integration tests: a throwaway workshop root holding a copy of the
//! repository's lessons, starters and recordings, and the real binary run inside it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_workshop");

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A learner file kept under tests/fixtures/learners/.
pub fn fixture(name: &str) -> PathBuf {
    repo().join("tests/fixtures/learners").join(name)
}

pub struct Workshop {
    dir: tempfile::TempDir,
}

/// What a run printed and how it ended.
#[derive(Debug)]
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}\nstderr:\n{}", self.stdout, self.stderr))
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

impl Workshop {
    pub fn new() -> Workshop {
        let dir = tempfile::tempdir().unwrap();
        for part in ["lessons", "starter", "recordings"] {
            let from = repo().join(part);
            if from.is_dir() {
                copy_tree(&from, &dir.path().join(part));
            }
        }
        std::fs::create_dir_all(dir.path().join("work")).unwrap();
        Workshop { dir }
    }

    /// A workshop holding one lesson of the repository only: for tests of that lesson's behaviour
    /// that run commands without naming it (with one lesson, every command assumes it).
    pub fn only(id: &str) -> Workshop {
        let dir = tempfile::tempdir().unwrap();
        for part in ["lessons", "starter", "recordings"] {
            let from = repo().join(part).join(id);
            if from.is_dir() {
                copy_tree(&from, &dir.path().join(part).join(id));
            }
        }
        std::fs::create_dir_all(dir.path().join("work")).unwrap();
        Workshop { dir }
    }

    /// A root holding only the lesson data under `tests/fixtures/<name>/` (lessons, starter,
    /// recordings), for lessons that exist only in the tests.
    pub fn from_fixture(name: &str) -> Workshop {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&repo().join("tests/fixtures").join(name), dir.path());
        std::fs::create_dir_all(dir.path().join("work")).unwrap();
        Workshop { dir }
    }

    /// The structured-errors lesson alone, as the tests written for it assume.
    pub fn lesson5() -> Workshop {
        Workshop::only("structured-errors")
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    pub fn write(&self, rel: &str, text: &str) -> &Workshop {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    /// Copy a fixture learner file into `learners/<name>` and return that relative path.
    pub fn learner(&self, name: &str) -> String {
        let rel = format!("learners/{name}");
        let text = std::fs::read_to_string(fixture(name)).unwrap_or_else(|e| panic!("fixture {name}: {e}"));
        self.write(&rel, &text);
        rel
    }

    /// Put a fixture learner file in place as the work file of structured-errors.
    pub fn work_file_from(&self, name: &str) -> &Workshop {
        let text = std::fs::read_to_string(fixture(name)).unwrap();
        self.write("work/structured-errors/errors.py", &text)
    }

    /// The binary with a clean environment, run from the root.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.args(args).current_dir(self.root()).stdin(Stdio::null());
        for var in [
            "NO_COLOR",
            "CLICOLOR_FORCE",
            "FORCE_COLOR",
            "WORKSHOP_ROOT",
            "WORKSHOP_PYTHON",
            "WORKSHOP_ASCII",
            "COLUMNS",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("TERM", "xterm-256color");
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Run {
        run(self.command(args))
    }
}

pub fn run(mut cmd: Command) -> Run {
    let out = cmd.output().expect("the workshop binary runs");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// A file kept under tests/fixtures/watch/ (learner files and broken recordings for `watch`).
pub fn watch_fixture(rel: &str) -> PathBuf {
    repo().join("tests/fixtures/watch").join(rel)
}

impl Workshop {
    /// Copy `tests/fixtures/watch/<fixture>` to `rel` in the root, replacing what is there.
    pub fn copy_watch_fixture(&self, fixture: &str, rel: &str) -> &Workshop {
        let text = std::fs::read_to_string(watch_fixture(fixture)).unwrap_or_else(|e| panic!("fixture {fixture}: {e}"));
        self.write(rel, &text)
    }
}

/// A real terminal: a tmux session running the binary, read back with capture-pane.
pub struct Tmux {
    name: String,
}

impl Tmux {
    pub fn start(ws: &Workshop, args: &str) -> Option<Tmux> {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let name = format!("workshop-test-{}-{n}", std::process::id());
        let script = format!("cd '{}' && '{}' {args}; echo EXITED $?; sleep 30", ws.root().display(), BIN);
        let ok = std::process::Command::new("tmux")
            .args(["new-session", "-d", "-s", &name, "-x", "100", "-y", "50", &script])
            .env_remove("NO_COLOR")
            .status()
            .ok()?
            .success();
        ok.then_some(Tmux { name })
    }

    pub fn screen(&self) -> String {
        let out = std::process::Command::new("tmux").args(["capture-pane", "-p", "-t", &self.name]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Wait (bounded) until the screen shows `text`.
    pub fn wait_for(&self, text: &str) -> String {
        for _ in 0..300 {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("never saw {text:?}:\n{}", self.screen());
    }

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", self.name.as_str()];
        args.extend_from_slice(keys);
        std::process::Command::new("tmux").args(&args).status().unwrap();
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = std::process::Command::new("tmux").args(["kill-session", "-t", &self.name]).status();
    }
}

/// Text with every run of whitespace made one space, so a check of a sentence does not depend on
/// where the output wrapped it.
pub fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
