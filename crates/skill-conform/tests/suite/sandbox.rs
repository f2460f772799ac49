//! `Sandbox::prepare` on temporary fixture trees.

use std::fs;
use std::path::{Path, PathBuf};

use skill_conform::case::{CaseId, CaseSpec};
use skill_conform::sandbox::{is_plain_path, Sandbox, SandboxError};

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A case directory with `extra` appended to a minimal `case.toml`.
fn case(dir: &Path, extra: &str) -> CaseSpec {
    let text = format!("summary = \"s\"\npinned = true\nrules = [\"TN-DISC-4\"]\n{extra}");
    write(&dir.join("case.toml"), &text);
    CaseSpec::parse(CaseId::new("g", "c").unwrap(), dir.to_owned(), &text).unwrap()
}

fn copies_bytes_exactly_and_leaves_out_the_manifest() {
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    let bytes: &[u8] = b"\xEF\xBB\xBF---\r\nname: a\r\n---\r\nbody\t\xFF\n";
    fs::create_dir_all(dir.join("skills/a")).unwrap();
    fs::write(dir.join("skills/a/SKILL.md"), bytes).unwrap();
    write(&dir.join("skills/a/node_modules/x/SKILL.md"), "x");
    let spec = case(&dir, "");

    let sandbox = Sandbox::prepare(&spec, false).unwrap();
    let root = sandbox.path();
    assert!(is_plain_path(root.to_str().unwrap()), "{}", root.display());
    assert_eq!(root, root.canonicalize().unwrap());
    assert!(root
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with("skill-conform-"));
    assert_eq!(fs::read(root.join("skills/a/SKILL.md")).unwrap(), bytes);
    assert!(root.join("skills/a/node_modules/x/SKILL.md").is_file());
    assert!(!root.join("case.toml").exists());
    assert_eq!(sandbox.roots(), [format!("{}/skills", root.display())]);
    assert_eq!(sandbox.vacuous(), None);
    assert!(!sandbox.is_kept());

    let path = root.to_owned();
    drop(sandbox);
    assert!(!path.exists(), "the sandbox is deleted on drop");
}

fn renames_then_links() {
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("skills/x/dot-git/SKILL.md"), "hidden");
    write(&dir.join("skills/x/dot-git/inner/dot-git/f"), "nested");
    write(&dir.join("skills/real/SKILL.md"), "real");
    let spec = case(
        &dir,
        "renames = { \"skills/x/dot-git\" = \".git\", \"skills/x/dot-git/inner/dot-git\" = \".git\" }\n\
         links = { \"skills/alias\" = \"real\", \"skills/deep/new/loop\" = \"../..\" }\n",
    );
    let sandbox = Sandbox::prepare(&spec, false).unwrap();
    let root = sandbox.path();

    assert!(!root.join("skills/x/dot-git").exists());
    assert_eq!(
        fs::read_to_string(root.join("skills/x/.git/SKILL.md")).unwrap(),
        "hidden"
    );
    assert_eq!(
        fs::read_to_string(root.join("skills/x/.git/inner/.git/f")).unwrap(),
        "nested"
    );

    let alias = root.join("skills/alias");
    assert!(fs::symlink_metadata(&alias)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read_link(&alias).unwrap(), PathBuf::from("real"));
    assert_eq!(fs::read_to_string(alias.join("SKILL.md")).unwrap(), "real");
    assert_eq!(
        fs::read_link(root.join("skills/deep/new/loop")).unwrap(),
        PathBuf::from("../..")
    );
    assert_eq!(sandbox.vacuous(), None);
}

fn committed_symlinks_are_refused() {
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("skills/real/SKILL.md"), "real");
    std::os::unix::fs::symlink("real", dir.join("skills/alias")).unwrap();
    let error = Sandbox::prepare(&case(&dir, ""), false).unwrap_err();
    assert_eq!(
        error.to_string(),
        "error preparing case `g/c`: `skills/alias` is a symlink committed in the fixture tree \
         (hint: commit only files and directories; declare symlinks in the case's `links`)"
    );
}

fn missing_roots_are_handed_out_in_order() {
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("b/SKILL.md"), "");
    let spec = case(&dir, "roots = [\"b\", \"nope/deeper\", \"b\"]\n");
    let sandbox = Sandbox::prepare(&spec, false).unwrap();
    let base = sandbox.path().display().to_string();
    assert_eq!(
        sandbox.roots(),
        [
            format!("{base}/b"),
            format!("{base}/nope/deeper"),
            format!("{base}/b")
        ]
    );
    assert!(!Path::new(&sandbox.roots()[1]).exists());
}

fn roots_are_not_resolved_through_links() {
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("real/a/SKILL.md"), "");
    let spec = case(&dir, "roots = [\"via\"]\nlinks = { via = \"real\" }\n");
    let sandbox = Sandbox::prepare(&spec, false).unwrap();
    assert_eq!(
        sandbox.roots(),
        [format!("{}/via", sandbox.path().display())]
    );
}

fn readable_unreadable_path_makes_the_sandbox_vacuous() {
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("skills/mem/SKILL.md"), "---\nname: mem\n---\n");
    let spec = case(&dir, "unreadable = [\"skills/mem/SKILL.md\"]\n");
    let sandbox = Sandbox::prepare(&spec, false).unwrap();
    let reason = sandbox.vacuous().expect("a readable file is vacuous");
    assert!(
        reason.contains("`skills/mem/SKILL.md` should fail to read"),
        "{reason}"
    );
}

fn missing_unreadable_path_makes_the_sandbox_vacuous() {
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("skills/a/SKILL.md"), "");
    let spec = case(
        &dir,
        "unreadable = [\"skills/gone/SKILL.md\"]\nlinks = { \"skills/gone/SKILL.md\" = \"nowhere\" }\n",
    );
    let sandbox = Sandbox::prepare(&spec, false).unwrap();
    assert!(sandbox.vacuous().unwrap().contains("does not exist"));
}

#[cfg(target_os = "linux")]
fn link_to_proc_self_mem_is_unreadable() {
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("skills/a/SKILL.md"), "");
    let spec = case(
        &dir,
        "unreadable = [\"skills/mem/SKILL.md\"]\nlinks = { \"skills/mem/SKILL.md\" = \"/proc/self/mem\" }\n",
    );
    let sandbox = Sandbox::prepare(&spec, false).unwrap();
    assert_eq!(sandbox.vacuous(), None);
}

fn missing_rename_source_is_a_case_error() {
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("skills/a/SKILL.md"), "");
    let spec = case(&dir, "renames = { \"skills/x/dot-git\" = \".git\" }\n");
    let error = Sandbox::prepare(&spec, false).unwrap_err();
    assert!(matches!(error, SandboxError::Case { .. }));
    assert_eq!(
        error.to_string(),
        "error preparing case `g/c`: rename source `skills/x/dot-git` does not exist \
         (hint: `renames` names paths as committed, relative to the case directory)"
    );
}

fn existing_link_path_is_a_case_error() {
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("skills/a/SKILL.md"), "");
    let spec = case(&dir, "links = { \"skills/a\" = \"b\" }\n");
    let message = Sandbox::prepare(&spec, false).unwrap_err().to_string();
    assert!(
        message.contains("link path `skills/a` already exists"),
        "{message}"
    );
}

fn kept_sandbox_outlives_the_value() {
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("skills/a/SKILL.md"), "");
    let sandbox = Sandbox::prepare(&case(&dir, ""), true).unwrap();
    assert!(sandbox.is_kept());
    let path = sandbox.path().to_owned();
    drop(sandbox);
    assert!(path.join("skills/a/SKILL.md").is_file());
    fs::remove_dir_all(path).unwrap();
}

fn case_sensitive_names_survive_on_this_filesystem() {
    // On a case-sensitive filesystem `B` and `b` stay apart and the sandbox is not vacuous; on a
    // case-insensitive one the same case is reported as vacuous instead of silently merged.
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("skills/B/SKILL.md"), "---\nname: upper\n---\n");
    write(&dir.join("skills/b/SKILL.md"), "---\nname: lower\n---\n");
    let sandbox = Sandbox::prepare(&case(&dir, ""), false).unwrap();
    let merged = fs::read_dir(sandbox.path().join("skills")).unwrap().count() < 2;
    assert_eq!(
        sandbox.vacuous().is_some(),
        merged,
        "{:?}",
        sandbox.vacuous()
    );
}

fn a_sandbox_is_registered_for_interruption_until_dropped_unless_kept() {
    use skill_conform::interrupt::is_registered_dir;
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    write(&dir.join("skills/a/SKILL.md"), "");
    let sandbox = Sandbox::prepare(&case(&dir, ""), false).unwrap();
    let path = sandbox.path().to_owned();
    assert!(is_registered_dir(&path));
    drop(sandbox);
    assert!(!is_registered_dir(&path));

    let kept = Sandbox::prepare(&case(&dir, ""), true).unwrap();
    assert!(
        !is_registered_dir(kept.path()),
        "a kept sandbox outlives an interruption"
    );
    fs::remove_dir_all(kept.path()).unwrap();
}

/// `--repeat`'s later passes add every entry again in a shuffled order (links and renamed
/// entries too): the tree is the same, names, bytes and link targets; only the order a
/// filesystem that lists by creation (tmpfs) gives changes.
fn a_shuffled_placement_changes_the_listing_order_and_nothing_else() {
    use skill_conform::sandbox::Placement;
    use skill_conform::tamper::digest_tree;
    let fixtures = crate::common::tempdir();
    let dir = fixtures.path().join("g/c");
    for name in ["a", "b", "c", "d", "e", "f", "dot-git"] {
        write(&dir.join(format!("skills/{name}/SKILL.md")), name);
    }
    let extra =
        "links = { \"skills/0alias\" = \"a\" }\nrenames = { \"skills/dot-git\" = \".git\" }\n";
    let spec = case(&dir, extra);
    let memory = Path::new("/dev/shm");
    let bases = if memory.is_dir() {
        vec![memory.to_owned()]
    } else {
        vec![std::env::temp_dir()]
    };
    let sorted = Sandbox::prepare_in(
        &spec,
        false,
        &Placement {
            bases: bases.clone(),
            shuffle: None,
        },
    )
    .unwrap();
    let listing = |sandbox: &Sandbox| -> Vec<String> {
        fs::read_dir(sandbox.path().join("skills"))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect()
    };
    let mut orders = std::collections::BTreeSet::new();
    for pass in 1..=4 {
        let placement = Placement {
            bases: bases.clone(),
            shuffle: Some((7, pass)),
        };
        let shuffled = Sandbox::prepare_in(&spec, false, &placement).unwrap();
        let (a, b) = (
            digest_tree(sorted.path()).unwrap(),
            digest_tree(shuffled.path()).unwrap(),
        );
        assert!(a.diff(&b).is_empty(), "pass {pass}:\n{}", a.diff(&b));
        assert!(shuffled.vacuous().is_none());
        orders.insert(listing(&shuffled));
        // The same seed, pass and case give the same order.
        assert_eq!(
            listing(&Sandbox::prepare_in(&spec, false, &placement).unwrap()),
            listing(&shuffled)
        );
    }
    if bases[0] == memory {
        orders.insert(listing(&sorted));
        assert!(orders.len() > 2, "tmpfs lists by creation: {orders:?}");
    }
}

crate::tests![
    copies_bytes_exactly_and_leaves_out_the_manifest,
    renames_then_links,
    committed_symlinks_are_refused,
    missing_roots_are_handed_out_in_order,
    roots_are_not_resolved_through_links,
    readable_unreadable_path_makes_the_sandbox_vacuous,
    missing_unreadable_path_makes_the_sandbox_vacuous,
    #[cfg(target_os = "linux")]
    link_to_proc_self_mem_is_unreadable,
    missing_rename_source_is_a_case_error,
    existing_link_path_is_a_case_error,
    kept_sandbox_outlives_the_value,
    case_sensitive_names_survive_on_this_filesystem,
    a_sandbox_is_registered_for_interruption_until_dropped_unless_kept,
    a_shuffled_placement_changes_the_listing_order_and_nothing_else,
];
