//! The writing tool over real skills folders (`skill-conform corpus --writing-tool`): which
//! real skills `claude plugin validate` accepts that the reference or a port drops.
//!
//! The folders are never written: each one is copied (without following links, a file that
//! cannot be read left out) as the `skills/` folder of a temporary plugin, with a twin copy for
//! the probe (see [`super::observe`]). Every `SKILL.md` under a folder (found without following
//! links) gets an observation, by its `{rootN}/…` location as in `corpus.md`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::observe::{observe_tree, ByPath, Tree};
use super::{tool, Observation, Tool, COLUMN};
use crate::case::Field;
use crate::corpus::{CorpusReport, LocationVerdict};
use crate::error::Error;
use crate::reference::{run_reference, LoadList};

/// Sets the tool up, observes the report's roots, prints the section and appends it to
/// `corpus.md` in `report_dir`.
pub fn report(repo: &Path, corpus: &CorpusReport, report_dir: &Path) -> Result<(), Error> {
    let section = match observe_roots(repo, &corpus.roots) {
        Ok(seen) => section(corpus, &reference_skips(&corpus.roots), &seen),
        Err(why) => format!("\n## `{COLUMN}`\n\nNot measured: {why}.\n"),
    };
    print!("{section}");
    let path = report_dir.join("corpus.md");
    let io = |e| Error::io(format!("writing `{}`", path.display()), e);
    let mut text = std::fs::read_to_string(&path).map_err(io)?;
    text.push_str(&section);
    std::fs::write(&path, text).map_err(io)
}

/// Every `SKILL.md` under `roots`, observed, by `{rootN}/…` location.
pub(crate) fn observe_roots(repo: &Path, roots: &[String]) -> Result<ByPath, String> {
    let spec = tool::read_spec(repo)?;
    let program = tool::set_up(repo, &spec)?;
    observe_with(&Tool::at(program), roots)
}

/// [`observe_roots`] with a given tool.
pub fn observe_with(tool: &Tool, roots: &[String]) -> Result<ByPath, String> {
    let (_home_dir, home) =
        crate::sandbox::plain_tempdir("skill-conform-claude-home-").map_err(|e| e.to_string())?;
    let mut all = BTreeMap::new();
    for (n, root) in roots.iter().enumerate() {
        let work = tempfile::tempdir().map_err(|e| e.to_string())?;
        let (plugin, probe) = (work.path().join("plugin"), work.path().join("probe"));
        for copy in [&plugin, &probe] {
            copy_tree(Path::new(root), &copy.join("skills"));
        }
        let rels: Vec<String> = skill_md_files(&plugin.join("skills"))
            .into_iter()
            .map(|rel| format!("skills/{rel}"))
            .collect();
        let tree = Tree {
            dir: &plugin,
            probe: &probe,
            validated: &[".".to_owned()],
        };
        let (by_rel, _other) = observe_tree(tool, &home, &tree, &rels)?;
        for (rel, observation) in by_rel {
            let rest = rel.strip_prefix("skills/").unwrap_or(&rel);
            all.insert(format!("{{root{n}}}/{rest}"), observation);
        }
    }
    Ok(all)
}

/// Copies `from` into `to` without following links (links are recreated as links); what cannot
/// be read is left out, so the tool does not see it either.
fn copy_tree(from: &Path, to: &Path) {
    let _ = std::fs::create_dir_all(to);
    let Ok(read) = std::fs::read_dir(from) else {
        return;
    };
    let mut entries: Vec<PathBuf> = read.flatten().map(|e| e.path()).collect();
    entries.sort();
    for source in entries {
        let target = to.join(source.file_name().expect("a directory entry has a name"));
        let Ok(meta) = std::fs::symlink_metadata(&source) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            if let Ok(link) = std::fs::read_link(&source) {
                let _ = std::os::unix::fs::symlink(link, &target);
            }
        } else if meta.is_dir() {
            copy_tree(&source, &target);
        } else if meta.is_file() {
            let _ = std::fs::copy(&source, &target);
        }
    }
}

/// Every file named `SKILL.md` under `dir`, found without following links, relative, sorted.
fn skill_md_files(dir: &Path) -> Vec<String> {
    let walk = walkdir::WalkDir::new(dir).sort_by_file_name().into_iter();
    walk.flatten()
        .filter(|e| e.file_name() == "SKILL.md")
        .filter_map(|e| Some(e.path().strip_prefix(dir).ok()?.display().to_string()))
        .collect()
}

/// The reference's skips over `roots`: `{rootN}/…` → reason.
pub fn reference_skips(roots: &[String]) -> BTreeMap<String, String> {
    let paths: Vec<PathBuf> = roots.iter().map(PathBuf::from).collect();
    let load = LoadList::Exactly(Vec::new());
    let Ok(run) = run_reference(
        skill_ref::Config::default(),
        &paths,
        0,
        &BTreeMap::new(),
        &load,
        false,
        Path::new("/"),
    ) else {
        return BTreeMap::new();
    };
    let raw = serde_json::to_value(&run.output).expect("the output serialises");
    let inventory = BTreeSet::from([Field::Inventory]);
    let normalized = crate::normalize::normalize(&raw, roots, &inventory);
    let text = |e: &Value, key: &str| e.get(key).and_then(Value::as_str).map(str::to_owned);
    let skipped = normalized["inventory"]["skipped"].as_array().cloned();
    skipped
        .into_iter()
        .flatten()
        .filter_map(|e| Some((text(&e, "location")?, text(&e, "reason")?)))
        .collect()
}

/// Who drops `location`: the ports of its disagreement row that do not accept it, or, when
/// every port agrees, all of them when the reference skips it.
fn droppers(
    corpus: &CorpusReport,
    skips: &BTreeMap<String, String>,
    location: &str,
) -> Vec<String> {
    let Some(row) = corpus.disagreements.iter().find(|r| r.location == location) else {
        return match skips.get(location) {
            Some(reason) if reason != super::DUPLICATE_NAME => {
                vec![format!(
                    "the reference and every port that answered ({reason})"
                )]
            }
            _ => Vec::new(),
        };
    };
    let accepted = |v: &[LocationVerdict]| {
        v.iter()
            .any(|e| matches!(e, LocationVerdict::Accepted { .. }))
    };
    row.verdicts
        .iter()
        .filter(|(_, verdicts)| !accepted(verdicts))
        .map(|(port, verdicts)| match verdicts.first() {
            Some(LocationVerdict::Skipped { reason }) => {
                format!("{port} ({})", reason.as_str().unwrap_or("?"))
            }
            _ => format!("{port} (not listed)"),
        })
        .collect()
}

/// The `corpus.md` section: counts, then every skill the tool accepts that a port drops.
pub fn section(corpus: &CorpusReport, skips: &BTreeMap<String, String>, seen: &ByPath) -> String {
    let mut out = format!("\n## `{COLUMN}` (the writing tool's static check)\n\n");
    let count = |f: fn(&Observation) -> bool| seen.values().filter(|o| f(o)).count();
    let _ = writeln!(
        out,
        "{} `SKILL.md`: {} accepted, {} with errors, {} not seen (the plugin layout \
         `skills/<name>/SKILL.md` does not reach them).\n",
        seen.len(),
        count(|o| matches!(o, Observation::Accepts { .. })),
        count(|o| matches!(o, Observation::Errors { .. })),
        count(|o| *o == Observation::NotSeen),
    );
    let mut lines = Vec::new();
    for (location, observation) in seen {
        if !matches!(observation, Observation::Accepts { .. }) {
            continue;
        }
        let dropped_by = droppers(corpus, skips, location);
        if !dropped_by.is_empty() {
            let cell = observation.cell();
            let who = dropped_by.join(", ");
            lines.push(format!("- `{location}`: the tool {cell}; dropped by {who}"));
        }
    }
    if lines.is_empty() {
        out.push_str("No skill the tool accepts is dropped by a port.\n");
    } else {
        let _ = writeln!(out, "Skills the tool accepts that a port drops:\n");
        for line in lines {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}
