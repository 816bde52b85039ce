//! With the `course` feature (see Cargo.toml), a list of the course's files for `include!`:
//! each file's path under the root and its bytes, read by the compiler. Without it, nothing.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[path = "src/course/layout.rs"]
mod layout;
use layout::{left_out, PARTS};

type Failure = Box<dyn std::error::Error>;

fn main() -> Result<(), Failure> {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/course/layout.rs");
    if std::env::var_os("CARGO_FEATURE_COURSE").is_none() {
        return Ok(());
    }
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let mut files = Vec::new();
    for part in PARTS {
        // A folder here means: anything under it changed.
        println!("cargo:rerun-if-changed={part}");
        walk(&root, &root.join(part), &mut files)?;
    }
    files.sort();
    let mut list = String::from("&[\n");
    for (rel, full) in &files {
        writeln!(list, "    ({rel:?}, include_bytes!({full:?})),")?;
    }
    list.push_str("]\n");
    std::fs::write(PathBuf::from(std::env::var("OUT_DIR")?).join("course.rs"), list)?;
    Ok(())
}

/// Every regular file under `dir`, as (its path from `root` with `/`, its full path), leaving
/// out what is no part of a course (`layout::left_out`: a developer's runs leave compiled caches
/// in worlds/), as `course::init` does for a clone's `init`.
fn walk(root: &Path, dir: &Path, files: &mut Vec<(String, String)>) -> Result<(), Failure> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let not_utf8 = || format!("{}: not UTF-8", path.display());
        let name = path.file_name().and_then(|n| n.to_str()).ok_or_else(not_utf8)?;
        if left_out(name) {
            continue;
        }
        if path.is_dir() {
            walk(root, &path, files)?;
        } else if path.is_file() {
            let parts = path.strip_prefix(root)?.components();
            let rel: Vec<_> = parts.map(|c| c.as_os_str().to_string_lossy()).collect();
            let full = path.to_str().ok_or_else(not_utf8)?;
            files.push((rel.join("/"), full.to_string()));
        }
    }
    Ok(())
}
