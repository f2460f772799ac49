//! Stage 2 — sandbox: a fresh temporary copy of one case, with its renames and links applied,
//! and the absolute roots handed to every adapter.
//!
//! [`Sandbox::prepare`] does, in order:
//!
//! 1. Creates `BASE/skill-conform-XXXXXX` whose canonical path has only `[A-Za-z0-9._/-]` (so a
//!    root's raw and percent-encoded spellings are equal). The bases tried, in order
//!    ([`sandbox_bases`]): `$TMPDIR` when it is set, else the memory-backed `/dev/shm`; then
//!    `/tmp`. If none qualifies, [`SandboxError::NoPlainTempDir`]. (`run --repeat N` places
//!    later passes elsewhere: [`Placement`].)
//! 2. Copies the case directory except its `case.toml`, byte for byte, in sorted order. A symlink
//!    or special file committed in the fixture tree is refused: links are made only by `links`.
//! 3. Checks the copy: every directory lists exactly the names of its original. A
//!    case-insensitive or normalising filesystem (which merges `B`/`b`, `ß`/`ss`, NFC/NFD) makes
//!    the sandbox **vacuous** — the case's own precondition does not hold here.
//! 4. Applies `renames`, deepest path first, so nested renames name their original paths.
//! 5. Applies `links` (missing parents created as directories; the target text is written as
//!    is), then checks every link's target in the final tree: it must resolve inside the
//!    sandbox, or be one of [`LINK_TARGETS_OUTSIDE_THE_CASE`] exactly. With
//!    [`Placement::shuffle`], every directory's entries are then added again in a seeded
//!    shuffled order (a filesystem that lists by creation lists them so).
//! 6. Hands out the roots as `SANDBOX/<entry>`: the sandbox path is canonical, the entry is not
//!    resolved, and a root that does not exist is handed out all the same.
//! 7. Checks `unreadable`: each path must resolve to a regular file in the sandbox or to an
//!    allowed `/proc` entry, exist, and fail to read one byte (opened without blocking);
//!    otherwise the sandbox is vacuous (for example, running as root reads a mode-000 file).
//!
//! **Containment.** No step follows a symlink out of the sandbox: renames and links check every
//! parent component without following it and refuse one that is a symlink, so nothing is created
//! or moved outside the sandbox and nothing outside it is read (except one byte of an allowed
//! `/proc` entry). Every such refusal is a [`SandboxError::Refused`] naming the case and a
//! [`Refusal`].
//!
//! [`Sandbox::check`] (in `sandbox/check.rs`) finds the same refusals and case errors over the
//! fixture without copying it: planning checks every case that way.
//!
//! A broken case (a rename source that is missing, a link path that exists) is a
//! [`SandboxError::Case`], never a panic. With `keep`, the directory outlives the sandbox value
//! and [`Sandbox::path`] tells where; otherwise it is deleted on drop, or by
//! [`crate::interrupt`] when the run is interrupted.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::case::{CaseId, CaseSpec, MANIFEST};

mod check;

/// The prefix of every sandbox directory's name.
pub(crate) const PREFIX: &str = "skill-conform-";

/// A setup error while building a sandbox. Each renders as one line.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("error creating a sandbox: no temporary directory has a plain path `[A-Za-z0-9._/-]` ({tried}) (hint: set TMPDIR to a directory with such a path)")]
    NoPlainTempDir { tried: String },

    #[error("error {action} `{}`: {cause}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        cause: io::Error,
    },

    #[error("error preparing case `{case}`: {message} (hint: {hint})")]
    Case {
        case: CaseId,
        message: String,
        hint: String,
    },

    /// The case would make the sandbox reach outside itself: a fixture error.
    #[error("error preparing case `{case}`: {refusal} (hint: {})", refusal.hint())]
    Refused { case: CaseId, refusal: Refusal },
}

/// The targets outside the case a `links` entry may name, exactly as written. `/proc/self/mem`
/// exists on Linux and fails to read even as root (at offset 0), which the unreadable case needs.
pub(crate) const LINK_TARGETS_OUTSIDE_THE_CASE: &[&str] = &["/proc/self/mem"];

/// More links than this in one resolution is refused (the kernel's own limit is 40).
const MAX_LINK_HOPS: u32 = 40;

/// Why a case may not be applied: it would reach outside its sandbox. Paths are as in the case.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("`{path}` is a symlink committed in the fixture tree")]
    CommittedSymlink { path: String },
    #[error("`{path}` is neither a file nor a directory")]
    SpecialFile { path: String },
    #[error("`{path}` goes through the symlink `{link}`")]
    ThroughSymlink { path: String, link: String },
    #[error("link `{link}` -> `{target}` resolves outside the case")]
    TargetOutside { link: String, target: String },
    #[error("`{path}` resolves through more than {MAX_LINK_HOPS} links")]
    TooManyLinks { path: String },
    #[error("unreadable `{path}` is neither a regular file nor an allowed /proc entry")]
    UnreadableKind { path: String },
}

impl Refusal {
    /// The fix, for the one-line message.
    pub fn hint(&self) -> String {
        match self {
            Refusal::CommittedSymlink { .. } | Refusal::SpecialFile { .. } => {
                "commit only files and directories; declare symlinks in the case's `links`".into()
            }
            Refusal::ThroughSymlink { .. } => {
                "`renames` and `links` paths must not pass through a link; make the parent a directory"
                    .into()
            }
            Refusal::TargetOutside { .. } | Refusal::TooManyLinks { .. } => format!(
                "a link target must stay inside the case directory; outside it only {} is allowed",
                LINK_TARGETS_OUTSIDE_THE_CASE.join(", ")
            ),
            Refusal::UnreadableKind { .. } => {
                "link the path to a file of the case or to /proc/self/mem".into()
            }
        }
    }
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> SandboxError {
    let path = path.to_owned();
    move |cause| SandboxError::Io {
        action,
        path,
        cause,
    }
}

/// One case's temporary copy.
#[derive(Debug)]
pub struct Sandbox {
    /// `None` once kept: nothing deletes the directory then.
    dir: Option<TempDir>,
    /// Registered for removal on SIGINT/SIGTERM while not kept.
    _interrupt: Option<crate::interrupt::DirGuard>,
    path: PathBuf,
    roots: Vec<String>,
    vacuous: Option<String>,
}

impl Sandbox {
    /// Builds the sandbox for `case` (see the module doc for the steps) in the first usable
    /// of [`sandbox_bases`], its entries created in sorted order.
    pub fn prepare(case: &CaseSpec, keep: bool) -> Result<Sandbox, SandboxError> {
        Sandbox::prepare_in(case, keep, &Placement::default())
    }

    /// Builds the sandbox for `case` where and in the entry order `placement` says.
    pub fn prepare_in(
        case: &CaseSpec,
        keep: bool,
        placement: &Placement,
    ) -> Result<Sandbox, SandboxError> {
        let (dir, path) = plain_tempdir_in(PREFIX, &placement.bases)?;
        let registration = crate::interrupt::register_dir(&path);
        let mut vacuous = None;
        copy_dir(&case.dir, &path, Path::new(""), &mut vacuous).map_err(|e| e.in_case(case))?;
        apply_renames(case, &path)?;
        apply_links(case, &path)?;
        check_link_targets(case, &path)?;
        if let Some((seed, pass)) = placement.shuffle {
            let mut rng = entry_rng(seed, pass, &case.id);
            readd_shuffled(&path, &mut rng).map_err(io_error("reordering", &path))?;
        }

        let base = path
            .to_str()
            .expect("a plain temporary path is ASCII")
            .to_owned();
        let roots = case
            .roots
            .iter()
            .map(|entry| format!("{base}/{entry}"))
            .collect();

        if vacuous.is_none() {
            vacuous = check_unreadable(case, &path)?;
        }

        let (dir, registration) = if keep {
            let _kept = dir.keep();
            (None, None)
        } else {
            (Some(dir), Some(registration))
        };
        Ok(Sandbox {
            dir,
            _interrupt: registration,
            path,
            roots,
            vacuous,
        })
    }

    /// The canonical absolute path of the sandbox directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The absolute roots, in the case's order.
    pub fn roots(&self) -> &[String] {
        &self.roots
    }

    /// Why the case's precondition does not hold on this filesystem, if it does not.
    pub fn vacuous(&self) -> Option<&str> {
        self.vacuous.as_deref()
    }

    /// Whether the directory is kept after this value is dropped.
    pub fn is_kept(&self) -> bool {
        self.dir.is_none()
    }
}

/// Where one pass of a run makes its sandboxes, and in what order it creates each directory's
/// entries. A filesystem lists a directory in its own order: ext4 by a hash of the names,
/// tmpfs by creation. A port that lists entries as the filesystem returns them and never sorts
/// gives output that follows that order; `run --repeat N` builds the passes after the first
/// with their entries added in a seeded shuffled order, and alternates memory and disk where
/// both are usable ([`placements`]), so such a port shows up `nondeterministic`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The bases tried, best first.
    pub bases: Vec<PathBuf>,
    /// `None`: entries created in sorted order; `Some((seed, pass))`: every entry added again
    /// in an order shuffled by ChaCha8 seeded from the run's seed, the pass and the case id (so
    /// rerunning one case with the same `--seed` builds the same sandbox).
    pub shuffle: Option<(u64, u32)>,
}

impl Default for Placement {
    fn default() -> Placement {
        Placement {
            bases: sandbox_bases(),
            shuffle: None,
        }
    }
}

impl Placement {
    /// The base tried first, for reports.
    pub fn base(&self) -> &Path {
        self.bases
            .first()
            .map_or(Path::new("/tmp"), PathBuf::as_path)
    }
}

/// The placement of each of `passes` passes: pass 1 as a single run places it
/// ([`Placement::default`]); every later pass with its entries added in shuffled order and,
/// when `TMPDIR` is not set and both `/dev/shm` and `/tmp` are usable directories on different
/// filesystems, on the other one of the two in turn (`/dev/shm`, `/tmp`, `/dev/shm`, …). A `TMPDIR` the
/// user set is the one base of every pass: it was chosen on purpose.
pub(crate) fn placements(passes: u32, seed: u64) -> Vec<Placement> {
    let tmpdir = std::env::var_os("TMPDIR").filter(|dir| !dir.is_empty());
    let alternatives = match tmpdir {
        Some(_) => vec![bases_for(tmpdir)],
        None => alternating_bases(&[PathBuf::from("/dev/shm"), PathBuf::from("/tmp")]),
    };
    (0..passes.max(1))
        .map(|pass| Placement {
            bases: alternatives[pass as usize % alternatives.len()].clone(),
            shuffle: (pass > 0).then_some((seed, pass)),
        })
        .collect()
}

/// One list of bases per usable candidate on its own filesystem, that candidate first and the
/// others after it as fallbacks; the candidates as they are when fewer than two qualify.
fn alternating_bases(candidates: &[PathBuf]) -> Vec<Vec<PathBuf>> {
    use std::os::unix::fs::MetadataExt;
    let mut devices = Vec::new();
    let usable: Vec<&PathBuf> = candidates
        .iter()
        .filter(|base| {
            let Ok(meta) = std::fs::metadata(base) else {
                return false;
            };
            let writable = std::ffi::CString::new(base.as_os_str().as_encoded_bytes())
                .is_ok_and(|c| unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0);
            let new_device = !devices.contains(&meta.dev());
            devices.push(meta.dev());
            meta.is_dir() && writable && new_device
        })
        .collect();
    if usable.len() < 2 {
        return vec![candidates.to_vec()];
    }
    usable
        .iter()
        .map(|first| {
            let rest = candidates.iter().filter(|other| other != first).cloned();
            std::iter::once((*first).clone()).chain(rest).collect()
        })
        .collect()
}

/// The entry-order generator of one sandbox: ChaCha8 seeded with SHA-256 of the run's seed,
/// the pass and the case id.
fn entry_rng(seed: u64, pass: u32, case: &CaseId) -> chacha20::ChaCha8Rng {
    use rand::SeedableRng;
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(seed.to_le_bytes());
    hash.update(pass.to_le_bytes());
    hash.update(case.to_string().as_bytes());
    chacha20::ChaCha8Rng::from_seed(hash.finalize().into())
}

/// Adds every entry of every directory below `dir` (links and renamed entries too) back to
/// its directory in an order drawn from `rng`: each is renamed to a temporary name and back,
/// which makes it the directory's newest entry. A filesystem that lists by creation (tmpfs)
/// then lists the entries in that order; one that lists by a hash of the names (ext4) is
/// unchanged. Symlinks are moved, never followed.
fn readd_shuffled(dir: &Path, rng: &mut chacha20::ChaCha8Rng) -> io::Result<()> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        names.push(entry?.file_name());
    }
    names.sort();
    rand::seq::SliceRandom::shuffle(names.as_mut_slice(), rng);
    let parked = dir.join(".skill-conform-reordering");
    for name in &names {
        let path = dir.join(name);
        if std::fs::symlink_metadata(&parked).is_ok() {
            break; // the fixture holds the temporary name: leave the order as it is
        }
        std::fs::rename(&path, &parked)?;
        std::fs::rename(&parked, &path)?;
    }
    for name in &names {
        let path = dir.join(name);
        if std::fs::symlink_metadata(&path)?.is_dir() {
            readd_shuffled(&path, rng)?;
        }
    }
    Ok(())
}

/// Where sandboxes are made, best first: `$TMPDIR` when it is set (the user's choice), else
/// `/dev/shm`; then `/tmp`. A suite run makes and deletes about a thousand small files and
/// directories per port; in memory that costs ~10 µs each, while on a disk it can cost a
/// millisecond (measured on the ext4 `/tmp` BENCHMARKS.md describes), enough to make the adapter
/// wait for its sandboxes. A base that does not exist or is not writable is skipped.
pub(crate) fn sandbox_bases() -> Vec<PathBuf> {
    bases_for(std::env::var_os("TMPDIR"))
}

/// [`sandbox_bases`] for a given value of `TMPDIR`.
fn bases_for(tmpdir: Option<OsString>) -> Vec<PathBuf> {
    let first = match tmpdir {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from("/dev/shm"),
    };
    let mut bases = vec![first];
    if bases[0] != Path::new("/tmp") {
        bases.push(PathBuf::from("/tmp"));
    }
    bases
}

/// A temporary directory for fixture copies (a case's sandbox, the smoke pair): like
/// [`plain_tempdir`], in [`sandbox_bases`].
pub(crate) fn sandbox_tempdir(prefix: &str) -> Result<(TempDir, PathBuf), SandboxError> {
    plain_tempdir_in(prefix, &sandbox_bases())
}

/// Creates a temporary directory named `PREFIX…` whose canonical path has only
/// `[A-Za-z0-9._/-]`, trying `std::env::temp_dir()` and then `/tmp`. Returns it with its
/// canonical path. Fit for a temporary `HOME` (which may fill up with a toolchain's files, so
/// it stays out of memory).
pub(crate) fn plain_tempdir(prefix: &str) -> Result<(TempDir, PathBuf), SandboxError> {
    let mut bases = vec![std::env::temp_dir()];
    if bases[0] != Path::new("/tmp") {
        bases.push(PathBuf::from("/tmp"));
    }
    plain_tempdir_in(prefix, &bases)
}

/// Like [`plain_tempdir`], trying `bases` in order.
fn plain_tempdir_in(prefix: &str, bases: &[PathBuf]) -> Result<(TempDir, PathBuf), SandboxError> {
    let mut tried = Vec::new();
    for base in bases {
        let dir = match tempfile::Builder::new().prefix(prefix).tempdir_in(base) {
            Ok(dir) => dir,
            Err(error) => {
                tried.push(format!("`{}`: {error}", base.display()));
                continue;
            }
        };
        match dir.path().canonicalize() {
            Ok(path) if path.to_str().is_some_and(is_plain_path) => return Ok((dir, path)),
            Ok(path) => tried.push(format!("`{}` is not plain", path.display())),
            Err(error) => tried.push(format!("`{}`: {error}", dir.path().display())),
        }
    }
    Err(SandboxError::NoPlainTempDir {
        tried: tried.join("; "),
    })
}

/// Whether `path` is absolute and has only `[A-Za-z0-9._/-]`.
pub fn is_plain_path(path: &str) -> bool {
    path.starts_with('/')
        && path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'/'))
}

/// The fixed environment an adapter runs with (sorted by name): `HOME`, `LANG`, `LC_ALL`,
/// `PATH` (inherited, if set) and `TZ`. The caller clears the rest and adds the port's cache
/// variables.
pub fn adapter_env(home: &Path) -> Vec<(String, OsString)> {
    let mut env = vec![
        ("HOME".to_owned(), home.as_os_str().to_owned()),
        ("LANG".to_owned(), OsString::from("C.UTF-8")),
        ("LC_ALL".to_owned(), OsString::from("C.UTF-8")),
    ];
    if let Some(path) = std::env::var_os("PATH") {
        env.push(("PATH".to_owned(), path));
    }
    env.push(("TZ".to_owned(), OsString::from("UTC")));
    env
}

/// Why copying a case failed: an I/O error, or an entry the sandbox refuses.
#[derive(Debug)]
enum CopyError {
    Io(SandboxError),
    Refused(Refusal),
}

impl From<SandboxError> for CopyError {
    fn from(error: SandboxError) -> Self {
        CopyError::Io(error)
    }
}

impl CopyError {
    fn in_case(self, case: &CaseSpec) -> SandboxError {
        match self {
            CopyError::Io(error) => error,
            CopyError::Refused(refusal) => refused(case, refusal),
        }
    }
}

/// Copies the directory `from` into the existing directory `to`; `rel` is `from` relative to the
/// case directory (empty at the top, where `case.toml` is left out). The first sign that the
/// filesystem merged or renamed an entry goes into `vacuous`.
fn copy_dir(
    from: &Path,
    to: &Path,
    rel: &Path,
    vacuous: &mut Option<String>,
) -> Result<(), CopyError> {
    let mut names = sorted_names(from)?;
    if rel.as_os_str().is_empty() {
        names.retain(|name| name != MANIFEST);
    }
    for name in &names {
        let source = from.join(name);
        let target = to.join(name);
        let rel_name = rel.join(name);
        let meta = std::fs::symlink_metadata(&source).map_err(io_error("reading", &source))?;
        if std::fs::symlink_metadata(&target).is_ok() {
            vacuous.get_or_insert_with(|| {
                format!(
                    "this filesystem merges `{}` with a name copied before it",
                    shown(rel_name.as_os_str())
                )
            });
            continue;
        }
        let kind = meta.file_type();
        if kind.is_symlink() {
            return Err(CopyError::Refused(Refusal::CommittedSymlink {
                path: shown(rel_name.as_os_str()),
            }));
        } else if kind.is_dir() {
            std::fs::create_dir(&target).map_err(io_error("creating", &target))?;
            copy_dir(&source, &target, &rel_name, vacuous)?;
        } else if kind.is_file() {
            std::fs::copy(&source, &target).map_err(io_error("copying", &source))?;
        } else {
            return Err(CopyError::Refused(Refusal::SpecialFile {
                path: shown(rel_name.as_os_str()),
            }));
        }
    }
    if vacuous.is_none() {
        let copied = sorted_names(to)?;
        if let Some(difference) = listing_difference(&names, &copied) {
            let dir = if rel.as_os_str().is_empty() {
                "the case directory".to_owned()
            } else {
                format!("`{}`", shown(rel.as_os_str()))
            };
            *vacuous = Some(format!(
                "this filesystem does not keep the names in {dir}: {difference}"
            ));
        }
    }
    Ok(())
}

fn sorted_names(dir: &Path) -> Result<Vec<OsString>, SandboxError> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_error("listing", dir))? {
        names.push(entry.map_err(io_error("listing", dir))?.file_name());
    }
    names.sort();
    Ok(names)
}

/// How a copied directory's (sorted) listing differs from its original's, if it does.
fn listing_difference(expected: &[OsString], actual: &[OsString]) -> Option<String> {
    if expected == actual {
        return None;
    }
    let missing: Vec<String> = expected
        .iter()
        .filter(|name| !actual.contains(name))
        .map(|name| format!("`{}`", shown(name)))
        .collect();
    let extra: Vec<String> = actual
        .iter()
        .filter(|name| !expected.contains(name))
        .map(|name| format!("`{}`", shown(name)))
        .collect();
    let mut parts = vec![format!(
        "expected {} entries, found {}",
        expected.len(),
        actual.len()
    )];
    if !missing.is_empty() {
        parts.push(format!("missing {}", missing.join(", ")));
    }
    if !extra.is_empty() {
        parts.push(format!("unexpected {}", extra.join(", ")));
    }
    Some(parts.join("; "))
}

/// A name for messages: printable ASCII as is, everything else as `\u{…}` (so NFC and NFD
/// spellings look different), bytes that are not UTF-8 as `\x..`.
fn shown(name: &OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for chunk in name.as_bytes().utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_ascii_graphic() || c == ' ' {
                out.push(c);
            } else {
                out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
            }
        }
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}

fn case_error(case: &CaseSpec, message: String, hint: &str) -> SandboxError {
    SandboxError::Case {
        case: case.id.clone(),
        message,
        hint: hint.to_owned(),
    }
}

fn refused(case: &CaseSpec, refusal: Refusal) -> SandboxError {
    SandboxError::Refused {
        case: case.id.clone(),
        refusal,
    }
}

/// The components of a case path (plain relative, `/`-separated, as `case.rs` checks).
fn components(rel: &str) -> Vec<&str> {
    rel.split('/').collect()
}

/// Checks that no parent of `rel` in the sandbox is a symlink, without following any; with
/// `create`, makes the missing parents as directories on the way.
fn check_parents(
    case: &CaseSpec,
    sandbox: &Path,
    rel: &str,
    create: bool,
) -> Result<(), SandboxError> {
    let parts = components(rel);
    let mut dir = sandbox.to_owned();
    for (depth, part) in parts[..parts.len() - 1].iter().enumerate() {
        dir.push(part);
        match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = parts[..=depth].join("/");
                let path = rel.to_owned();
                return Err(refused(case, Refusal::ThroughSymlink { path, link }));
            }
            Ok(_) => {}
            Err(error) if create && error.kind() == io::ErrorKind::NotFound => {
                std::fs::create_dir(&dir).map_err(io_error("creating", &dir))?;
            }
            Err(_) => return Ok(()), // nothing below a missing parent exists to follow
        }
    }
    Ok(())
}

/// The case's renames, deepest first, so `a/dot-git/b/dot-git` is renamed before `a/dot-git`
/// moves.
fn renames_deepest_first(case: &CaseSpec) -> Vec<(&String, &String)> {
    let mut renames: Vec<(&String, &String)> = case.renames.iter().collect();
    renames.sort_by(|(a, _), (b, _)| {
        b.matches('/')
            .count()
            .cmp(&a.matches('/').count())
            .then(a.cmp(b))
    });
    renames
}

/// A `renames` or `links` entry the case's own tree does not allow (one wording for the sandbox
/// and [`Sandbox::check`]).
enum Unapplicable<'a> {
    RenameSourceMissing { from: &'a str },
    RenameTargetExists { from: &'a str, new_name: &'a str },
    LinkPathExists { link: &'a str },
}

impl Unapplicable<'_> {
    fn in_case(self, case: &CaseSpec) -> SandboxError {
        match self {
            Unapplicable::RenameSourceMissing { from } => case_error(
                case,
                format!("rename source `{from}` does not exist"),
                "`renames` names paths as committed, relative to the case directory",
            ),
            Unapplicable::RenameTargetExists { from, new_name } => case_error(
                case,
                format!("renaming `{from}` to `{new_name}`: the target already exists"),
                "remove the existing entry from the fixture, or rename to another name",
            ),
            Unapplicable::LinkPathExists { link } => case_error(
                case,
                format!("link path `{link}` already exists"),
                "`links` creates new entries; remove the committed one or pick another path",
            ),
        }
    }
}

fn apply_renames(case: &CaseSpec, sandbox: &Path) -> Result<(), SandboxError> {
    for (from, new_name) in renames_deepest_first(case) {
        check_parents(case, sandbox, from, false)?;
        let source = sandbox.join(from);
        if std::fs::symlink_metadata(&source).is_err() {
            return Err(Unapplicable::RenameSourceMissing { from }.in_case(case));
        }
        let target = source.with_file_name(new_name);
        if std::fs::symlink_metadata(&target).is_ok() {
            return Err(Unapplicable::RenameTargetExists { from, new_name }.in_case(case));
        }
        std::fs::rename(&source, &target).map_err(io_error("renaming", &source))?;
    }
    Ok(())
}

fn apply_links(case: &CaseSpec, sandbox: &Path) -> Result<(), SandboxError> {
    for (link, target) in &case.links {
        check_parents(case, sandbox, link, true)?;
        let path = sandbox.join(link);
        if std::fs::symlink_metadata(&path).is_ok() {
            return Err(Unapplicable::LinkPathExists { link }.in_case(case));
        }
        std::os::unix::fs::symlink(target, &path).map_err(io_error("creating", &path))?;
    }
    Ok(())
}

/// Checks, once every link exists (a later link can redirect an earlier one), that each link
/// resolves inside the sandbox or is an allowed target outside the case.
fn check_link_targets(case: &CaseSpec, sandbox: &Path) -> Result<(), SandboxError> {
    for (link, target) in &case.links {
        let mut parts = components(link);
        parts.pop();
        let dir: Vec<OsString> = parts.into_iter().map(OsString::from).collect();
        let resolved = resolve(sandbox, dir, Path::new(target), &mut 0);
        link_target_refusal(case, link, target, resolved)?;
    }
    Ok(())
}

/// The refusal of a link whose target resolved as `resolved`, if it escapes.
fn link_target_refusal(
    case: &CaseSpec,
    link: &str,
    target: &str,
    resolved: Result<Resolved, Escape>,
) -> Result<(), SandboxError> {
    let (link, target) = (link.to_owned(), target.to_owned());
    match resolved {
        Ok(_) => Ok(()),
        Err(Escape::Outside) => Err(refused(case, Refusal::TargetOutside { link, target })),
        Err(Escape::TooManyLinks) => Err(refused(case, Refusal::TooManyLinks { path: link })),
    }
}

/// Where a path in the sandbox leads.
#[derive(Debug, PartialEq, Eq)]
enum Resolved {
    /// Components below the sandbox, every symlink among them followed (the last may not exist).
    Inside(Vec<OsString>),
    /// One of [`LINK_TARGETS_OUTSIDE_THE_CASE`].
    Allowed(&'static str),
}

/// Why a path does not resolve inside the sandbox.
#[derive(Debug, PartialEq, Eq)]
enum Escape {
    Outside,
    TooManyLinks,
}

/// Resolves `path` from the sandbox directory `dir` (components below `sandbox`) the way the
/// kernel would, following the symlinks it meets by reading them (never through the
/// filesystem), and says whether it stays inside. Below a missing entry, the rest is taken as
/// written (the kernel would fail there).
fn resolve(
    sandbox: &Path,
    dir: Vec<OsString>,
    path: &Path,
    hops: &mut u32,
) -> Result<Resolved, Escape> {
    let read_link = |parts: &[OsString]| std::fs::read_link(below(sandbox, parts)).ok();
    resolve_by(&read_link, dir, path, hops)
}

/// [`resolve`] with the links read by `read_link` (components below the sandbox to the link's
/// target text, `None` for anything that is not a link): the real sandbox, or
/// [`Sandbox::check`]'s tree.
fn resolve_by(
    read_link: &dyn Fn(&[OsString]) -> Option<PathBuf>,
    dir: Vec<OsString>,
    path: &Path,
    hops: &mut u32,
) -> Result<Resolved, Escape> {
    use std::path::Component;
    if path.is_absolute() {
        return LINK_TARGETS_OUTSIDE_THE_CASE
            .iter()
            .find(|allowed| Path::new(allowed) == path)
            .map(|allowed| Resolved::Allowed(allowed))
            .ok_or(Escape::Outside);
    }
    let mut current = dir;
    let mut rest = path.components().peekable();
    while let Some(component) = rest.next() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                current.pop().ok_or(Escape::Outside)?;
            }
            Component::Normal(name) => {
                current.push(name.to_owned());
                let Some(text) = read_link(&current) else {
                    continue;
                };
                current.pop();
                *hops += 1;
                if *hops > MAX_LINK_HOPS {
                    return Err(Escape::TooManyLinks);
                }
                match resolve_by(read_link, current.clone(), &text, hops)? {
                    Resolved::Inside(parts) => current = parts,
                    allowed if rest.peek().is_none() => return Ok(allowed),
                    Resolved::Allowed(_) => return Err(Escape::Outside),
                }
            }
            Component::RootDir | Component::Prefix(_) => return Err(Escape::Outside),
        }
    }
    Ok(Resolved::Inside(current))
}

/// The path of `parts` below `sandbox`.
fn below(sandbox: &Path, parts: &[OsString]) -> PathBuf {
    parts
        .iter()
        .fold(sandbox.to_owned(), |path, part| path.join(part))
}

/// Why an `unreadable` precondition does not hold, if one does not; a refusal if a path leads
/// to something that is not a regular file of the sandbox or an allowed `/proc` entry.
fn check_unreadable(case: &CaseSpec, sandbox: &Path) -> Result<Option<String>, SandboxError> {
    for rel in &case.unreadable {
        let kind_refused = || {
            let path = rel.clone();
            refused(case, Refusal::UnreadableKind { path })
        };
        let path = match resolve(sandbox, Vec::new(), Path::new(rel), &mut 0) {
            Ok(Resolved::Allowed(outside)) => PathBuf::from(outside),
            Ok(Resolved::Inside(parts)) => below(sandbox, &parts),
            Err(_) => return Err(kind_refused()),
        };
        match read_one_byte(&path) {
            OneByte::Missing => {
                return Ok(Some(format!(
                    "`{rel}` should exist and fail to read, but it does not exist on this system"
                )))
            }
            OneByte::Read => {
                return Ok(Some(format!(
                    "`{rel}` should fail to read, but it reads on this system (running as root?)"
                )))
            }
            OneByte::NotRegular => return Err(kind_refused()),
            OneByte::Failed => {}
        }
    }
    Ok(None)
}

/// What reading the first byte of a file gave.
#[derive(Debug, PartialEq, Eq)]
enum OneByte {
    Missing,
    NotRegular,
    Read,
    Failed,
}

/// Opens `path` without blocking and without following a final symlink, and reads at most one
/// byte — only if it is a regular file (a `/proc` entry such as `mem` is one).
fn read_one_byte(path: &Path) -> OneByte {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY)
        .open(path);
    let mut file = match opened {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return OneByte::Missing,
        Err(_) => return OneByte::Failed,
    };
    if !file.metadata().is_ok_and(|meta| meta.is_file()) {
        return OneByte::NotRegular;
    }
    match file.read(&mut [0u8; 1]) {
        // Zero bytes (an empty file) or one: either way, reading worked.
        Ok(0 | 1) => OneByte::Read,
        Ok(_) | Err(_) => OneByte::Failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sandboxes_go_to_tmpdir_when_set_else_to_memory_then_tmp() {
        let paths = |list: &[&str]| list.iter().map(PathBuf::from).collect::<Vec<_>>();
        assert_eq!(bases_for(None), paths(&["/dev/shm", "/tmp"]));
        assert_eq!(bases_for(Some("".into())), paths(&["/dev/shm", "/tmp"]));
        assert_eq!(
            bases_for(Some("/scratch".into())),
            paths(&["/scratch", "/tmp"])
        );
        assert_eq!(bases_for(Some("/tmp".into())), paths(&["/tmp"]));
    }

    #[test]
    fn passes_alternate_only_between_usable_bases_on_different_filesystems() {
        let paths = |list: &[&str]| list.iter().map(PathBuf::from).collect::<Vec<_>>();
        let one = crate::test_tempdir::tempdir();
        let other = one.path().join("same-filesystem");
        std::fs::create_dir(&other).unwrap();
        let same = [one.path().to_owned(), other];
        assert_eq!(alternating_bases(&same), vec![same.to_vec()]);
        let missing = paths(&["/nonexistent/a", "/tmp"]);
        assert_eq!(alternating_bases(&missing), vec![missing.clone()]);
        if Path::new("/dev/shm").is_dir() {
            let both = paths(&["/dev/shm", "/tmp"]);
            assert_eq!(
                alternating_bases(&both),
                vec![both.clone(), paths(&["/tmp", "/dev/shm"])]
            );
        }
    }

    #[test]
    fn a_base_that_cannot_hold_a_directory_is_skipped() {
        let (_dir, path) = plain_tempdir_in(
            "skill-conform-test-",
            &[PathBuf::from("/nonexistent/base"), std::env::temp_dir()],
        )
        .unwrap();
        assert!(path.starts_with(std::env::temp_dir().canonicalize().unwrap()));
        let error = plain_tempdir_in("x-", &[PathBuf::from("/nonexistent/base")]).unwrap_err();
        assert!(error.to_string().contains("/nonexistent/base"), "{error}");
    }

    fn names(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn same_listing_is_no_difference() {
        assert_eq!(
            listing_difference(&names(&["B", "b"]), &names(&["B", "b"])),
            None
        );
    }

    #[test]
    fn case_insensitive_merge_is_reported() {
        assert_eq!(
            listing_difference(&names(&["B", "b"]), &names(&["B"])).unwrap(),
            "expected 2 entries, found 1; missing `b`"
        );
    }

    #[test]
    fn normalising_rename_is_reported_visibly() {
        assert_eq!(
            listing_difference(&names(&["caf\u{e9}"]), &names(&["cafe\u{301}"])).unwrap(),
            "expected 1 entries, found 1; missing `caf\\u{e9}`; unexpected `cafe\\u{301}`"
        );
    }

    #[test]
    fn plain_paths() {
        assert!(is_plain_path("/tmp/skill-conform-Ab9.x_y/skills"));
        assert!(!is_plain_path("tmp/x"));
        assert!(!is_plain_path("/tmp/with space"));
        assert!(!is_plain_path("/tmp/é"));
    }

    #[test]
    fn adapter_env_is_fixed_and_sorted() {
        let env = adapter_env(Path::new("/tmp/home"));
        let keys: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        assert!(env.contains(&("TZ".into(), "UTC".into())));
        assert!(env.contains(&("LANG".into(), "C.UTF-8".into())));
        assert!(env.contains(&("LC_ALL".into(), "C.UTF-8".into())));
        assert!(env.contains(&("HOME".into(), "/tmp/home".into())));
    }

    #[test]
    fn one_byte_reads_refuse_fifos_and_devices_without_blocking() {
        let dir = crate::test_tempdir::tempdir();
        let fifo = dir.path().join("fifo");
        let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        assert_eq!(read_one_byte(&fifo), OneByte::NotRegular);
        assert_eq!(read_one_byte(Path::new("/dev/zero")), OneByte::NotRegular);
        assert_eq!(read_one_byte(&dir.path().join("none")), OneByte::Missing);
        std::fs::write(dir.path().join("f"), "x").unwrap();
        assert_eq!(read_one_byte(&dir.path().join("f")), OneByte::Read);
        assert_eq!(read_one_byte(Path::new("/proc/self/mem")), OneByte::Failed);
    }

    #[test]
    fn resolution_follows_links_inside_and_stops_at_the_top() {
        let dir = crate::test_tempdir::tempdir();
        let root = dir.path();
        std::fs::create_dir_all(root.join("s/a")).unwrap();
        std::os::unix::fs::symlink("..", root.join("s/a/up")).unwrap();
        std::os::unix::fs::symlink("/proc/self/mem", root.join("s/mem")).unwrap();
        let parts = |list: &[&str]| list.iter().map(OsString::from).collect::<Vec<_>>();
        let resolved = |path: &str| resolve(root, Vec::new(), Path::new(path), &mut 0);
        assert_eq!(
            resolved("s/a/up/x"),
            Ok(Resolved::Inside(parts(&["s", "x"])))
        );
        assert_eq!(resolved("s/a/up/../.."), Err(Escape::Outside));
        assert_eq!(resolved("s/mem"), Ok(Resolved::Allowed("/proc/self/mem")));
        assert_eq!(resolved("s/mem/x"), Err(Escape::Outside));
        assert_eq!(
            resolved("/proc/self/mem"),
            Ok(Resolved::Allowed("/proc/self/mem"))
        );
        assert_eq!(resolved("/etc/passwd"), Err(Escape::Outside));
        assert_eq!(
            resolved("missing/../s"),
            Ok(Resolved::Inside(parts(&["s"])))
        );
    }
}
