//! Property: the order in which a directory's entries are created never changes any output.
//! (Filesystems return entries in creation order, hash order or anything else; the contract
//! sorts every read.)

use crate::common;

use common::{options, output, Tree};
use proptest::prelude::*;
use skill_ref::Config;

/// A pool of paths that exercises depth, code points, duplicates and nested skills.
const SKILLS: &[(&str, &str)] = &[
    ("xlsx", "xlsx"),
    ("synced/u1/xlsx", "xlsx"),
    ("B-case", "case"),
    ("a-case", "case"),
    ("z-sz", "sz"),
    ("ß-sz", "sz"),
    ("a\u{E000}", "pua"),
    ("a\u{1F600}", "pua"),
    ("nest", "nest"),
    ("nest/inner", "inner"),
];
const FILES: &[&str] = &[
    "nest/a.txt",
    "nest/alpha/f.txt",
    "nest/alpha-b.txt",
    "nest/.hidden",
    "nest/ß.txt",
    "nest/ss.txt",
    "nest/z.txt",
];

fn build(order: &[usize]) -> (Tree, String) {
    let tree = Tree::new();
    let entries: Vec<String> = SKILLS
        .iter()
        .map(|(d, _)| format!("r/{d}/SKILL.md"))
        .chain(FILES.iter().map(|f| format!("r/{f}")))
        .collect();
    for &i in order {
        let path = &entries[i];
        let text = match SKILLS
            .iter()
            .find(|(d, _)| format!("r/{d}/SKILL.md") == *path)
        {
            Some((d, n)) => format!("---\nname: {n}\ndescription: from {d}\n---\nbody\n"),
            None => "file".to_owned(),
        };
        tree.file(path, text);
    }
    let out = output(
        &Config::default(),
        &tree,
        &["r"],
        &options(3, &[]),
        &["missing"],
    );
    let text = skill_ref::canonical::to_canonical_string(&out);
    let root = tree.path().display().to_string();
    (tree, text.replace(&root, "{root}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn creation_order_never_changes_output(order in Just((0..SKILLS.len() + FILES.len()).collect::<Vec<_>>()).prop_shuffle()) {
        let sorted: Vec<usize> = (0..SKILLS.len() + FILES.len()).collect();
        let (_a, expected) = build(&sorted);
        let (_b, actual) = build(&order);
        prop_assert_eq!(actual, expected);
    }
}
