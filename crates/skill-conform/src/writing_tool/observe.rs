//! One case seen by the writing tool: which directories are validated, what the tool says
//! about each `SKILL.md` the reference looked at, and which of them it does not reach.
//!
//! The validated directories are the plugins the case's roots make: a root whose last
//! component is `skills` is the `skills/` folder of the plugin in its parent directory, which
//! is what `claude plugin validate` is given. A root with another name (`root-a`, `skills/sub`)
//! is no plugin's `skills/` folder, so the tool never reaches its files unless another root's
//! plugin does.
//!
//! The reply lists only the files the tool has something to say about; a clean `SKILL.md` and
//! one the tool never opened look the same in it. So each case runs twice: on its sandbox, for
//! the messages, and on a second sandbox where every `SKILL.md` the reference looked at has
//! frontmatter that cannot parse (the *probe*): each file the tool reports there is one it
//! reaches, and a reached file with nothing said about it in the first run is `accepts`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use skill_ref::Config;

use super::tool::Tool;
use super::{CaseObservation, Observation};
use crate::case::{CaseSpec, Field};
use crate::normalize::compared_form;
use crate::reference::run_case;
use crate::sandbox::Sandbox;

/// The probe's `SKILL.md`: frontmatter without a description, about which the tool always
/// says something (2.1.328: the warning "No description in frontmatter").
pub const PROBE_TEXT: &str = "---\nname: [unclosed\n---\nprobe\n";

/// What the tool said about one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Said {
    errors: Vec<String>,
    warnings: Vec<String>,
}

/// The directories, relative to the case, that are plugins holding one of its roots.
pub fn plugin_dirs(case: &CaseSpec, sandbox: &Path) -> Vec<String> {
    let dirs: BTreeSet<String> = case
        .roots
        .iter()
        .filter(|root| sandbox.join(root).is_dir())
        .filter_map(|root| match root.rsplit_once('/') {
            Some((parent, "skills")) => Some(parent.to_owned()),
            None if root == "skills" => Some(".".to_owned()),
            _ => None,
        })
        .collect();
    dirs.into_iter().collect()
}

/// Observes `case`: every `SKILL.md` the reference looked at and every file named `SKILL.md`
/// under its roots, by `{rootN}/…` location.
pub fn observe_case(tool: &Tool, home: &Path, case: &CaseSpec) -> Result<CaseObservation, String> {
    let sandbox = prepared(case)?;
    let locations = locations(case, &sandbox);
    let validated = plugin_dirs(case, sandbox.path());
    let probe = prepared(case)?;
    let rels: Vec<String> = locations.iter().map(|l| case_relative(case, l)).collect();
    let tree = Tree {
        dir: sandbox.path(),
        probe: probe.path(),
        validated: &validated,
    };
    let (by_rel, extra) = observe_tree(tool, home, &tree, &rels)?;
    // Two locations may be one file (overlapping roots): each gets its observation.
    let mut skill_md: BTreeMap<String, Observation> = locations
        .iter()
        .zip(&rels)
        .map(|(location, rel)| (location.clone(), by_rel[rel].clone()))
        .collect();
    // What the tool spoke about besides those files: a `SKILL.md` the reference did not look
    // at, or another path (a folder holding a symlink the tool did not follow).
    let mut other = BTreeMap::new();
    for (key, observation) in extra {
        let is_skill_md = key == "SKILL.md" || key.ends_with("/SKILL.md");
        let list = if is_skill_md {
            &mut skill_md
        } else {
            &mut other
        };
        list.insert(format!("{{case}}/{key}"), observation);
    }
    Ok(CaseObservation {
        fixture: super::fixture_fingerprint(&case.dir),
        validated,
        skill_md,
        other,
    })
}

/// Observations by path.
pub(crate) type ByPath = BTreeMap<String, Observation>;

/// A tree to observe: `dir` and its twin `probe` (the same files, where the probe text is
/// planted), and the directories of it given to the tool.
pub(crate) struct Tree<'a> {
    pub dir: &'a Path,
    pub probe: &'a Path,
    pub validated: &'a [String],
}

/// What the tool says about each of `rels` (paths relative to the tree), and about every
/// other path it spoke of.
pub(crate) fn observe_tree(
    tool: &Tool,
    home: &Path,
    tree: &Tree<'_>,
    rels: &[String],
) -> Result<(ByPath, ByPath), String> {
    let mut said = as_written(validate_all(tool, home, tree.dir, tree.validated)?, rels);
    for rel in rels {
        plant_probe(&tree.probe.join(rel));
    }
    let probed = validate_all(tool, home, tree.probe, tree.validated)?;
    let reached: BTreeSet<String> = as_written(probed, rels).into_keys().collect();
    let mut by_rel = BTreeMap::new();
    for rel in rels {
        let observation = match said.remove(rel) {
            Some(said) => observed(&said),
            None if reached.contains(rel) => Observation::Accepts {
                warnings: Vec::new(),
            },
            None => Observation::NotSeen,
        };
        by_rel.insert(rel.clone(), observation);
    }
    let extra = said.iter().map(|(k, s)| (k.clone(), observed(s))).collect();
    Ok((by_rel, extra))
}

/// Whether the tool leaves `c` out of the paths it prints (2.1.328 drops private-use
/// characters: `a<U+E000>/SKILL.md` is printed `a/SKILL.md`); format and control characters
/// are treated alike.
fn dropped_from_paths(c: char) -> bool {
    let private_use = matches!(c, '\u{E000}'..='\u{F8FF}' | '\u{F0000}'..='\u{FFFFD}' | '\u{100000}'..='\u{10FFFD}');
    let format = matches!(c, '\u{AD}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}');
    private_use || format || c.is_control()
}

/// Re-keys what the tool said by the path as written: a printed path that is none of `rels`
/// but is exactly one of them with the characters the tool drops left out, is that one.
fn as_written(said: BTreeMap<String, Said>, rels: &[String]) -> BTreeMap<String, Said> {
    let printed =
        |rel: &str| -> String { rel.chars().filter(|c| !dropped_from_paths(*c)).collect() };
    said.into_iter()
        .map(|(key, one)| {
            if rels.contains(&key) {
                return (key, one);
            }
            let mut meant = rels.iter().filter(|rel| printed(rel) == key);
            match (meant.next(), meant.next()) {
                (Some(rel), None) => (rel.clone(), one),
                _ => (key, one),
            }
        })
        .collect()
}

/// The reference's inventory locations, and every `SKILL.md` under a root (found without
/// following links), as `{rootN}/…`, sorted.
fn locations(case: &CaseSpec, sandbox: &Sandbox) -> Vec<String> {
    let inventory = BTreeSet::from([Field::Inventory]);
    let run = run_case(Config::default(), case, sandbox.roots());
    let compared = compared_form(&run.reply, sandbox.roots(), &inventory);
    let listed = ["skills", "skipped"].into_iter().flat_map(|list| {
        compared["inventory"][list]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e.get("location").and_then(Value::as_str).map(str::to_owned))
            .collect::<Vec<_>>()
    });
    let mut all: BTreeSet<String> = listed.collect();
    for (n, root) in sandbox.roots().iter().enumerate() {
        let walk = walkdir::WalkDir::new(root).sort_by_file_name().into_iter();
        for entry in walk.flatten().filter(|e| e.file_name() == "SKILL.md") {
            if let Ok(rest) = entry.path().strip_prefix(root) {
                all.insert(format!("{{root{n}}}/{}", rest.display()));
            }
        }
    }
    all.into_iter().collect()
}

fn prepared(case: &CaseSpec) -> Result<Sandbox, String> {
    let sandbox = Sandbox::prepare(case, false).map_err(|e| e.to_string())?;
    match sandbox.vacuous() {
        Some(why) => Err(format!("vacuous here: {why}")),
        None => Ok(sandbox),
    }
}

fn observed(said: &Said) -> Observation {
    if said.errors.is_empty() {
        Observation::Accepts {
            warnings: said.warnings.clone(),
        }
    } else {
        Observation::Errors {
            errors: said.errors.clone(),
            warnings: said.warnings.clone(),
        }
    }
}

/// `{rootN}/rest` → `ROOT_N/rest`, relative to the case.
fn case_relative(case: &CaseSpec, location: &str) -> String {
    let parsed = location
        .strip_prefix("{root")
        .and_then(|tail| tail.split_once('}'))
        .and_then(|(n, rest)| Some((n.parse::<usize>().ok()?, rest)));
    match parsed {
        Some((n, rest)) if n < case.roots.len() => format!("{}{rest}", case.roots[n]),
        _ => location.to_owned(),
    }
}

/// Overwrites `path` with the probe text when it is a regular file (not a link: the
/// `/proc/self/mem` link stays what it is).
fn plant_probe(path: &Path) {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file()) {
        let _ = std::fs::write(path, PROBE_TEXT);
    }
}

/// Validates every directory of `validated` in `sandbox`; what was said, by path relative to
/// the sandbox, as written: the tool reads without following symlinks, so a file reached only
/// through a link is a file it did not read (it says so about the folder holding the link).
fn validate_all(
    tool: &Tool,
    home: &Path,
    sandbox: &Path,
    validated: &[String],
) -> Result<BTreeMap<String, Said>, String> {
    let mut said: BTreeMap<String, Said> = BTreeMap::new();
    let base = format!("{}/", sandbox.display());
    for dir in validated {
        let reply = tool.validate(home, &sandbox.join(dir))?;
        for (file, one) in reply_files(&reply, sandbox)? {
            let entry = said.entry(file).or_default();
            entry
                .errors
                .extend(one.errors.iter().map(|m| m.replace(&base, "{case}/")));
            entry
                .warnings
                .extend(one.warnings.iter().map(|m| m.replace(&base, "{case}/")));
        }
    }
    Ok(said)
}

/// The `contents` of a `plugin validate --json` reply: file (relative to `sandbox`) → what
/// was said. The reply's `directory` part (the plugin catalogue's submission checks: licence,
/// icon) is not about loading a skill and is left out.
fn reply_files(reply: &Value, sandbox: &Path) -> Result<Vec<(String, Said)>, String> {
    let contents = reply
        .get("contents")
        .and_then(Value::as_array)
        .ok_or("the reply has no `contents` list")?;
    let messages = |entry: &Value, key: &str| -> Vec<String> {
        let list = entry.get(key).and_then(Value::as_array);
        list.into_iter()
            .flatten()
            .filter_map(|m| m.get("message").and_then(Value::as_str))
            .map(str::to_owned)
            .collect()
    };
    contents
        .iter()
        .map(|entry| {
            let file = entry
                .get("file")
                .and_then(Value::as_str)
                .ok_or("a `contents` entry has no `file`")?;
            let rel = Path::new(file)
                .strip_prefix(sandbox)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| file.to_owned());
            let said = Said {
                errors: messages(entry, "errors"),
                warnings: messages(entry, "warnings"),
            };
            Ok((rel, said))
        })
        .collect()
}
