//! Clean interruption: a process-wide registry of the process groups and temporary directories
//! a run owns, and a SIGINT/SIGTERM handler (the `signal-hook` crate) that cleans them up.
//!
//! Whoever starts a process group (an adapter, a set-up) or makes a temporary directory (a
//! sandbox, a temporary HOME) registers it and keeps the returned guard while it lives; dropping
//! the guard unregisters it. [`install`] starts a watcher thread; on the first SIGINT or SIGTERM
//! it SIGKILLs every registered group, removes every registered directory, calls the run's hook
//! (which writes the reports judged so far, marked `interrupted`), and exits 130 (SIGINT) or 143
//! (SIGTERM). A second signal during that exits at once with the same code. The work happens on
//! an ordinary thread, not in a signal handler, so it may allocate, lock and write files.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use signal_hook::consts::{SIGINT, SIGTERM};

/// What the run owns right now.
#[derive(Debug, Default)]
struct Registry {
    groups: BTreeSet<i32>,
    dirs: BTreeSet<PathBuf>,
}

fn registry() -> MutexGuard<'static, Registry> {
    static REGISTRY: OnceLock<Mutex<Registry>> = OnceLock::new();
    let mutex = REGISTRY.get_or_init(Mutex::default);
    // A panic elsewhere must not stop the cleanup: the registry itself is always consistent.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Keeps a process group registered until dropped.
#[must_use = "the group is unregistered when the guard is dropped"]
#[derive(Debug)]
pub struct GroupGuard(Option<i32>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.0 {
            registry().groups.remove(&pgid);
        }
    }
}

/// Registers the process group `pgid` (a child started with `process_group(0)` leads the group
/// whose id is its pid). A pgid of 0 or 1 is ignored: killing `-0` or `-1` would hit the
/// runner's own group or every process.
pub fn register_group(pgid: u32) -> GroupGuard {
    let pgid = i32::try_from(pgid).ok().filter(|&id| id > 1);
    if let Some(id) = pgid {
        registry().groups.insert(id);
    }
    GroupGuard(pgid)
}

/// Keeps a temporary directory registered until dropped.
#[must_use = "the directory is unregistered when the guard is dropped"]
#[derive(Debug)]
pub struct DirGuard(PathBuf);

impl Drop for DirGuard {
    fn drop(&mut self) {
        registry().dirs.remove(&self.0);
    }
}

/// Registers a temporary directory to remove (with everything below it) on interruption.
pub fn register_dir(path: &Path) -> DirGuard {
    registry().dirs.insert(path.to_owned());
    DirGuard(path.to_owned())
}

/// Whether `path` is registered right now.
pub fn is_registered_dir(path: &Path) -> bool {
    registry().dirs.contains(path)
}

/// Whether the process group `pgid` is registered right now.
pub fn is_registered_group(pgid: u32) -> bool {
    i32::try_from(pgid).is_ok_and(|id| registry().groups.contains(&id))
}

/// The signal that interrupted a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interruption {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM (a cancelled CI job).
    Terminate,
}

impl Interruption {
    pub fn signal(self) -> i32 {
        match self {
            Interruption::Interrupt => SIGINT,
            Interruption::Terminate => SIGTERM,
        }
    }

    /// The signal's name: `SIGINT` or `SIGTERM`.
    pub fn name(self) -> &'static str {
        match self {
            Interruption::Interrupt => "SIGINT",
            Interruption::Terminate => "SIGTERM",
        }
    }

    /// 128 + the signal number, as shells report it: 130 or 143.
    pub fn exit_code(self) -> i32 {
        128 + self.signal()
    }

    fn from_signal(signal: i32) -> Option<Interruption> {
        match signal {
            SIGINT => Some(Interruption::Interrupt),
            SIGTERM => Some(Interruption::Terminate),
            _ => None,
        }
    }
}

/// What [`clean_up`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Cleaned {
    pub groups_killed: usize,
    pub dirs_removed: usize,
}

/// SIGKILLs every registered process group and removes every registered directory, emptying the
/// registry. Groups go first, so nothing is still writing into a directory being removed.
pub(crate) fn clean_up() -> Cleaned {
    let (groups, dirs) = {
        let mut registry = registry();
        (
            std::mem::take(&mut registry.groups),
            std::mem::take(&mut registry.dirs),
        )
    };
    let mut cleaned = Cleaned::default();
    for pgid in groups {
        // SAFETY: kill(2) has no memory effects; pgid > 1 (see `register_group`).
        if unsafe { libc::kill(-pgid, libc::SIGKILL) } == 0 {
            cleaned.groups_killed += 1;
        }
    }
    for dir in dirs {
        if std::fs::remove_dir_all(&dir).is_ok() {
            cleaned.dirs_removed += 1;
        }
    }
    cleaned
}

/// What the run does once its groups and directories are gone: write the partial reports.
pub(crate) type InterruptHook = Box<dyn FnOnce(Interruption) + Send>;

/// Installs the SIGINT/SIGTERM handling described in the module doc. Call it once, early.
pub fn install(on_interrupt: InterruptHook) -> std::io::Result<()> {
    // The handlers of one signal run in the order registered: the "second signal exits at
    // once" check must run before the first signal wakes the watcher, which may set the flag
    // on another core while the handler is still running.
    let interrupted = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(
            signal,
            128 + signal,
            Arc::clone(&interrupted),
        )?;
    }
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new()
        .name("interrupt".into())
        .spawn(move || {
            let signal = signals.forever().find_map(Interruption::from_signal);
            if let Some(interruption) = signal {
                interrupted.store(true, std::sync::atomic::Ordering::SeqCst);
                clean_up();
                // A failing hook (an unwritable report) must not keep the run alive.
                let hook = std::panic::AssertUnwindSafe(move || on_interrupt(interruption));
                let _ = std::panic::catch_unwind(hook);
                std::process::exit(interruption.exit_code());
            }
        })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_zero_and_one_are_never_registered() {
        let _zero = register_group(0);
        let _one = register_group(1);
        assert!(!is_registered_group(0) && !is_registered_group(1));
    }

    #[test]
    fn a_dropped_guard_unregisters() {
        let dir = crate::test_tempdir::tempdir();
        let guard = register_dir(dir.path());
        assert!(is_registered_dir(dir.path()));
        drop(guard);
        assert!(!is_registered_dir(dir.path()));
        assert!(dir.path().is_dir(), "unregistering removes nothing");
    }

    #[test]
    fn exit_codes_are_128_plus_the_signal() {
        assert_eq!(Interruption::Interrupt.exit_code(), 130);
        assert_eq!(Interruption::Terminate.exit_code(), 143);
    }
}
