//! Hostile fixtures try to reach outside their sandbox through `links`, `renames`, committed
//! symlinks and `unreadable`; each is refused, and nothing outside the temporary directories
//! changes (a canary directory is compared before and after).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use skill_conform::case::{CaseId, CaseSpec};
use skill_conform::sandbox::{Refusal, Sandbox, SandboxError};

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A case directory with `extra` appended to a minimal `case.toml`.
fn case(dir: &Path, extra: &str) -> CaseSpec {
    let text = format!("summary = \"s\"\npinned = true\nrules = [\"§2\"]\n{extra}");
    write(&dir.join("case.toml"), &text);
    CaseSpec::parse(CaseId::new("g", "c").unwrap(), dir.to_owned(), &text).unwrap()
}

/// A directory outside every sandbox, holding a canary file, that no attack may change.
struct Outside {
    dir: tempfile::TempDir,
    before: Vec<(PathBuf, Vec<u8>)>,
}

impl Outside {
    fn new() -> Outside {
        let dir = crate::common::tempdir();
        write(&dir.path().join("canary.txt"), "canary");
        write(&dir.path().join("sub/inner.txt"), "inner");
        let before = listing(dir.path());
        Outside { dir, before }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn text(&self) -> String {
        self.path().to_str().unwrap().to_owned()
    }

    fn assert_unchanged(&self) {
        assert_eq!(
            listing(self.path()),
            self.before,
            "the outside directory changed"
        );
    }
}

/// Every entry below `dir`, sorted, with the bytes of files (symlinks and others: empty).
fn listing(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut entries: Vec<(PathBuf, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .map(|entry| {
            let entry = entry.unwrap();
            let bytes = if entry.file_type().is_file() {
                fs::read(entry.path()).unwrap()
            } else {
                Vec::new()
            };
            (entry.path().strip_prefix(dir).unwrap().to_owned(), bytes)
        })
        .collect();
    entries.sort();
    entries
}

/// `Sandbox::prepare`, failing the test (instead of hanging it) if it does not return.
fn prepare_or_hang(spec: CaseSpec) -> Result<Sandbox, SandboxError> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || send.send(Sandbox::prepare(&spec, false)));
    receive
        .recv_timeout(Duration::from_secs(60))
        .expect("Sandbox::prepare hung")
}

fn refusal(result: Result<Sandbox, SandboxError>) -> Refusal {
    match result {
        Err(SandboxError::Refused { refusal, .. }) => refusal,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn a_link_built_through_a_fresh_link_is_refused() {
    let outside = Outside::new();
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("skills/a/SKILL.md"), "");
    let extra = format!(
        "links = {{ \"skills/out\" = \"{}\", \"skills/out/planted/x\" = \"y\" }}\n",
        outside.text()
    );
    let result = prepare_or_hang(case(&dir, &extra));
    outside.assert_unchanged();
    assert_eq!(
        refusal(result),
        Refusal::ThroughSymlink {
            path: "skills/out/planted/x".into(),
            link: "skills/out".into()
        }
    );
}

fn a_rename_through_a_committed_symlink_is_refused() {
    let outside = Outside::new();
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("skills/a/SKILL.md"), "");
    std::os::unix::fs::symlink(outside.path(), dir.join("skills/evil")).unwrap();
    let spec = case(
        &dir,
        "renames = { \"skills/evil/canary.txt\" = \"moved\" }\n",
    );
    let result = prepare_or_hang(spec);
    outside.assert_unchanged();
    assert_eq!(
        refusal(result),
        Refusal::CommittedSymlink {
            path: "skills/evil".into()
        }
    );
}

fn a_link_to_a_fifo_is_refused_without_blocking() {
    let outside = Outside::new();
    let fifo = outside.path().join("fifo");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    let outside = Outside {
        before: listing(outside.path()),
        ..outside
    };
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    let extra = format!(
        "links = {{ \"skills/m/SKILL.md\" = \"{}\" }}\nunreadable = [\"skills/m/SKILL.md\"]\n",
        fifo.display()
    );
    let result = prepare_or_hang(case(&dir, &extra));
    outside.assert_unchanged();
    assert_eq!(
        refusal(result),
        Refusal::TargetOutside {
            link: "skills/m/SKILL.md".into(),
            target: fifo.display().to_string()
        }
    );
}

#[cfg(target_os = "linux")]
fn a_link_to_dev_zero_is_refused() {
    let outside = Outside::new();
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    let extra =
        "links = { \"skills/z/SKILL.md\" = \"/dev/zero\" }\nunreadable = [\"skills/z/SKILL.md\"]\n";
    let result = prepare_or_hang(case(&dir, extra));
    outside.assert_unchanged();
    assert_eq!(
        refusal(result),
        Refusal::TargetOutside {
            link: "skills/z/SKILL.md".into(),
            target: "/dev/zero".into()
        }
    );
}

fn a_relative_link_climbing_out_is_refused() {
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("skills/a/SKILL.md"), "");
    let spec = case(&dir, "links = { \"skills/a/up\" = \"../../..\" }\n");
    assert!(matches!(
        refusal(Sandbox::prepare(&spec, false)),
        Refusal::TargetOutside { .. }
    ));
}

fn a_later_link_cannot_redirect_an_earlier_one_out() {
    // Alone, `skills/a` -> `b/../../x` stays inside; once `skills/b` -> `..` exists, it climbs out.
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("skills/c/SKILL.md"), "");
    let spec = case(
        &dir,
        "links = { \"skills/a\" = \"b/../../x\", \"skills/b\" = \"..\" }\n",
    );
    assert_eq!(
        refusal(Sandbox::prepare(&spec, false)),
        Refusal::TargetOutside {
            link: "skills/a".into(),
            target: "b/../../x".into()
        }
    );
}

fn a_link_through_an_allowed_target_is_refused() {
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    let spec = case(
        &dir,
        "links = { \"skills/mem\" = \"/proc/self/mem\", \"skills/deeper\" = \"mem/x\" }\n",
    );
    assert!(matches!(
        refusal(Sandbox::prepare(&spec, false)),
        Refusal::TargetOutside { link, .. } if link == "skills/deeper"
    ));
}

fn a_link_loop_is_refused() {
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    let spec = case(
        &dir,
        "links = { \"skills/a\" = \"b\", \"skills/b\" = \"a\" }\n",
    );
    assert!(matches!(
        refusal(Sandbox::prepare(&spec, false)),
        Refusal::TooManyLinks { .. }
    ));
}

fn a_committed_fifo_is_refused() {
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    fs::create_dir_all(dir.join("skills")).unwrap();
    let fifo = std::ffi::CString::new(dir.join("skills/f").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let spec = case(&dir, "");
    let error = prepare_or_hang(spec).unwrap_err();
    assert_eq!(
        error.to_string(),
        "error preparing case `g/c`: `skills/f` is neither a file nor a directory \
         (hint: commit only files and directories; declare symlinks in the case's `links`)"
    );
}

fn an_unreadable_directory_is_refused() {
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("skills/d/SKILL.md"), "");
    let spec = case(&dir, "unreadable = [\"skills/d\"]\n");
    assert_eq!(
        refusal(Sandbox::prepare(&spec, false)),
        Refusal::UnreadableKind {
            path: "skills/d".into()
        }
    );
}

crate::tests![
    a_link_built_through_a_fresh_link_is_refused,
    a_rename_through_a_committed_symlink_is_refused,
    a_link_to_a_fifo_is_refused_without_blocking,
    #[cfg(target_os = "linux")]
    a_link_to_dev_zero_is_refused,
    a_relative_link_climbing_out_is_refused,
    a_later_link_cannot_redirect_an_earlier_one_out,
    a_link_through_an_allowed_target_is_refused,
    a_link_loop_is_refused,
    a_committed_fifo_is_refused,
    an_unreadable_directory_is_refused,
];
