//! The writing tool as a measured column: what `claude plugin validate` (Claude Code's static
//! check of a plugin's skills, not its runtime loader) says about every `SKILL.md` of every
//! case, recorded in `goldens/writing-tool.json`.
//!
//! The writing tool is not a port: it does not speak the protocol and its verdict is not a
//! loader's reply. It runs live only in `goldens --write` ([`refresh`]); everything else reads
//! the recorded file. When the tool cannot be set up, the file is kept as it is and the reason
//! printed; with no file, the column says `not measured`. One vocabulary throughout:
//! `accepts` (no error; `accepts, warns: …` with warnings), `errors: …` (the tool's messages),
//! `not seen` (the plugin layout `skills/<name>/SKILL.md` does not reach the file), and in
//! `case.toml` the expectation `writing_tool = "accepts" | "errors"`.

pub mod corpus;
mod observe;
pub mod tool;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::case::{self, CaseId, CaseSpec, WritingTool};
use crate::compare::text::visible_inline;
use crate::error::Error;
use crate::goldens::{Expected, Layout};

pub use observe::{observe_case, plugin_dirs, PROBE_TEXT};
pub use tool::{Tool, ToolSpec};

/// The file under `goldens/` holding the observations.
pub const FILE: &str = "writing-tool.json";

/// How cases are observed (validated directories, probe, keys); bump it when that changes, so
/// `goldens --write` observes every case again instead of keeping unchanged ones.
pub const OBSERVER_FORMAT: u32 = 2;

/// The column's name: what was run.
pub const COLUMN: &str = "claude plugin validate";

/// What the tool says about one `SKILL.md`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Observation {
    /// Reached, no error.
    Accepts {
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<String>,
    },
    /// Reached, at least one error.
    Errors {
        errors: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<String>,
    },
    /// The plugin layout does not reach the file.
    NotSeen,
}

impl Observation {
    /// The table cell.
    pub fn cell(&self) -> String {
        match self {
            Observation::Accepts { warnings } if warnings.is_empty() => "accepts".to_owned(),
            Observation::Accepts { warnings } => format!("accepts, warns: {}", warnings.join("; ")),
            Observation::Errors { errors, .. } => format!("errors: {}", errors.join("; ")),
            Observation::NotSeen => "not seen".to_owned(),
        }
    }
}

/// One case as the tool saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseObservation {
    /// [`fixture_fingerprint`] of the case directory observed: a fixture that changed since
    /// makes `goldens --check` fail, so the column never shows a verdict on old files.
    pub fixture: String,
    /// The directories given to the tool, relative to the case (`.` = the case folder).
    pub validated: Vec<String>,
    /// `{rootN}/…/SKILL.md` (or `{case}/…` outside every root) → what the tool says.
    pub skill_md: BTreeMap<String, Observation>,
    /// `{case}/…` → what the tool says about another path (a folder holding a symlink it did
    /// not follow, a file that is not a `SKILL.md`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub other: BTreeMap<String, Observation>,
}

/// A case observed, or why not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "kebab-case", deny_unknown_fields)]
pub enum CaseOutcome {
    Observed(CaseObservation),
    NotMeasured { reason: String },
}

/// `goldens/writing-tool.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Observations {
    /// Always [`COLUMN`].
    pub tool: String,
    /// [`OBSERVER_FORMAT`] when observed.
    pub observer: u32,
    pub package: String,
    /// What `claude --version` said.
    pub version: String,
    /// Case id (`group/case`) → outcome.
    pub cases: BTreeMap<String, CaseOutcome>,
}

impl Observations {
    /// The canonical text of the file.
    pub fn to_text(&self) -> String {
        skill_ref::canonical::to_canonical_string(self)
    }
}

/// The column as the goldens see it: recorded observations, or why there are none.
#[derive(Clone, Debug)]
pub enum Column {
    Measured(Observations),
    NotMeasured(String),
}

impl Column {
    /// Reads `goldens/writing-tool.json`.
    pub fn load(goldens: &Path) -> Column {
        let path = goldens.join(FILE);
        match std::fs::read_to_string(&path) {
            Err(_) => Column::NotMeasured(format!(
                "no goldens/{FILE} (hint: `goldens --write` where npm can install the tool)"
            )),
            Ok(text) => match serde_json::from_str(&text) {
                Ok(observations) => Column::Measured(observations),
                Err(e) => Column::NotMeasured(format!("goldens/{FILE} does not parse: {e}")),
            },
        }
    }

    fn outcome(&self, id: &CaseId) -> Result<&CaseObservation, String> {
        match self {
            Column::NotMeasured(why) => Err(why.clone()),
            Column::Measured(all) => match all.cases.get(&id.to_string()) {
                Some(CaseOutcome::Observed(seen)) => Ok(seen),
                Some(CaseOutcome::NotMeasured { reason }) => Err(reason.clone()),
                None => Err(format!("case not in goldens/{FILE}")),
            },
        }
    }

    /// The cell of one TABLE.md row; `location` is as TABLE.md shows it (invisible characters
    /// made visible), `—` for a row that names no `SKILL.md` (then: the one verdict shared by
    /// every file of the case, or `mixed`).
    pub fn cell(&self, id: &CaseId, location: &str) -> String {
        let seen = match self.outcome(id) {
            Ok(seen) => seen,
            Err(why) => return format!("not measured: {why}"),
        };
        let shown = |key: &str| visible_inline(key).replace('|', "\\|");
        if let Some((_, observation)) = seen.skill_md.iter().find(|(k, _)| shown(k) == location) {
            return observation.cell();
        }
        let mut cells: Vec<String> = seen.skill_md.values().map(Observation::cell).collect();
        cells.dedup();
        match cells.as_slice() {
            [] => "no SKILL.md".to_owned(),
            [one] if location == "—" => one.clone(),
            _ if location == "—" => format!("mixed: see goldens/{FILE}"),
            _ => "not observed".to_owned(),
        }
    }

    /// The TABLE.md section listing where the reference and the tool part ways.
    pub fn section(&self, cases: &[CaseSpec], expected: &BTreeMap<CaseId, Expected>) -> String {
        let mut out = format!("\n## Where the reference and `{COLUMN}` part ways\n\n");
        if let Column::NotMeasured(why) = self {
            let _ = writeln!(out, "Not measured: {why}.");
            return out;
        }
        out.push_str(
            "The reference skips a `SKILL.md` the tool accepts, or accepts one the tool reports\n\
             an error for. Left out: files the tool does not reach, and `duplicate-name` skips\n\
             (the tool checks each file on its own; a name taken by another file is no concern\n\
             of a static check).\n\n",
        );
        let parted = self.parted(cases, expected);
        if parted.is_empty() {
            out.push_str("Nowhere.\n");
        }
        for line in parted {
            let _ = writeln!(out, "- {line}");
        }
        out
    }

    /// One line per `SKILL.md` where the reference and the tool disagree.
    pub fn parted(&self, cases: &[CaseSpec], expected: &BTreeMap<CaseId, Expected>) -> Vec<String> {
        let mut lines = Vec::new();
        for case in cases {
            let (Ok(seen), Some(Expected::Text(text))) =
                (self.outcome(&case.id), expected.get(&case.id))
            else {
                continue;
            };
            for (location, reference) in reference_verdicts(text) {
                let part = match (&reference, seen.skill_md.get(&location)) {
                    (Some(reason), Some(tool @ Observation::Accepts { .. }))
                        if reason != DUPLICATE_NAME =>
                    {
                        format!("reference skips ({reason}), the tool {}", tool.cell())
                    }
                    (None, Some(tool @ Observation::Errors { .. })) => {
                        format!("reference accepts, the tool {}", tool.cell())
                    }
                    _ => continue,
                };
                let rules = case.rules.join(", ");
                lines.push(format!("{} `{location}` ({rules}): {part}", case.id));
            }
        }
        lines
    }
}

/// The skip reason the writing tool has no counterpart for.
pub(crate) const DUPLICATE_NAME: &str = "duplicate-name";

/// The reference's verdict per location of a golden: `None` accepted, `Some(reason)` skipped.
fn reference_verdicts(golden: &str) -> Vec<(String, Option<String>)> {
    let value: Value = serde_json::from_str(golden).unwrap_or_default();
    let text = |entry: &Value, key: &str| entry.get(key).and_then(Value::as_str).map(str::to_owned);
    let inventory = &value["inventory"];
    let accepted = inventory["skills"].as_array().into_iter().flatten();
    let skipped = inventory["skipped"].as_array().into_iter().flatten();
    accepted
        .filter_map(|e| Some((text(e, "location")?, None)))
        .chain(skipped.filter_map(|e| Some((text(e, "location")?, text(e, "reason")))))
        .collect()
}

/// What `goldens --check` finds about the writing-tool file.
#[derive(Debug, Default)]
pub struct CheckFindings {
    /// Failures: the file is broken, hand-edited, names unknown cases, or contradicts a
    /// case's `writing_tool` expectation.
    pub problems: Vec<String>,
    /// Not failures: what is not measured.
    pub notes: Vec<String>,
}

impl CheckFindings {
    pub fn render(&self) -> String {
        let mut out = String::new();
        for problem in &self.problems {
            let _ = writeln!(out, "goldens/{FILE}: {problem}");
        }
        for note in &self.notes {
            let _ = writeln!(out, "note: {COLUMN}: {note}");
        }
        out
    }
}

/// Checks `goldens/writing-tool.json` against the cases; needs no writing tool.
pub fn check(layout: &Layout, cases: &[CaseSpec]) -> CheckFindings {
    let mut findings = CheckFindings::default();
    let column = Column::load(&layout.goldens);
    let observations = match &column {
        Column::Measured(observations) => observations,
        Column::NotMeasured(why) if why.contains("does not parse") => {
            findings.problems.push(why.clone());
            return findings;
        }
        Column::NotMeasured(why) => {
            findings.notes.push(why.clone());
            return findings;
        }
    };
    let text = std::fs::read_to_string(layout.goldens.join(FILE)).unwrap_or_default();
    if text != observations.to_text() {
        findings
            .problems
            .push("not in canonical form (hint: it is generated, never hand-edited)".into());
    }
    for id in observations.cases.keys() {
        if !cases.iter().any(|case| case.id.to_string() == *id) {
            findings
                .problems
                .push(format!("observes `{id}`, which is no case"));
        }
    }
    for case in cases {
        match column.outcome(&case.id) {
            Err(why) => findings
                .notes
                .push(format!("{} not measured: {why}", case.id)),
            Ok(seen) if seen.fixture != fixture_fingerprint(&case.dir) => {
                findings.problems.push(format!(
                    "`{}` was observed on other fixture files (hint: `goldens --write` where npm can install the tool)",
                    case.id
                ))
            }
            Ok(seen) => findings.problems.extend(expectation_problem(case, seen)),
        }
    }
    findings
}

/// The fingerprint of a case directory: every entry's path, kind and bytes (a link's target
/// text), in sorted order, without following links.
pub fn fixture_fingerprint(dir: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let hex = |bytes: &[u8]| {
        bytes.iter().fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
    };
    let mut text = String::new();
    let walk = walkdir::WalkDir::new(dir).sort_by_file_name().into_iter();
    for entry in walk.flatten() {
        let rel = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        let kind = entry.file_type();
        let (tag, bytes) = if kind.is_symlink() {
            let target = std::fs::read_link(entry.path()).unwrap_or_default();
            ("link", target.as_os_str().as_bytes().to_vec())
        } else if kind.is_file() {
            ("file", std::fs::read(entry.path()).unwrap_or_default())
        } else {
            ("dir", Vec::new())
        };
        let _ = writeln!(
            text,
            "{} {tag} {}",
            hex(rel.as_os_str().as_bytes()),
            hex(&bytes)
        );
    }
    crate::judge::fingerprint(&text)
}

/// The case's `writing_tool` expectation against what was observed, if they differ.
pub fn expectation_problem(case: &CaseSpec, seen: &CaseObservation) -> Option<String> {
    let expected = case.writing_tool?;
    let errors = seen
        .skill_md
        .values()
        .find(|o| matches!(o, Observation::Errors { .. }));
    let reached = seen.skill_md.values().any(|o| *o != Observation::NotSeen);
    let holds = match expected {
        WritingTool::Accepts => reached && errors.is_none(),
        WritingTool::Errors => errors.is_some(),
    };
    if holds {
        return None;
    }
    let said = match errors {
        Some(error) => error.cell(),
        None if reached => "accepts".to_owned(),
        None => "not seen (no SKILL.md reached)".to_owned(),
    };
    Some(format!(
        "`{}` expects `writing_tool = \"{}\"`, the tool says {said} (hint: fix case.toml or the fixture)",
        case.id,
        format!("{expected:?}").to_lowercase()
    ))
}

/// `goldens --write`'s live part: sets the tool up and observes every case into
/// `goldens/writing-tool.json`; when the tool cannot be had, keeps the file and says why.
/// Returns the lines to print.
pub(crate) fn refresh(repo: &Path, layout: &Layout) -> Result<String, Error> {
    if crate::goldens::is_ci() {
        return Err(Error::Usage(
            "refusing to write goldens: `CI` is set (hint: goldens are regenerated locally and reviewed, never in CI)".into(),
        ));
    }
    refresh_in(repo, layout)
}

/// [`refresh`] without the CI guard: for a layout that is not the repository's own (tests).
pub fn refresh_in(repo: &Path, layout: &Layout) -> Result<String, Error> {
    let cases = case::discover(&layout.fixtures).map_err(|e| Error::Usage(e.to_string()))?;
    let spec = tool::read_spec(repo).map_err(Error::Usage)?;
    let kept = |why: String| {
        format!("note: {COLUMN}: not measured here ({why}); goldens/{FILE} kept as it is\n")
    };
    let program = match tool::set_up(repo, &spec) {
        Ok(program) => program,
        Err(why) => return Ok(kept(why)),
    };
    let previous = match Column::load(&layout.goldens) {
        Column::Measured(previous) => Some(previous),
        Column::NotMeasured(_) => None,
    };
    let tool = Tool::at(program);
    let (observations, reused) = match observe_all(&tool, &spec, &cases, previous.as_ref()) {
        Ok(observed) => observed,
        Err(why) => return Ok(kept(why)),
    };
    let path = layout.goldens.join(FILE);
    std::fs::write(&path, observations.to_text())
        .map_err(|e| Error::io(format!("writing `{}`", path.display()), e))?;
    Ok(format!(
        "{COLUMN}: {} {} observed {} case(s) into goldens/{FILE} ({reused} kept: same fixture, tool and observer)\n",
        observations.package,
        observations.version,
        observations.cases.len() - reused
    ))
}

/// Observes every case with `tool`; an error only when the tool itself does not run. A case
/// `previous` observed on the same fixture files, with the same tool version and
/// [`OBSERVER_FORMAT`], is kept as it was (how many is the second value); `None` observes all.
pub fn observe_all(
    tool: &Tool,
    spec: &ToolSpec,
    cases: &[CaseSpec],
    previous: Option<&Observations>,
) -> Result<(Observations, usize), String> {
    let (_home_dir, home) =
        crate::sandbox::plain_tempdir("skill-conform-claude-home-").map_err(|e| e.to_string())?;
    let version = tool.version(&home)?;
    if version != spec.version {
        return Err(format!(
            "the tool says it is {version}, adapters/ports.toml pins {}",
            spec.version
        ));
    }
    let previous = previous.filter(|p| {
        p.observer == OBSERVER_FORMAT && p.version == version && p.package == spec.package
    });
    let mut reused = 0;
    let mut observed = BTreeMap::new();
    for case in cases {
        let id = case.id.to_string();
        let kept = previous.and_then(|p| match p.cases.get(&id) {
            Some(CaseOutcome::Observed(seen)) if seen.fixture == fixture_fingerprint(&case.dir) => {
                Some(CaseOutcome::Observed(seen.clone()))
            }
            _ => None,
        });
        let outcome = match kept {
            Some(kept) => {
                reused += 1;
                kept
            }
            None => match observe_case(tool, &home, case) {
                Ok(seen) => CaseOutcome::Observed(seen),
                Err(reason) => CaseOutcome::NotMeasured { reason },
            },
        };
        observed.insert(id, outcome);
    }
    let observations = Observations {
        tool: COLUMN.to_owned(),
        observer: OBSERVER_FORMAT,
        package: spec.package.clone(),
        version,
        cases: observed,
    };
    Ok((observations, reused))
}

/// Appends the part-ways section for `cases` to a report (`summary.md`), from the committed
/// goldens and `goldens/writing-tool.json`: a run never starts the writing tool.
pub(crate) fn append_section(
    report: &Path,
    layout: &Layout,
    cases: &[CaseSpec],
) -> Result<(), Error> {
    let expected: BTreeMap<CaseId, Expected> = cases
        .iter()
        .filter_map(|case| {
            let text = std::fs::read_to_string(layout.golden_path(&case.id)).ok()?;
            Some((case.id.clone(), Expected::Text(text)))
        })
        .collect();
    let section = Column::load(&layout.goldens).section(cases, &expected);
    let io = |e| Error::io(format!("writing `{}`", report.display()), e);
    let mut text = std::fs::read_to_string(report).map_err(io)?;
    text.push_str(&section);
    std::fs::write(report, text).map_err(io)
}

/// The impact section `goldens --write` prints: where the reference and the tool part ways.
pub fn impact(layout: &Layout) -> Result<String, Error> {
    let cases = case::discover(&layout.fixtures).map_err(|e| Error::Usage(e.to_string()))?;
    let expected = crate::goldens::expected_all(&cases)?;
    Ok(Column::load(&layout.goldens).section(&cases, &expected))
}
