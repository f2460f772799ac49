//! Discovery of the `agentskills` profile's cases: `conformance-fixtures/agentskills/<group>/
//! <case>/` with a `case.toml` (`summary`, `pinned`, `rules`, optional `hazards`) and a
//! `skills/` folder whose directories are the skills the case checks. The ids are `group/case`
//! ([`CaseId`]), the same grammar as toolnexus cases.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::case::CaseId;
use crate::error::Error;

/// `case.toml` of an `agentskills` case, exactly as written.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AsManifest {
    pub summary: String,
    /// `false` only under `hazards/`: the specification does not decide the answer.
    pub pinned: bool,
    /// The `AS-` rule codes (pinned), the `ASH-` hazard id (hazard) or `prompt`.
    pub rules: Vec<String>,
    /// `ASH-` ids of the parts of a pinned case that are hazards (`ASH-PROMPT`).
    #[serde(default)]
    pub hazards: Vec<String>,
}

/// One case of the profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsCase {
    pub id: CaseId,
    /// The folder holding the case's skill directories (a fixture's `skills/`, or a real
    /// folder for `corpus`).
    pub skills: PathBuf,
    pub manifest: AsManifest,
}

impl AsCase {
    /// The folder holding the case's skill directories.
    pub(crate) fn skills_dir(&self) -> PathBuf {
        self.skills.clone()
    }
}

fn usage(path: &Path, what: impl std::fmt::Display, hint: &str) -> Error {
    Error::Usage(format!(
        "error reading `{}`: {what} (hint: {hint})",
        path.display()
    ))
}

fn sorted_dirs(dir: &Path) -> Result<Vec<(String, PathBuf)>, Error> {
    let read = std::fs::read_dir(dir).map_err(|e| {
        usage(
            dir,
            e,
            "pass --repo DIR, the directory holding conformance-fixtures/",
        )
    })?;
    let mut entries = Vec::new();
    for entry in read {
        let entry = entry.map_err(|e| usage(dir, e, "check the fixture tree"))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "README.md" {
            continue;
        }
        if !entry.path().is_dir() {
            return Err(usage(
                &entry.path(),
                "not a directory",
                "the profile's tree holds `<group>/<case>/` directories and `README.md`",
            ));
        }
        entries.push((name, entry.path()));
    }
    entries.sort();
    Ok(entries)
}

/// Every case under `fixtures` (the profile's fixture directory), sorted by id.
pub fn discover(fixtures: &Path) -> Result<Vec<AsCase>, Error> {
    let mut cases = Vec::new();
    for (group, group_dir) in sorted_dirs(fixtures)? {
        for (case, dir) in sorted_dirs(&group_dir)? {
            let id = CaseId::new(&group, &case).ok_or_else(|| {
                usage(
                    &dir,
                    "not a case name",
                    "use `[A-Za-z0-9._-]+` not starting with `.`",
                )
            })?;
            let path = dir.join(crate::case::MANIFEST);
            let text = std::fs::read_to_string(&path)
                .map_err(|e| usage(&path, e, "add a case.toml (summary, pinned, rules)"))?;
            let manifest: AsManifest = crate::toml_file::parse(&path, &text).map_err(|problem| {
                usage(
                    &path,
                    problem.what(),
                    "fields are summary, pinned, rules and hazards (conformance-fixtures/agentskills/README.md)",
                )
            })?;
            let skills = dir.join("skills");
            cases.push(AsCase {
                id,
                skills,
                manifest,
            });
        }
    }
    cases.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(cases)
}
