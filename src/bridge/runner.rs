//! The runner's source (the four parts in runner/, and the kits it carries), and how Python gets
//! it: from a copy in the user's cache folder, whose bytecode Python caches beside it, or compiled
//! from `-c` on every start.

use std::path::PathBuf;
use std::sync::OnceLock;

use super::cache;

/// The runner, one program: the source of `kit.mcp` as a string (`_KIT_MCP`, which the runner
/// runs only when a learner's file imports it), the source of the stand-in `anthropic` module as
/// another (`_KIT_ANTHROPIC`, run only for a file whose functions name that kit: see
/// `_install_stand_ins`; neither file holds a triple single quote), then the runner's four parts
/// joined in order (see runner/start.py). The blank lines keep two top-level definitions of
/// adjacent parts apart as PEP 8 has them.
pub(super) const RUNNER: &str = concat!(
    "_KIT_MCP = r'''",
    include_str!("kit_mcp.py"),
    "'''\n",
    "_KIT_ANTHROPIC = r'''",
    include_str!("kit_anthropic.py"),
    "'''\n",
    include_str!("runner/start.py"),
    "\n\n",
    include_str!("runner/channel.py"),
    "\n\n",
    include_str!("runner/load.py"),
    "\n\n",
    include_str!("runner/spare.py"),
);

/// How Python gets the runner: `-c` with the source compiled on every start, or (the fast way)
/// an import of a copy in the user's cache folder, whose bytecode Python caches beside it.
/// Compiling the runner costs about as much as the interpreter's own start-up, so this is most
/// of what keeps a `check` close to a bare `python3 -I` run.
pub(super) fn runner_code() -> &'static str {
    static CODE: OnceLock<String> = OnceLock::new();
    CODE.get_or_init(|| cached_runner().unwrap_or_else(|| RUNNER.to_string()))
}

/// Where the cached copy of the runner lives, and its module name.
static CACHED: OnceLock<(PathBuf, String)> = OnceLock::new();

/// Remove the compiled cached runner (every interpreter's), so the next import compiles it
/// afresh. False when there was none to remove.
pub(super) fn forget_compiled_runner() -> bool {
    let Some((dir, module)) = CACHED.get() else { return false };
    let Ok(entries) = std::fs::read_dir(dir.join("__pycache__")) else { return false };
    let prefix = format!("{module}.");
    let mut removed = false;
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            removed |= std::fs::remove_file(entry.path()).is_ok();
        }
    }
    if removed {
        cache::compiled_removed();
    }
    removed
}

/// `import sys; sys.path.insert(0, <cache>); import workshop_runner_<hash>`, once the copy is in
/// place; `None` when there is no private cache folder to write to.
fn cached_runner() -> Option<String> {
    let dir = crate::files::cache_dir()?;
    // FNV-1a of the source: a new runner gets a new module name, so no stale bytecode is used.
    const HASH: u64 = crate::fnv::fnv1a(RUNNER.as_bytes());
    let module = format!("workshop_runner_{HASH:016x}");
    let path = dir.join(format!("{module}.py"));
    if !crate::files::holds(&path, RUNNER.as_bytes()) {
        crate::files::make_cache_dir(&dir).ok()?;
        let temp = dir.join(format!(".{module}.{}.tmp", std::process::id()));
        std::fs::write(&temp, RUNNER).ok()?;
        if std::fs::rename(&temp, &path).is_err() {
            let _ = std::fs::remove_file(&temp);
            return None;
        }
    }
    cache::vet(&dir, &module);
    let _ = CACHED.set((dir.clone(), module.clone()));
    let dir = crate::text::pyrepr::string(dir.to_str()?);
    Some(format!("import sys; sys.path.insert(0, {dir}); import {module}"))
}

#[cfg(test)]
mod tests {
    /// The kits go into the runner as raw strings between triple single quotes: one inside
    /// either, or a backslash at the end, would end the string early or break the runner.
    #[test]
    fn the_kits_can_be_carried_as_raw_strings() {
        for (name, source) in [
            ("kit_mcp.py", include_str!("kit_mcp.py")),
            ("kit_anthropic.py", include_str!("kit_anthropic.py")),
        ] {
            assert!(!source.contains("'''"), "{name} holds a triple single quote");
            assert!(!source.trim_end().ends_with('\\'), "{name} ends with a backslash");
        }
    }
}
