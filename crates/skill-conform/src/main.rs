//! The `skill-conform` binary; everything lives in the library.
fn main() -> std::process::ExitCode {
    skill_conform::cli::main()
}
