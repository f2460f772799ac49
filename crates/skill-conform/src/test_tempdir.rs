//! The unit tests' temporary directories, in the bases the runner's sandboxes use
//! ([`crate::sandbox::sandbox_bases`]: `$TMPDIR` when it is set, else in memory in `/dev/shm`,
//! then `/tmp`). On an ext4 `/tmp` the kernel's inode work was half of the unit tests' time
//! (0.98 s of system time, 0.18 s in memory; BENCHMARKS.md, "First use").

/// A fresh temporary directory, deleted when dropped.
pub fn tempdir() -> tempfile::TempDir {
    crate::sandbox::sandbox_bases()
        .iter()
        .find_map(|base| tempfile::tempdir_in(base).ok())
        .unwrap_or_else(|| tempfile::tempdir().expect("a temporary directory"))
}
