//! `skill-conform run --profile agentskills`: every implementation of the profile (the ports of
//! `adapters/ports.toml` with `profile = "agentskills"`) over every case of the profile, each
//! case in a fresh copy of its `skills/` folder, judged part by part ([`super::judge`]) and
//! printed as one matrix.
//!
//! A port is `unavailable` when its toolchain or package is missing, `broken` when it does not
//! start or its `hello` does not name the profile; a declared divergence of its `expected.toml`
//! turns a `fail` or `gap` into `expected-fail`, and an entry whose case now passes is an
//! `unexpected-pass`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;
use skill_ref::agentskills::Verdict;

use super::case::{discover, AsCase};
use super::goldens::{golden_path, output};
use super::judge::{judge, CaseFacts, CaseJudgement};
use crate::error::{Error, ExitCode};
use crate::judge::expected::{find_entry, read_expected};
use crate::judge::Status;
use crate::port::{self, PortRequest, Resolved};
use crate::profile::Profile;
use crate::session::{ProfileRun, RunRequest, Session, Timeouts};

/// One case of the profile, ready to send.
pub struct PlannedAsCase {
    pub case: AsCase,
    pub golden: Value,
    /// Every skill directory, and the valid ones (the prompt's).
    pub skills: Vec<String>,
    pub prompt: Vec<String>,
}

impl PlannedAsCase {
    /// `yes` or `no`: the pinned column of the matrix and the tables.
    pub(crate) fn pinned_word(&self) -> &'static str {
        if self.case.manifest.pinned {
            "yes"
        } else {
            "no"
        }
    }
}

/// What happened to one port.
pub struct PortResult {
    pub name: String,
    /// `library version` from `hello`, or why the port could not run.
    pub about: String,
    /// `None`: the port never ran a case (unavailable or broken, with `about` saying why).
    pub trouble: Option<Status>,
    pub cases: BTreeMap<String, CaseJudgement>,
    /// The replies as the adapter wrote them, by case id (for `corpus`).
    pub replies: BTreeMap<String, Value>,
}

impl PortResult {
    /// The matrix cell of case `id`: the port's trouble, else the case's status, else `—`.
    pub fn cell(&self, id: &str) -> &'static str {
        match (self.trouble, self.cases.get(id)) {
            (Some(status), _) => status.words().cell,
            (None, Some(judgement)) => judgement.status.words().cell,
            (None, None) => "—",
        }
    }
}

/// Every case of the profile with its golden.
pub fn plan(repo: &Path, case_globs: &[String]) -> Result<Vec<PlannedAsCase>, Error> {
    let goldens = Profile::Agentskills.goldens(repo);
    let mut planned = Vec::new();
    for case in discover(&Profile::Agentskills.fixtures(repo))? {
        let id = case.id.as_str();
        if !case_globs.is_empty() && !case_globs.iter().any(|g| glob_matches(g, id)) {
            continue;
        }
        let path = golden_path(&goldens, &case.id);
        let golden: Value = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .ok_or_else(|| {
                Error::Usage(format!(
                    "missing golden `{}` (hint: run `skill-conform goldens --write`)",
                    path.display()
                ))
            })?;
        planned.push(planned_case(case, golden)?);
    }
    Ok(planned)
}

/// A case with its golden, the directories to check and the prompt's (the reference's valid
/// ones).
pub(crate) fn planned_case(case: AsCase, golden: Value) -> Result<PlannedAsCase, Error> {
    let reference = output(&skill_ref::agentskills::AsConfig::default(), &case)?;
    let skills = reference.skills.iter().map(|s| s.dir.clone()).collect();
    let prompt = reference
        .skills
        .iter()
        .filter(|s| s.report.verdict == Verdict::Valid)
        .map(|s| s.dir.clone())
        .collect();
    Ok(PlannedAsCase {
        case,
        golden,
        skills,
        prompt,
    })
}

fn glob_matches(glob: &str, id: &str) -> bool {
    crate::case::case_glob(glob).is_ok_and(|m| m.is_match(id))
}

/// Copies the case's skills folder into `into`: directories and regular files, links
/// followed; anything else (sockets, dangling links) is left out.
fn copy_tree(from: &Path, into: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(into)?;
    let mut entries: Vec<_> = std::fs::read_dir(from)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let (path, target) = (entry.path(), into.join(entry.file_name()));
        if path.is_dir() {
            copy_tree(&path, &target)?;
        } else if path.is_file() {
            std::fs::copy(&path, &target)?;
        }
    }
    Ok(())
}

/// The `run` request of a planned case over the root `root`.
pub fn request(planned: &PlannedAsCase, root: String) -> RunRequest {
    RunRequest {
        case: planned.case.id.to_string(),
        roots: vec![root],
        sample_limit: 0,
        filter: BTreeMap::new(),
        load: Vec::new(),
        tool: false,
        profile: Some(ProfileRun {
            profile: Profile::Agentskills,
            skills: planned.skills.clone(),
            prompt: planned.prompt.clone(),
        }),
    }
}

/// Runs one case in a fresh copy; the judgement, or the fault's status.
fn run_case(
    session: &mut Session,
    planned: &PlannedAsCase,
    offered: &BTreeSet<String>,
) -> Result<(CaseJudgement, Option<Value>), Error> {
    let sandbox = tempfile::Builder::new()
        .prefix("sc-as-")
        .tempdir()
        .map_err(|e| Error::io("creating a sandbox", e))?;
    let root = std::fs::canonicalize(sandbox.path())
        .map_err(|e| Error::io("creating a sandbox", e))?
        .join("root0");
    copy_tree(&planned.case.skills_dir(), &root)
        .map_err(|e| Error::io(format!("copying `{}`", planned.case.id), e))?;
    let root = root.display().to_string();
    let manifest = &planned.case.manifest;
    let facts = CaseFacts {
        pinned: manifest.pinned,
        root: &root,
    };
    Ok(match session.run(&request(planned, root.clone())) {
        Ok(reply) => (
            judge(&planned.golden, &reply, offered, facts),
            Some(reply.clone()),
        ),
        Err(evidence) => {
            let judgement = CaseJudgement {
                status: Status::of_fault(evidence.fault.kind(), evidence.phase),
                differences: vec![format!("{:?}", evidence.fault)],
                prompt: super::judge::Part::NotOffered,
                not_offered: Vec::new(),
            };
            (judgement, None)
        }
    })
}

/// The capabilities `hello` offers for the profile; `None` when it does not speak it.
fn offered(session: &Session) -> Option<BTreeSet<String>> {
    let profiles = session.hello().profiles.as_ref()?;
    Some(
        profiles
            .get(&Profile::Agentskills)?
            .iter()
            .cloned()
            .collect(),
    )
}

/// Runs the profile's smoke pair (when planned): each reply must be a reply of the profile's
/// shape, one `skills` entry per directory asked, in order; `Some(why)` when one is not.
fn smoke(
    session: &mut Session,
    planned: &[PlannedAsCase],
    offered: &BTreeSet<String>,
) -> Result<Option<String>, Error> {
    let pair = Profile::Agentskills.smoke_pair().unwrap_or_default();
    for case in planned
        .iter()
        .filter(|p| pair.contains(&p.case.id.as_str()))
    {
        let (judgement, reply) = run_case(session, case, offered)?;
        let dirs: Option<Vec<&str>> = reply.as_ref().and_then(|r| {
            let skills = r.get("skills")?.as_array()?;
            skills.iter().map(|s| s.get("dir")?.as_str()).collect()
        });
        if dirs != Some(case.skills.iter().map(String::as_str).collect()) {
            let what = judgement.differences.first().cloned().unwrap_or_default();
            return Ok(Some(format!("{}: {what}", case.case.id)));
        }
    }
    Ok(None)
}

/// Resolves, starts and runs one port over every planned case.
pub(crate) fn run_port(
    repo: &Path,
    request: &PortRequest,
    specs: &BTreeMap<String, port::PortSpec>,
    planned: &[PlannedAsCase],
) -> Result<PortResult, Error> {
    let home = tempfile::tempdir().map_err(|e| Error::io("creating a home", e))?;
    let name = request.name().to_owned();
    let mut result = PortResult {
        name: name.clone(),
        about: String::new(),
        trouble: None,
        cases: BTreeMap::new(),
        replies: BTreeMap::new(),
    };
    let command = match port::resolve(request, specs, repo, home.path()) {
        Resolved::Ready { command, .. } => command,
        Resolved::Unavailable { reason, .. } => {
            result.trouble = Some(Status::Unavailable);
            result.about = reason;
            return Ok(result);
        }
    };
    let mut session = match Session::start(command, Timeouts::default()) {
        Ok(session) => session,
        Err(evidence) => {
            result.trouble = Some(Status::Broken);
            result.about = format!("the adapter did not start: {:?}", evidence.fault);
            return Ok(result);
        }
    };
    let hello = session.hello();
    result.about = format!("{} {}", hello.library, hello.version);
    let Some(offered) = offered(&session) else {
        result.trouble = Some(Status::Broken);
        result.about = format!("{}: hello names no `agentskills` profile", result.about);
        return Ok(result);
    };
    if let Some(problem) = smoke(&mut session, planned, &offered)? {
        result.trouble = Some(Status::Broken);
        result.about = format!("{}: smoke pair: {problem}", result.about);
        let _ = session.close();
        return Ok(result);
    }
    let entries = read_expected(&repo.join("adapters").join(&name).join("expected.toml"))
        .map_err(|e| Error::Usage(e.to_string()))?;
    let version = session.hello().version.clone();
    for planned in planned {
        let (mut judgement, reply) = run_case(&mut session, planned, &offered)?;
        if let Some(reply) = reply {
            result.replies.insert(planned.case.id.to_string(), reply);
        }
        if let Some(_entry) = find_entry(&entries, &planned.case.id, Some(&version)) {
            judgement.status = match judgement.status {
                Status::Fail | Status::Gap | Status::Error => Status::ExpectedFail,
                Status::Pass => Status::UnexpectedPass,
                other => other,
            };
        }
        result.cases.insert(planned.case.id.to_string(), judgement);
    }
    let _ = session.close();
    Ok(result)
}

/// `run --profile agentskills`: the ports asked for (all of the profile's when none), the
/// matrix on stdout, and the exit code.
/// With `write_table`, also writes [`super::table::FILE`] (only over every case).
pub fn run(
    repo: &Path,
    ports: &[PortRequest],
    case_globs: &[String],
    write_table: bool,
) -> Result<ExitCode, Error> {
    if write_table && !case_globs.is_empty() {
        return Err(Error::Usage(
            "--write-table runs every case (hint: drop --case)".to_owned(),
        ));
    }
    // Absolute: set-up and adapters start in their own directories, never the repository.
    let repo = &crate::plan::canonical_repo(repo)?;
    let planned = plan(repo, case_globs)?;
    let results = run_ports(repo, ports, &planned)?;
    print!("{}", matrix(&planned, &results));
    if write_table {
        write_tables(repo, &planned, &results)?;
    }
    Ok(exit_code(&planned, &results))
}

/// Writes the implementations page and the README's summary table.
fn write_tables(
    repo: &Path,
    planned: &[PlannedAsCase],
    results: &[PortResult],
) -> Result<(), Error> {
    use super::table;
    let io = |path: &Path, e| Error::io(format!("writing `{}`", path.display()), e);
    let page = repo.join(table::FILE);
    std::fs::write(&page, table::render(planned, results)).map_err(|e| io(&page, e))?;
    let readme_path = repo.join("README.md");
    let readme = std::fs::read_to_string(&readme_path).map_err(|e| io(&readme_path, e))?;
    let spliced =
        table::splice_readme(&readme, &table::summary(planned, results)).ok_or_else(|| {
            Error::Usage(format!(
                "README.md has no `{}` … `{}` block (hint: add the two lines where the table goes)",
                table::README_START,
                table::README_END
            ))
        })?;
    std::fs::write(&readme_path, spliced).map_err(|e| io(&readme_path, e))?;
    println!("wrote {} and the table in README.md", table::FILE);
    Ok(())
}

/// Runs the ports asked for (every port of the profile when none) over `planned`.
pub(crate) fn run_ports(
    repo: &Path,
    ports: &[PortRequest],
    planned: &[PlannedAsCase],
) -> Result<Vec<PortResult>, Error> {
    let specs = port::read_profile_ports(repo, Profile::Agentskills)?;
    let requests: Vec<PortRequest> = if ports.is_empty() {
        let names = specs.keys();
        names
            .map(|n| PortRequest::parse_port(n).expect("a port name"))
            .collect()
    } else {
        ports.to_vec()
    };
    for request in &requests {
        port::check_known(request, &specs)?;
    }
    requests
        .iter()
        .map(|request| run_port(repo, request, &specs, planned))
        .collect()
}

/// 0 as expected, 1 a failing verdict, 3 a broken port.
pub fn exit_code(planned: &[PlannedAsCase], results: &[PortResult]) -> ExitCode {
    if results.iter().any(|r| r.trouble == Some(Status::Broken)) {
        return ExitCode::PortTrouble;
    }
    let pinned: BTreeMap<String, bool> = planned
        .iter()
        .map(|p| (p.case.id.to_string(), p.case.manifest.pinned))
        .collect();
    let failed = results
        .iter()
        .flat_map(|r| &r.cases)
        .any(|(id, j)| j.status.is_failure(pinned.get(id).copied().unwrap_or(true)));
    if failed {
        ExitCode::Divergence
    } else {
        ExitCode::Ok
    }
}

/// The terminal matrix: one row per case, one column per port, then one line per port.
pub fn matrix(planned: &[PlannedAsCase], results: &[PortResult]) -> String {
    let width = planned
        .iter()
        .map(|p| p.case.id.as_str().len())
        .max()
        .unwrap_or(4);
    let mut out = format!("{:width$}  pinned", "case");
    for result in results {
        let _ = write!(out, "  {:>14}", result.name);
    }
    out.push('\n');
    for planned in planned {
        let id = planned.case.id.to_string();
        let pinned = planned.pinned_word();
        let _ = write!(out, "{id:width$}  {pinned:>6}");
        for result in results {
            let _ = write!(out, "  {:>14}", result.cell(&id));
        }
        out.push('\n');
    }
    out.push('\n');
    for result in results {
        out.push_str(&port_line(planned, result));
    }
    out.push_str(&failures(planned, results));
    out
}

/// One block per failing verdict: the port, the case and what differed.
fn failures(planned: &[PlannedAsCase], results: &[PortResult]) -> String {
    let mut out = String::new();
    for result in results {
        for planned in planned {
            let id = planned.case.id.as_str();
            let Some(judgement) = result.cases.get(id) else {
                continue;
            };
            if !judgement.status.is_failure(planned.case.manifest.pinned) {
                continue;
            }
            let _ = writeln!(out, "\n{} {id}: {}", result.name, judgement.status.as_str());
            for line in &judgement.differences {
                let _ = writeln!(out, "    {line}");
            }
        }
    }
    out
}

fn port_line(planned: &[PlannedAsCase], result: &PortResult) -> String {
    if let Some(status) = result.trouble {
        return format!("{}: {} — {}\n", result.name, status.as_str(), result.about);
    }
    let pinned_total = planned.iter().filter(|p| p.case.manifest.pinned).count();
    let pinned_passes = planned
        .iter()
        .filter(|p| p.case.manifest.pinned)
        .filter(|p| {
            result
                .cases
                .get(p.case.id.as_str())
                .is_some_and(|j| j.status == Status::Pass)
        })
        .count();
    let not_offered: BTreeSet<&str> = result
        .cases
        .values()
        .flat_map(|j| j.not_offered.iter().copied())
        .collect();
    let prompt_differs = result
        .cases
        .values()
        .filter(|j| matches!(j.prompt, super::judge::Part::Differs(_)))
        .count();
    let mut line = format!(
        "{} ({}): {pinned_passes}/{pinned_total} pinned pass; prompt differs on {prompt_differs} case(s) (ASH-PROMPT)",
        result.name, result.about
    );
    if !not_offered.is_empty() {
        let list: Vec<&str> = not_offered.into_iter().collect();
        let _ = write!(line, "; not offered: {}", list.join(", "));
    }
    line.push('\n');
    line
}

/// Where the profile's fixtures live, for messages.
pub fn fixtures(repo: &Path) -> PathBuf {
    Profile::Agentskills.fixtures(repo)
}
