//! The unit tests' temporary directories: under `$TMPDIR` when it is set (the user's choice),
//! else in memory (`/dev/shm`) when this machine has it, else under the system's temporary
//! directory — as the runner's sandboxes and the suite's directories are. On an ext4 `/tmp`
//! the kernel's inode work was half of the unit tests' time (0.98 s of system time, 0.18 s in
//! memory; BENCHMARKS.md, "First use").

/// A fresh temporary directory, deleted when dropped.
pub fn tempdir() -> tempfile::TempDir {
    if std::env::var_os("TMPDIR").is_none() {
        if let Ok(dir) = tempfile::tempdir_in("/dev/shm") {
            return dir;
        }
    }
    tempfile::tempdir().expect("a temporary directory")
}
