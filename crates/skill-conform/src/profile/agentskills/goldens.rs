//! The `agentskills` profile's goldens: `goldens/agentskills/<group>/<case>.json` (the
//! reference's canonical output for the case's `skills/` folder, prompt locations under
//! `{root0}`), `goldens/agentskills/VERSION` (golden format and profile revision) and
//! `goldens/agentskills/TABLE.md`. Written by `skill-conform goldens --write` beside the toolnexus
//! goldens, checked by `goldens --check`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use skill_ref::agentskills::{self, AsConfig, CaseOutput, Verdict};
use skill_ref::canonical::to_canonical_string;

use super::case::{discover, AsCase};
use crate::case::CaseId;
use crate::error::Error;
use crate::profile::Profile;

/// The label standing for the case's skills folder in prompt locations.
pub(crate) const ROOT_LABEL: &str = "{root0}";

/// The golden format of the profile; bump it when a golden's shape changes.
pub(crate) const FORMAT_VERSION: u32 = 1;

/// The text of `goldens/agentskills/VERSION`.
pub(crate) fn version_text() -> String {
    format!(
        "format {FORMAT_VERSION}\nprofile {}\n",
        agentskills::REVISION
    )
}

/// The reference's output for `case` under `config`.
pub fn output(config: &AsConfig, case: &AsCase) -> Result<CaseOutput, Error> {
    agentskills::run_case(config, &case.skills_dir(), ROOT_LABEL)
        .map_err(|e| Error::io(format!("reading `{}`", case.skills_dir().display()), e))
}

/// Every case with its golden text, and the files the golden tree should hold.
struct Expected {
    cases: Vec<AsCase>,
    files: BTreeMap<PathBuf, String>,
}

fn expected(repo: &Path) -> Result<Expected, Error> {
    let goldens = Profile::Agentskills.goldens(repo);
    let cases = discover(&Profile::Agentskills.fixtures(repo))?;
    let mut files = BTreeMap::new();
    let mut outputs = Vec::new();
    for case in &cases {
        let out = output(&AsConfig::default(), case)?;
        files.insert(golden_path(&goldens, &case.id), to_canonical_string(&out));
        outputs.push(out);
    }
    files.insert(goldens.join("VERSION"), version_text());
    files.insert(goldens.join("TABLE.md"), table(&cases, &outputs));
    Ok(Expected { cases, files })
}

/// The golden of a case under the profile's golden directory.
pub fn golden_path(goldens: &Path, id: &CaseId) -> PathBuf {
    goldens.join(id.group()).join(format!("{}.json", id.case()))
}

/// What is stale, missing or orphaned in `goldens/agentskills/`, one line each (paths relative
/// to `repo`); empty when fresh.
pub fn check(repo: &Path) -> Result<Vec<String>, Error> {
    let expected = expected(repo)?;
    let rel = |p: &Path| p.strip_prefix(repo).unwrap_or(p).display().to_string();
    let mut problems = Vec::new();
    for (path, text) in &expected.files {
        match fs::read_to_string(path) {
            Err(_) => problems.push(format!("missing golden: {}", rel(path))),
            Ok(old) if old != *text => problems.push(format!("stale golden: {}", rel(path))),
            Ok(_) => {}
        }
    }
    let goldens = Profile::Agentskills.goldens(repo);
    for path in crate::goldens::profile_files(&goldens, Profile::Agentskills) {
        if !expected.files.contains_key(&path) {
            problems.push(format!("orphaned golden (no such case): {}", rel(&path)));
        }
    }
    Ok(problems)
}

/// Rewrites `goldens/agentskills/` from the reference; returns one line per file changed.
pub fn write(repo: &Path) -> Result<Vec<String>, Error> {
    let expected = expected(repo)?;
    let goldens = Profile::Agentskills.goldens(repo);
    let rel = |p: &Path| p.strip_prefix(repo).unwrap_or(p).display().to_string();
    let io = |what: &str, path: &Path, e| Error::io(format!("{what} `{}`", path.display()), e);
    let mut lines = Vec::new();
    for path in crate::goldens::profile_files(&goldens, Profile::Agentskills) {
        if !expected.files.contains_key(&path) {
            fs::remove_file(&path).map_err(|e| io("removing", &path, e))?;
            lines.push(format!("removed {}", rel(&path)));
        }
    }
    for (path, text) in &expected.files {
        let old = fs::read_to_string(path).ok();
        if old.as_deref() == Some(text.as_str()) {
            continue;
        }
        fs::create_dir_all(path.parent().expect("a golden has a parent"))
            .map_err(|e| io("creating", path, e))?;
        fs::write(path, text).map_err(|e| io("writing", path, e))?;
        let verb = if old.is_some() { "changed" } else { "added  " };
        lines.push(format!("{verb} {}", rel(path)));
    }
    lines.push(format!(
        "agentskills: {} case(s), {} file(s) changed",
        expected.cases.len(),
        lines.len()
    ));
    Ok(lines)
}

/// `goldens/agentskills/TABLE.md`: one row per skill directory of every case.
pub fn table(cases: &[AsCase], outputs: &[CaseOutput]) -> String {
    let mut out = String::from(
        "# Goldens of the agentskills profile: what the reference says about every fixture\n\n\
         Generated by `skill-conform goldens --write`; never edit by hand. One row per skill\n\
         directory. *Pinned* cases are decided by the Agent Skills specification; the others are\n\
         hazards (crates/skill-ref/AGENTSKILLS.md), where implementations may differ.\n\n\
         | case | pinned | directory | verdict | rule codes | unknown fields |\n\
         |---|---|---|---|---|---|\n",
    );
    for (case, output) in cases.iter().zip(outputs) {
        let pinned = if case.manifest.pinned { "yes" } else { "no" };
        for skill in &output.skills {
            let verdict = match skill.report.verdict {
                Verdict::Valid => "valid",
                Verdict::Invalid => "invalid",
            };
            let codes: Vec<&str> = skill.report.violations.iter().map(|r| r.code()).collect();
            let _ = writeln!(
                out,
                "| {} | {pinned} | `{}` | {verdict} | {} | {} |",
                case.id,
                crate::compare::text::visible_inline(&skill.dir).replace('|', "\\|"),
                codes.join(", "),
                skill.report.unknown_fields.join(", ")
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_removes_orphans_and_then_check_is_clean() {
        let dir = crate::test_tempdir::tempdir();
        let case = dir.path().join("conformance-fixtures/agentskills/g/c");
        fs::create_dir_all(case.join("skills/c")).unwrap();
        fs::write(
            case.join("case.toml"),
            "summary = \"s\"\npinned = true\nrules = [\"prompt\"]\n",
        )
        .unwrap();
        fs::write(
            case.join("skills/c/SKILL.md"),
            "---\nname: c\ndescription: d\n---\n",
        )
        .unwrap();
        let orphan = dir.path().join("goldens/agentskills/g/gone.json");
        fs::create_dir_all(orphan.parent().unwrap()).unwrap();
        fs::write(&orphan, "{}").unwrap();
        assert!(
            check(dir.path()).unwrap().len() >= 3,
            "missing golden, table, version, orphan"
        );
        write(dir.path()).unwrap();
        assert!(!orphan.exists());
        assert_eq!(check(dir.path()).unwrap(), Vec::<String>::new());
        let golden = fs::read_to_string(dir.path().join("goldens/agentskills/g/c.json")).unwrap();
        assert!(golden.contains("\"verdict\": \"valid\""), "{golden}");
    }
}
