fn main() {
    std::process::exit(workshop::run());
}
