//! The `./workshop` launcher script: the first build says it happens once and shows cargo's own
//! progress; later runs start the binary at once; a change in the sources builds again.
//! A stand-in `cargo` on PATH records how it was called and makes a binary that echoes its
//! arguments, so the test needs neither a real build nor a network.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use crate::common::*;

const FAKE_CARGO: &str = r#"#!/usr/bin/env bash
# Records its arguments, then makes target/release/workshop beside the manifest it was given
# (target/<target>/release/workshop for a --target).
echo "$@" >> "$FAKE_CARGO_LOG"
manifest=""
target=""
while [[ $# -gt 0 ]]; do
  if [[ "$1" == "--manifest-path" ]]; then manifest="$2"; shift; fi
  if [[ "$1" == "--target" ]]; then target="$2/"; shift; fi
  shift
done
dir="$(dirname "$manifest")/target/${target}release"
mkdir -p "$dir"
printf '#!/bin/sh\necho "ran $*"\n' > "$dir/workshop"
chmod +x "$dir/workshop"
echo "   Compiling workshop (stand-in)" >&2
"#;

struct Launch {
    stdout: String,
    stderr: String,
    code: i32,
}

fn launch(dir: &std::path::Path, args: &[&str]) -> Launch {
    launch_with(dir, args, None)
}

/// As `launch`, with `WORKSHOP_FEATURES` set to `features`, if given.
fn launch_with(dir: &std::path::Path, args: &[&str], features: Option<&str>) -> Launch {
    launch_from(dir, &repo(), args, features)
}

/// As `launch_with`, run from the folder `cwd`.
fn launch_from(dir: &Path, cwd: &Path, args: &[&str], features: Option<&str>) -> Launch {
    let path =
        format!("{}:{}", dir.join("fake-bin").display(), std::env::var("PATH").unwrap_or_default());
    let mut cmd = Command::new(dir.join("workshop"));
    cmd.current_dir(cwd)
        .args(args)
        .env("PATH", path)
        .env("FAKE_CARGO_LOG", dir.join("cargo.log"))
        .env_remove("WORKSHOP_FEATURES")
        .env_remove("WORKSHOP_ROOT");
    if let Some(features) = features {
        cmd.env("WORKSHOP_FEATURES", features);
    }
    let out = cmd.output().expect("the launcher runs");
    Launch {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// A stand-in `rustc` that says where a target's library is: a folder that is there when the
/// toolchain is to have musl's target, one that is not otherwise.
fn fake_rustc(musl: bool) -> String {
    let libdir = if musl { "$(dirname \"$0\")" } else { "/no/such/folder" };
    format!("#!/usr/bin/env bash\n[[ \"$*\" == \"--print target-libdir --target $(uname -m)-unknown-linux-musl\" ]] && echo \"{libdir}\"\n")
}

/// A checkout of the launcher with sources and `cargo` (the stand-in `cargo_script`) on its PATH,
/// and a toolchain without musl's target.
fn a_checkout(cargo_script: &str) -> tempfile::TempDir {
    a_checkout_with(cargo_script, false)
}

fn a_checkout_with(cargo_script: &str, musl: bool) -> tempfile::TempDir {
    let dir = tempdir();
    let root = dir.path();
    std::fs::copy(repo().join("workshop"), root.join("workshop")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(root.join("Cargo.toml"), "").unwrap();
    std::fs::write(root.join("Cargo.lock"), "").unwrap();
    std::fs::create_dir_all(root.join("fake-bin")).unwrap();
    executable(&root.join("fake-bin/cargo"), cargo_script);
    executable(&root.join("fake-bin/rustc"), &fake_rustc(musl));
    dir
}

fn executable(path: &std::path::Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn the_first_build_says_it_happens_once_and_shows_cargos_progress() {
    let dir = a_checkout(FAKE_CARGO);
    let root = dir.path();

    let first = launch(root, &["start", "x"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(first.stdout, "ran start x\n");
    let words = flat(&first.stderr);
    assert!(words.contains("workshop: building the tool. This happens once"), "{}", first.stderr);
    assert!(words.contains("cargo shows its progress"), "{}", first.stderr);
    assert!(
        first.stderr.contains("Compiling workshop (stand-in)"),
        "cargo's own lines reach the learner:\n{}",
        first.stderr
    );
    let log = std::fs::read_to_string(root.join("cargo.log")).unwrap();
    if cfg!(target_os = "linux") {
        // Linked statically, the flag given to the binary alone.
        assert!(log.starts_with("rustc --release --manifest-path"), "{log}");
        assert!(
            log.trim_end().ends_with("--bin workshop -- -C target-feature=+crt-static"),
            "{log}"
        );
    } else {
        assert!(log.starts_with("build --release --manifest-path"), "{log}");
    }
    assert!(!log.contains("--quiet") && !log.contains(" -q"), "no quiet build: {log}");

    // Built: the next run starts at once, with no build and nothing said.
    let second = launch(root, &["list"]);
    assert_eq!((second.stdout.as_str(), second.stderr.as_str()), ("ran list\n", ""));
    assert_eq!(std::fs::read_to_string(root.join("cargo.log")).unwrap().lines().count(), 1);

    // A newer source builds again, and says why.
    let bin = root.join("target/release/workshop");
    // `-t`, which GNU's and BSD's touch both read.
    let touched = Command::new("touch").arg("-t").arg("200001010000").arg(&bin).status().unwrap();
    assert!(touched.success());
    std::fs::write(root.join("src/main.rs"), "fn main() { }\n").unwrap();
    let third = launch(root, &["list"]);
    assert!(third.stderr.contains("building the tool again"), "{}", third.stderr);
    assert!(!third.stderr.contains("This happens once"), "{}", third.stderr);
}

/// Put into the stand-in `cargo`: its static link fails (a system with no static C library), as
/// `cargo rustc` would, while the usual build works.
#[cfg(target_os = "linux")]
const REFUSES_A_STATIC_LINK: &str = r#"if [[ "$1" == "rustc" ]]; then
  echo "error: linking with \`cc\` failed: cannot find -lc (stand-in)" >&2
  exit 101
fi
"#;

// Linux only: the launcher links statically there alone.
#[test]
#[cfg(target_os = "linux")]
fn a_system_that_cannot_link_the_tool_statically_gets_the_usual_build() {
    let dir = a_checkout(&FAKE_CARGO.replacen(
        "\nmanifest=",
        &format!("\n{REFUSES_A_STATIC_LINK}manifest="),
        1,
    ));
    let root = dir.path();

    let first = launch(root, &["list"]);
    assert_eq!((first.code, first.stdout.as_str()), (0, "ran list\n"), "{}", first.stderr);
    let words = flat(&first.stderr);
    assert!(
        words.contains("cannot find -lc (stand-in)"),
        "cargo's own error reaches the learner:\n{}",
        first.stderr
    );
    assert!(
        words.contains("could not be linked statically (see above); building it the usual way"),
        "{}",
        first.stderr
    );
    assert!(!words.contains("the build failed"), "{}", first.stderr);
    let log = std::fs::read_to_string(root.join("cargo.log")).unwrap();
    let calls: Vec<&str> = log.lines().map(|l| l.split_whitespace().next().unwrap_or("")).collect();
    assert_eq!(calls, ["rustc", "build"], "{log}");

    // Built the usual way: the next run starts at once.
    let second = launch(root, &["list"]);
    assert_eq!((second.stdout.as_str(), second.stderr.as_str()), ("ran list\n", ""));
}

/// Where the toolchain has musl's target, the tool is built against it (glibc's own start costs a
/// `check` 0.5 ms on a VM) and copied to where the launcher runs it, unless the live client is
/// built in; where that build fails, it is linked against glibc as before, and says why.
// Linux only: musl is a Linux target.
#[test]
#[cfg(target_os = "linux")]
fn a_toolchain_with_musls_target_builds_against_musl_and_falls_back_to_glibc() {
    let musl = format!("{}-unknown-linux-musl", std::env::consts::ARCH);
    let dir = a_checkout_with(FAKE_CARGO, true);
    let root = dir.path();
    let first = launch(root, &["list"]);
    assert_eq!((first.code, first.stdout.as_str()), (0, "ran list\n"), "{}", first.stderr);
    let log = std::fs::read_to_string(root.join("cargo.log")).unwrap();
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(log.starts_with("build --release --manifest-path"), "{log}");
    assert!(log.trim_end().ends_with(&format!("--target {musl} --bin workshop")), "{log}");
    assert!(!first.stderr.contains("could not"), "{}", first.stderr);
    let second = launch(root, &["list"]);
    assert_eq!((second.stdout.as_str(), second.stderr.as_str()), ("ran list\n", ""));

    // With the live client (its TLS wants a C compiler for musl), against glibc at once.
    let live = launch_with(root, &["list"], Some("live"));
    assert_eq!((live.code, live.stdout.as_str()), (0, "ran list\n"), "{}", live.stderr);
    let log = std::fs::read_to_string(root.join("cargo.log")).unwrap();
    assert!(
        log.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("rustc --release") && l.contains("--features live")),
        "{log}"
    );

    let refuses_musl =
        "if [[ \"$1\" == \"build\" ]]; then\n  echo \"error: no musl linker (stand-in)\" >&2\n  exit 101\nfi\n";
    let dir = a_checkout_with(
        &FAKE_CARGO.replacen("\nmanifest=", &format!("\n{refuses_musl}manifest="), 1),
        true,
    );
    let root = dir.path();
    let first = launch(root, &["list"]);
    assert_eq!((first.code, first.stdout.as_str()), (0, "ran list\n"), "{}", first.stderr);
    let words = flat(&first.stderr);
    assert!(
        words.contains("could not be built against musl (see above); linking it against glibc"),
        "{}",
        first.stderr
    );
    let log = std::fs::read_to_string(root.join("cargo.log")).unwrap();
    let calls: Vec<&str> = log.lines().map(|l| l.split_whitespace().next().unwrap_or("")).collect();
    assert_eq!(calls, ["build", "rustc"], "{log}");
}

/// Under Git Bash, MSYS2 or Cygwin (a stand-in `uname` says so), the launcher says in two lines
/// that Windows is supported through WSL 2, builds nothing and exits 2.
#[test]
fn under_a_windows_shell_the_launcher_points_to_wsl_and_builds_nothing() {
    for system in ["MINGW64_NT-10.0-19045", "MSYS_NT-10.0-22631", "CYGWIN_NT-10.0-19045"] {
        let dir = a_checkout(FAKE_CARGO);
        let root = dir.path();
        executable(&root.join("fake-bin/uname"), &format!("#!/bin/sh\necho {system}\n"));
        let run = launch(root, &["start", "x"]);
        assert_eq!(run.code, 2, "{system}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{system}");
        assert_eq!(run.stderr.lines().count(), 2, "{system}: {}", run.stderr);
        assert!(
            run.stderr.starts_with("workshop: Windows is supported through WSL 2, not Git Bash"),
            "{system}: {}",
            run.stderr
        );
        assert!(run.stderr.contains("wsl --install"), "{system}: {}", run.stderr);
        assert!(!root.join("cargo.log").exists(), "{system}: nothing was built");
    }
}

#[test]
fn inside_a_course_folder_the_launcher_lets_the_binary_find_it() {
    let dir = a_checkout(FAKE_CARGO);
    let root = dir.path();
    assert_eq!(launch(root, &["list"]).code, 0);
    // A built binary that says which root it was handed.
    let says_its_root = "#!/bin/sh\necho \"root=${WORKSHOP_ROOT:-none}\"\n";
    executable(&root.join("target/release/workshop"), says_its_root);
    let course = tempdir();
    std::fs::create_dir_all(course.path().join("lessons")).unwrap();
    std::fs::create_dir_all(course.path().join("work/some-lesson")).unwrap();
    let inside = launch_from(root, &course.path().join("work/some-lesson"), &["list"], None);
    assert_eq!((inside.stdout.as_str(), inside.code), ("root=none\n", 0), "{}", inside.stderr);
    // Anywhere else, the lessons beside the launcher, as before.
    let elsewhere = tempdir();
    let outside = launch_from(root, elsewhere.path(), &["list"], None);
    assert_eq!(outside.stdout, format!("root={}\n", root.display()), "{}", outside.stderr);
}
