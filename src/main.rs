// Against musl, dlmalloc rather than musl's own allocator (see Cargo.toml).
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

#[allow(clippy::disallowed_methods)] // the one place the process exits, after run() has cleaned up
fn main() {
    std::process::exit(workshop::run());
}
