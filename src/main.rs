#[allow(clippy::disallowed_methods)] // the one place the process exits, after run() has cleaned up
fn main() {
    std::process::exit(workshop::run());
}
