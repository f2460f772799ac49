//! A seeded generator of skill trees: the benchmark's input and `gen-corpus`'s output.
//!
//! The same `(skills, seed)` always writes the same tree, byte for byte. Trees look like real
//! catalogues: skills at several depths, plugin-synced copies (`synced/<id>/<name>/`) and plugin
//! copies nested two levels deeper (`plugins/<id>/skills/<name>/`) that duplicate top-level
//! names, sibling files and nested resource folders, symlinked skills, and frontmatter drawn
//! from the issue-93 shapes and the hazards (YAML that needs the rescue, block scalars,
//! comments, broken flow, no name, no fence, a BOM, CRLF throughout or in the frontmatter only,
//! duplicate keys, `description: yes`).

use std::fs;
use std::io;
use std::path::Path;

use chacha20::ChaCha8Rng;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};

/// What a generated tree contains, for reports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GeneratedTree {
    /// `SKILL.md` files written (symlinked skills not counted).
    pub skill_files: usize,
    /// Other files written.
    pub other_files: usize,
    /// Symlinks created.
    pub links: usize,
}

const WORDS: &[&str] = &[
    "pdf", "docx", "xlsx", "review", "deploy", "lint", "sql", "notes", "report", "photo", "tables",
    "release", "search", "triage", "audit", "email", "spec", "i18n", "chart", "backup",
];

/// A whole `SKILL.md`: frontmatter shapes weighted towards the plain ones real catalogues
/// mostly hold, then a short body.
fn skill_file(rng: &mut ChaCha8Rng, name: &str) -> String {
    let topic = WORDS[rng.random_range(0..WORDS.len())];
    let mut crlf_body = false;
    let mut text = match rng.random_range(0..27) {
        0..=13 => format!("---\nname: {name}\ndescription: Helps with {topic} work for {name}.\n---\n"),
        14 => format!("---\nname: {name}\ndescription: Handles {topic}. Use when: the user mentions {topic}.\n---\n"),
        15 => format!("---\nname: {name}\ndescription: \"Quoted {topic}: with a colon.\"\n---\n"),
        16 => format!("---\nname: {name}\ndescription: |\n  First line about {topic}.\n  Trigger on: {topic} files.\n---\n"),
        17 => format!("---\nname: {name}\ndescription: Works on {topic} #tag Trigger on: x\n---\n"),
        18 => format!("---\nname: {name}\ndescription: [broken, flow\n---\n"),
        19 => format!("---\nname: {name}\ndescription: Uses tools.\nallowed-tools: [bash, read]\nmetadata:\n  owner: {topic}\n---\n"),
        20 => format!("---\ndescription: Has no name, about {topic}.\n---\n"),
        21 => format!("# {name}\n\nNo frontmatter at all.\n"),
        22 => format!("---\nname: {name}\ndescription: Tabbed {topic}.\n\tbad: indent\n---\n"),
        23 => format!("---\r\nname: {name}\r\ndescription: CRLF {topic} skill.\r\n---\r\n"),
        24 => format!("\u{FEFF}---\nname: {name}\ndescription: Starts with a BOM, about {topic}.\n---\n"),
        25 => {
            crlf_body = true;
            format!("---\r\nname: {name}\r\ndescription: CRLF throughout, {topic}.\r\n---\r\n")
        }
        _ => match rng.random_range(0..3) {
            0 => format!("---\nname: {name}\ndescription: First {topic}.\ndescription: Second {topic}.\n---\n"),
            1 => format!("---\nname: {name}-first\nname: {name}\ndescription: Duplicate name key, {topic}.\n---\n"),
            _ => format!("---\nname: {name}\ndescription: yes\n---\n"),
        },
    };
    let body = format!("\n# {name}\n\nSteps for {name}.\n");
    if crlf_body {
        text.push_str(&body.replace('\n', "\r\n"));
    } else {
        text.push_str(&body);
    }
    text
}

/// The most skills `gen-corpus` writes (ten times what `just bench-large` uses): a bigger tree
/// is a typo, not a benchmark.
pub(crate) const MAX_SKILLS: u64 = 1_000_000;

/// How often [`generate_with_progress`] reports: every this many skills.
pub(crate) const PROGRESS_EVERY: usize = 10_000;

/// Writes a tree of about `skills` skills under `dir` (which must be empty or absent).
pub fn generate(dir: &Path, skills: usize, seed: u64) -> io::Result<GeneratedTree> {
    generate_with_progress(dir, skills, seed, |_| {})
}

/// [`generate`], calling `progress(done)` after every [`PROGRESS_EVERY`] skills.
pub(crate) fn generate_with_progress(
    dir: &Path,
    skills: usize,
    seed: u64,
    mut progress: impl FnMut(usize),
) -> io::Result<GeneratedTree> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut tree = GeneratedTree::default();
    fs::create_dir_all(dir)?;
    let mut top_names: Vec<String> = Vec::new();
    for i in 0..skills {
        let word = WORDS[rng.random_range(0..WORDS.len())];
        let name = format!("{word}-{i:05}");
        // Where the skill lives: mostly top level, some in categories, some plugin-synced
        // copies of an earlier top-level name (a duplicate at another depth), a few of them
        // nested two levels deeper, as plugin marketplaces lay them out.
        let (relative, skill_name) = match rng.random_range(0..10) {
            0..=5 => (name.clone(), name.clone()),
            6 | 7 => (format!("{word}/{name}"), name.clone()),
            _ => match top_names.choose(&mut rng) {
                Some(existing) => {
                    let id = rng.random::<u32>();
                    let place = if rng.random_ratio(1, 4) {
                        format!("plugins/{id:08x}/skills/{existing}")
                    } else {
                        format!("synced/{id:08x}/{existing}")
                    };
                    (place, existing.clone())
                }
                None => (name.clone(), name.clone()),
            },
        };
        if !relative.contains('/') {
            top_names.push(name.clone());
        }
        let skill_dir = dir.join(&relative);
        fs::create_dir_all(&skill_dir)?;
        fs::write(
            skill_dir.join("SKILL.md"),
            skill_file(&mut rng, &skill_name),
        )?;
        tree.skill_files += 1;
        for f in 0..rng.random_range(0..8) {
            let sub = match rng.random_range(0..4) {
                0 => "scripts/",
                1 => "reference/",
                _ => "",
            };
            let path = skill_dir.join(format!("{sub}file-{f}.txt"));
            fs::create_dir_all(path.parent().expect("a file has a parent"))?;
            fs::write(path, "resource\n")?;
            tree.other_files += 1;
        }
        if rng.random_ratio(1, 100) {
            let link = dir.join(format!("linked-{i:05}"));
            std::os::unix::fs::symlink(&relative, link)?;
            tree.links += 1;
        }
        if (i + 1) % PROGRESS_EVERY == 0 {
            progress(i + 1);
        }
    }
    Ok(tree)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(dir)
            .sort_by_file_name()
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
                (rel, fs::read(e.path()).unwrap())
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn same_seed_same_tree_other_seed_other_tree() {
        let (a, b, c) = (
            crate::test_tempdir::tempdir(),
            crate::test_tempdir::tempdir(),
            crate::test_tempdir::tempdir(),
        );
        let ta = generate(a.path(), 60, 7).unwrap();
        let tb = generate(b.path(), 60, 7).unwrap();
        generate(c.path(), 60, 8).unwrap();
        assert_eq!(ta, tb);
        assert_eq!(listing(a.path()), listing(b.path()));
        assert_ne!(listing(a.path()), listing(c.path()));
        assert_eq!(ta.skill_files, 60);
    }

    #[test]
    fn the_hazard_shapes_are_drawn() {
        let dir = crate::test_tempdir::tempdir();
        generate(dir.path(), 400, 1).unwrap();
        let files = listing(dir.path());
        let skill = |needle: &[u8]| {
            files.iter().any(|(path, bytes)| {
                path.ends_with("SKILL.md") && bytes.windows(needle.len()).any(|w| w == needle)
            })
        };
        assert!(skill("\u{FEFF}---".as_bytes()), "BOM");
        assert!(skill(b"\r\nSteps for"), "CRLF body");
        assert!(skill(b"description: yes\n"), "description: yes");
        assert!(skill(b"\ndescription: Second"), "duplicate description key");
        assert!(skill(b"-first\nname: "), "duplicate name key");
        assert!(files
            .iter()
            .any(|(path, _)| path.starts_with("plugins/") && path.contains("/skills/")));
    }
}
