//! The 17 issue-93 shapes of `TN-YAML-1` (CONTRACT.md), asserted on exact descriptions and skip reasons:
//! 14 accepted, 3 `missing-name`, no `malformed-frontmatter`.

use crate::common;

use common::{options, output, rel, Tree};
use skill_ref::{Config, SkipReason};

/// (directory = name, frontmatter + body, expected description or skip reason)
/// What a shape must give: its description (or none), or the skip reason.
type Outcome = Result<Option<&'static str>, SkipReason>;

const SHAPES: &[(&str, &str, Outcome)] = &[
    ("plain", "---\nname: plain\ndescription: Summarises a report in three lines.\n---\nBody.\n", Ok(Some("Summarises a report in three lines."))),
    ("colon-space", "---\nname: colon-space\ndescription: Fills forms. Use when: a PDF form arrives.\n---\nBody.\n", Ok(Some("Fills forms. Use when: a PDF form arrives."))),
    ("colon-space-quoted", "---\nname: colon-space-quoted\ndescription: \"Fills forms. Use when: a PDF form arrives.\"\n---\nBody.\n", Ok(Some("Fills forms. Use when: a PDF form arrives."))),
    ("colon-space-single", "---\nname: colon-space-single\ndescription: 'Fills forms. Use when: a PDF form arrives.'\n---\nBody.\n", Ok(Some("Fills forms. Use when: a PDF form arrives."))),
    ("url-colon", "---\nname: url-colon\ndescription: Reads https://example.org/spec before answering.\n---\nBody.\n", Ok(Some("Reads https://example.org/spec before answering."))),
    ("hash-inline", "---\nname: hash-inline\ndescription: Drafts release notes #changelog Trigger on: release\n---\nBody.\n", Ok(Some("Drafts release notes"))),
    ("block-literal", "---\nname: block-literal\ndescription: |\n  Checks spelling.\n  Use when: a draft is ready.\n---\nBody.\n", Ok(Some("Checks spelling.\nUse when: a draft is ready."))),
    ("block-folded", "---\nname: block-folded\ndescription: >\n  Converts tables\n  to CSV files.\n---\nBody.\n", Ok(Some("Converts tables to CSV files."))),
    ("list-value", "---\nname: list-value\ndescription: Lints shell scripts.\nallowed-tools: [bash, read]\n---\nBody.\n", Ok(Some("Lints shell scripts."))),
    ("list-block", "---\nname: list-block\ndescription: Formats SQL.\nallowed-tools:\n  - bash\n  - read\n---\nBody.\n", Ok(Some("Formats SQL."))),
    ("nested-map", "---\nname: nested-map\ndescription: Tags photos.\nmetadata:\n  owner: team\n  version: 2\n---\nBody.\n", Ok(Some("Tags photos."))),
    ("anchors", "---\nname: anchors\ndescription: Renames files.\ndefaults: &d\n  mode: safe\nactive: *d\n---\nBody.\n", Ok(Some("Renames files."))),
    ("broken-flow", "---\nname: broken-flow\ndescription: [unterminated, flow\n---\nBody.\n", Ok(None)),
    ("broken-tab", "---\nname: broken-tab\ndescription: Sorts imports.\n\tindent: tab\n---\nBody.\n", Ok(Some("Sorts imports."))),
    ("broken-unclosed", "---\nname: broken-unclosed\ndescription: Never closes.\nBody.\n", Err(SkipReason::MissingName)),
    ("no-frontmatter", "# Just markdown\n\nNo fence here.\n", Err(SkipReason::MissingName)),
    ("no-name", "---\ndescription: Has no name.\n---\nBody.\n", Err(SkipReason::MissingName)),
];

#[test]
fn the_17_shapes_give_the_pinned_outcomes() {
    let tree = Tree::new();
    for (dir, text, _) in SHAPES {
        tree.file(&format!("skills/{dir}/SKILL.md"), text);
    }
    let out = output(
        &Config::default(),
        &tree,
        &["skills"],
        &options(0, &[]),
        &[],
    );
    let mut accepted = 0;
    for (dir, _, expected) in SHAPES {
        let location = format!("skills/{dir}/SKILL.md");
        let skill = out
            .inventory
            .skills
            .iter()
            .find(|s| rel(&tree, &s.location) == location);
        let skip = out
            .inventory
            .skipped
            .iter()
            .find(|s| rel(&tree, &s.location) == location);
        match (expected, skill, skip) {
            (Ok(description), Some(skill), None) => {
                accepted += 1;
                assert_eq!(skill.name, *dir);
                assert_eq!(skill.description.as_deref(), *description, "{dir}");
            }
            (Err(reason), None, Some(skip)) => assert_eq!(skip.reason, *reason, "{dir}"),
            other => panic!("{dir}: unexpected {other:?}"),
        }
    }
    assert_eq!(accepted, 14);
    assert_eq!(out.inventory.skipped.len(), 3);
    assert!(out
        .inventory
        .skipped
        .iter()
        .all(|s| s.reason == SkipReason::MissingName));
}
