//! A seeded generator of skill trees: the benchmark's input and `gen-corpus`'s output.
//!
//! The same `(skills, seed)` always writes the same tree, byte for byte. Trees look like real
//! catalogues: skills at several depths, plugin-synced copies (`synced/<id>/<name>/`) that
//! duplicate top-level names, sibling files and nested resource folders, symlinked skills, and
//! frontmatter drawn from the issue-93 shapes and the hazards (YAML that needs the rescue,
//! block scalars, comments, broken flow, no name, no fence).

use std::fs;
use std::io;
use std::path::Path;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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

/// Frontmatter shapes, weighted towards the plain ones real catalogues mostly hold.
fn frontmatter(rng: &mut ChaCha8Rng, name: &str) -> String {
    let topic = WORDS[rng.gen_range(0..WORDS.len())];
    match rng.gen_range(0..20) {
        0..=9 => format!("---\nname: {name}\ndescription: Helps with {topic} work for {name}.\n---\n"),
        10 => format!("---\nname: {name}\ndescription: Handles {topic}. Use when: the user mentions {topic}.\n---\n"),
        11 => format!("---\nname: {name}\ndescription: \"Quoted {topic}: with a colon.\"\n---\n"),
        12 => format!("---\nname: {name}\ndescription: |\n  First line about {topic}.\n  Trigger on: {topic} files.\n---\n"),
        13 => format!("---\nname: {name}\ndescription: Works on {topic} #tag Trigger on: x\n---\n"),
        14 => format!("---\nname: {name}\ndescription: [broken, flow\n---\n"),
        15 => format!("---\nname: {name}\ndescription: Uses tools.\nallowed-tools: [bash, read]\nmetadata:\n  owner: {topic}\n---\n"),
        16 => format!("---\ndescription: Has no name, about {topic}.\n---\n"),
        17 => format!("# {name}\n\nNo frontmatter at all.\n"),
        18 => format!("---\nname: {name}\ndescription: Tabbed {topic}.\n\tbad: indent\n---\n"),
        _ => format!("---\r\nname: {name}\r\ndescription: CRLF {topic} skill.\r\n---\r\n"),
    }
}

/// Writes a tree of about `skills` skills under `dir` (which must be empty or absent).
pub fn generate(dir: &Path, skills: usize, seed: u64) -> io::Result<GeneratedTree> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut tree = GeneratedTree::default();
    fs::create_dir_all(dir)?;
    let mut top_names: Vec<String> = Vec::new();
    for i in 0..skills {
        let word = WORDS[rng.gen_range(0..WORDS.len())];
        let name = format!("{word}-{i:05}");
        // Where the skill lives: mostly top level, some in categories, some plugin-synced
        // copies of an earlier top-level name (a duplicate at another depth).
        let (relative, skill_name) = match rng.gen_range(0..10) {
            0..=5 => (name.clone(), name.clone()),
            6 | 7 => (format!("{word}/{name}"), name.clone()),
            _ => match top_names.choose(&mut rng) {
                Some(existing) => (
                    format!("synced/{:08x}/{existing}", rng.gen::<u32>()),
                    existing.clone(),
                ),
                None => (name.clone(), name.clone()),
            },
        };
        if !relative.contains('/') {
            top_names.push(name.clone());
        }
        let skill_dir = dir.join(&relative);
        fs::create_dir_all(&skill_dir)?;
        let mut body = frontmatter(&mut rng, &skill_name);
        body.push_str(&format!("\n# {skill_name}\n\nSteps for {skill_name}.\n"));
        fs::write(skill_dir.join("SKILL.md"), body)?;
        tree.skill_files += 1;
        for f in 0..rng.gen_range(0..8) {
            let sub = match rng.gen_range(0..4) {
                0 => "scripts/",
                1 => "reference/",
                _ => "",
            };
            let path = skill_dir.join(format!("{sub}file-{f}.txt"));
            fs::create_dir_all(path.parent().expect("a file has a parent"))?;
            fs::write(path, "resource\n")?;
            tree.other_files += 1;
        }
        if rng.gen_ratio(1, 100) {
            let link = dir.join(format!("linked-{i:05}"));
            std::os::unix::fs::symlink(&relative, link)?;
            tree.links += 1;
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
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        let ta = generate(a.path(), 60, 7).unwrap();
        let tb = generate(b.path(), 60, 7).unwrap();
        generate(c.path(), 60, 8).unwrap();
        assert_eq!(ta, tb);
        assert_eq!(listing(a.path()), listing(b.path()));
        assert_ne!(listing(a.path()), listing(c.path()));
        assert_eq!(ta.skill_files, 60);
    }
}
