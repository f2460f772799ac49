//! `skill-conform corpus --profile agentskills DIR…`: every implementation of the profile over
//! real skill folders (each DIR holds skill directories), against the reference: which skills
//! each implementation rejects or accepts where the reference does not, and the rule codes it
//! gives. The folders are copied, never written. No goldens: the reference's answer is the
//! yardstick, and a difference is reported, not judged.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;
use skill_ref::agentskills::AsConfig;
use skill_ref::canonical::to_canonical_string;

use super::case::{AsCase, AsManifest};
use super::goldens::output;
use super::run::{planned_case, run_ports, PlannedAsCase, PortResult};
use crate::case::CaseId;
use crate::error::{Error, ExitCode};
use crate::port::PortRequest;

/// The `corpus/<n>` case standing for the `n`-th folder.
fn folder_case(index: usize, dir: &Path) -> Result<PlannedAsCase, Error> {
    if !dir.is_dir() {
        return Err(Error::Usage(format!(
            "`{}` is not a directory (hint: pass folders that hold skill directories)",
            dir.display()
        )));
    }
    let case = AsCase {
        id: CaseId::new("corpus", &index.to_string()).expect("a valid id"),
        skills: dir.to_path_buf(),
        manifest: AsManifest {
            summary: dir.display().to_string(),
            pinned: true,
            rules: Vec::new(),
            hazards: Vec::new(),
        },
    };
    let reference = output(&AsConfig::default(), &case)?;
    let golden: Value = serde_json::from_str(&to_canonical_string(&reference)).expect("canonical");
    planned_case(case, golden)
}

/// `verdict CODE,CODE` of one skill entry.
fn answer(skill: &Value) -> String {
    let codes: Vec<&str> = skill["violations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let verdict = skill["verdict"].as_str().unwrap_or("?");
    if codes.is_empty() {
        verdict.to_owned()
    } else {
        format!("{verdict} {}", codes.join(","))
    }
}

/// Per skill directory whose verdict differs from the reference's somewhere: every answer.
pub fn report(planned: &[PlannedAsCase], results: &[PortResult]) -> String {
    let mut out = String::new();
    let mut differing = 0;
    for planned in planned {
        let id = planned.case.id.to_string();
        let _ = writeln!(out, "{id}: {}", planned.case.manifest.summary);
        let golden = planned.golden["skills"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for (index, skill) in golden.iter().enumerate() {
            let mut answers = BTreeMap::new();
            for result in results.iter().filter(|r| r.trouble.is_none()) {
                let reply = result.replies.get(&id);
                let theirs = reply.and_then(|r| r["skills"].get(index));
                let text = match (theirs, reply.and_then(|r| r.get("error"))) {
                    (Some(theirs), _) => answer(theirs),
                    (None, Some(error)) => format!("error {error}"),
                    (None, None) => "no answer".to_owned(),
                };
                answers.insert(result.name.clone(), text);
            }
            let reference = answer(skill);
            let verdict = |a: &String| a.split(' ').next().map(str::to_owned);
            if answers.values().all(|a| verdict(a) == verdict(&reference)) {
                continue;
            }
            differing += 1;
            let dir = skill["dir"].as_str().unwrap_or("?");
            let _ = writeln!(out, "  {dir}\n    reference: {reference}");
            for (port, text) in &answers {
                let _ = writeln!(out, "    {port}: {text}");
            }
        }
    }
    out.push_str(&rejections(planned, results));
    for result in results.iter().filter(|r| r.trouble.is_some()) {
        let status = result.trouble.map(|s| s.as_str()).unwrap_or("?");
        let _ = writeln!(out, "{}: {status} — {}", result.name, result.about);
    }
    let _ = writeln!(
        out,
        "{differing} skill(s) where an implementation's verdict differs from the reference's"
    );
    out
}

/// Per implementation (the reference first): how many skills it rejects, and each with its codes.
fn rejections(planned: &[PlannedAsCase], results: &[PortResult]) -> String {
    let rejected = |replies: Vec<(&str, &Value)>| -> (usize, Vec<String>) {
        let mut total = 0;
        let mut lines = Vec::new();
        for (id, reply) in replies {
            for skill in reply["skills"].as_array().into_iter().flatten() {
                total += 1;
                if skill["verdict"] != "valid" {
                    lines.push(format!(
                        "{id}/{}: {}",
                        skill["dir"].as_str().unwrap_or("?"),
                        answer(skill)
                    ));
                }
            }
        }
        (total, lines)
    };
    let mut out = String::new();
    let reference: Vec<(&str, &Value)> = planned
        .iter()
        .map(|p| (p.case.id.as_str(), &p.golden))
        .collect();
    let mut rows = vec![("reference".to_owned(), rejected(reference))];
    for result in results.iter().filter(|r| r.trouble.is_none()) {
        let replies = result
            .replies
            .iter()
            .map(|(id, r)| (id.as_str(), r))
            .collect();
        rows.push((result.name.clone(), rejected(replies)));
    }
    for (name, (total, lines)) in rows {
        let _ = writeln!(out, "{name} rejects {} of {total}", lines.len());
        for line in lines {
            let _ = writeln!(out, "    {line}");
        }
    }
    out
}

/// Runs the corpus over `dirs` and prints the report.
pub fn corpus(repo: &Path, dirs: &[PathBuf], ports: &[PortRequest]) -> Result<ExitCode, Error> {
    let repo = &crate::plan::canonical_repo(repo)?;
    let planned: Vec<PlannedAsCase> = dirs
        .iter()
        .enumerate()
        .map(|(index, dir)| folder_case(index, dir))
        .collect::<Result<_, _>>()?;
    let results = run_ports(repo, ports, &planned)?;
    print!("{}", report(&planned, &results));
    Ok(ExitCode::Ok)
}
