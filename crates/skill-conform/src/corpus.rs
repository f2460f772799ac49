//! `skill-conform corpus`: the reference and every selected port over a real skills folder, with
//! no goldens, reporting only where they disagree.
//!
//! The folder is read **in place**: no sandbox copy, nothing written under it (adapters get a
//! temporary `HOME`, the reports go to `--report-dir`). Each port gets exactly one `run`
//! request: `roots` = the given folders made absolute but *not* canonicalised (symlinks stay as
//! the user spelled them), sample limit 0, no filter, and `load` = every name the reference
//! accepts in code-point order, then `no-such-skill`. The reference runs in process; the
//! ports run concurrently, one adapter session each ([`crate::port::resolve`],
//! [`crate::session::Session`]). Replies are normalised as in the suite
//! ([`crate::normalize`]): roots become `{root0}`, `{root1}` …, inventory lists are sorted,
//! `detail` is dropped.
//!
//! [`analyse`] is a pure function from the normalised replies to a [`CorpusReport`]:
//!
//! - **disagreements** — every `SKILL.md` location where the ports' verdicts (accepted with
//!   name and description / skipped with reason / not listed) are not all the same;
//! - **duplicates** — every accepted name whose winning copy is not the same for every port;
//! - **clusters** — ports (the reference included) with byte-identical normalised inventories,
//!   the reference's first, with per-port counts `N ok / M skipped {reason: count}`;
//! - **loads and prompt** — per port, the loads and the prompt that differ from the
//!   reference's, each with its first differing line.
//!
//! The same report is printed ([`render_markdown`], with at most [`TERMINAL_ROWS`] locations on
//! the terminal — a location the reference accepts and some port does not is always shown)
//! and written as `corpus.md` and canonical `corpus.json`. Ports that are unavailable, or that
//! did not start, crashed, hung or answered with an error, are listed with their reason, never
//! silently dropped. Exit 0, or 1 with `--fail-on-disagreement` when a port disagrees with the
//! reference — an unavailable port does not count, a port that failed to answer does; a
//! missing folder is a usage error (exit 2).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use skill_ref::canonical::to_canonical_string;

use crate::case::Field;
use crate::compare::text::{visible_inline, visible_line};
use crate::error::{Error, ExitCode};
use crate::judge::{fingerprint, stderr_text, FaultDetails, PortKind};
use crate::normalize::normalize;
use crate::observe::{start_port, ObserveOptions, PortTrouble, Started};
use crate::port::{self, PortRequest, Resolved, REFERENCE};
use crate::reference::{run_reference, LoadList, UNKNOWN_SKILL};
use crate::session::{HelloReply, RunRequest, Timeouts};

/// The version of `corpus.json`'s shape.
pub const FORMAT: u32 = 1;

/// The `case` id of the one request each port gets.
pub const CASE_ID: &str = "corpus/run";

/// How many disagreeing locations the terminal shows (`corpus.md` has them all); locations
/// the reference accepts and a port does not are shown beyond it.
pub const TERMINAL_ROWS: usize = 100;

/// How many differing loads a port's entry shows (`corpus.json` has them all).
pub const SHOWN_LOADS: usize = 5;

/// The longest line a first difference keeps, in characters.
pub const LINE_CHARS: usize = 160;

/// Everything `corpus` was asked.
#[derive(Clone, Debug, Default)]
pub struct CorpusOptions {
    pub repo: PathBuf,
    /// The skills folders, in order (become `{root0}`, `{root1}`, …).
    pub dirs: Vec<PathBuf>,
    /// Ports to run beside the reference; empty = every port in `adapters/ports.toml`.
    pub ports: Vec<PortRequest>,
    pub report_dir: Option<PathBuf>,
    pub fail_on_disagreement: bool,
    pub timeouts: Timeouts,
}

/// What one port did with the request, before analysis.
#[derive(Clone, Debug)]
pub enum PortRun {
    /// Toolchain or package missing.
    Unavailable { reason: String },
    /// The adapter did not start, or failed the smoke pair.
    Broken {
        /// What went wrong, in words.
        what: String,
        /// The process's fault, when there was one (a wrong smoke reply has none).
        fault: Option<FaultDetails>,
        stderr_tail: Option<String>,
    },
    /// It crashed, hung or broke the protocol on the request.
    Fault {
        fault: FaultDetails,
        stderr_tail: Option<String>,
    },
    /// It answered with `error`.
    Error { message: String },
    /// It answered; the reply normalised (roots redacted, lists sorted, `detail` dropped).
    Reply { normalized: Value },
}

/// One column: a port (or the reference) and what it did.
#[derive(Clone, Debug)]
pub struct PortResult {
    pub name: String,
    pub hello: Option<HelloReply>,
    pub run: PortRun,
}

/// The state of a port in the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PortState {
    Ok,
    Unavailable,
    Broken,
    Fault,
    Error,
}

/// One port's line of the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PortSummary {
    pub kind: PortKind,
    pub state: PortState,
    /// Why it is unavailable, or the adapter's error message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// Further libraries the hello names (the YAML parser), with their versions.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub libraries: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<FaultDetails>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
    /// 1-based index into [`CorpusReport::clusters`] (ports that answered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accepted: Option<usize>,
    /// Skips by reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<BTreeMap<String, usize>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loads: Option<LoadsSummary>,
    /// The prompt's first difference from the reference's (absent when equal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_difference: Option<FirstDifference>,
    /// Same inventory cluster, loads and prompt as the reference (`None`: unavailable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agrees_with_reference: Option<bool>,
}

/// How a port's loads compare with the reference's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoadsSummary {
    /// Loads the port returned.
    pub count: usize,
    /// Every load that differs, in request order.
    pub differences: Vec<LoadDifference>,
}

/// One load that differs from the reference's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoadDifference {
    /// The requested name.
    pub name: String,
    /// The first field that differs: `name`, `isError`, `output`, or `load` (one side has no
    /// load at this position).
    pub field: String,
    pub at: FirstDifference,
}

/// The first line where two texts differ.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FirstDifference {
    /// 1-based.
    pub line: usize,
    /// The reference's line (cut to [`LINE_CHARS`]); absent when its text ends earlier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The port's line; absent when its text ends earlier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
}

/// Ports whose normalised inventories are byte-identical.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InventoryCluster {
    /// In display order (reference, real ports, mutants; each by name).
    pub ports: Vec<String>,
    pub matches_reference: bool,
    /// [`fingerprint`] of the canonical inventory.
    pub fingerprint: String,
}

/// What one port says about one `SKILL.md` location.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum LocationVerdict {
    Accepted { name: Value, description: Value },
    Skipped { reason: Value },
}

/// A location the ports disagree about.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LocationRow {
    /// Redacted (`{root0}/…/SKILL.md`).
    pub location: String,
    /// The reference accepts it and some port does not: always shown.
    pub reference_accepts_port_drops: bool,
    /// Per answering port, its entries for the location (empty: not listed).
    pub verdicts: BTreeMap<String, Vec<LocationVerdict>>,
}

/// An accepted name whose winning copy differs between ports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DuplicateRow {
    pub name: String,
    /// Per answering port, the locations it accepted the name at (empty: not accepted).
    pub winners: BTreeMap<String, Vec<String>>,
}

/// Everything `corpus` found: `corpus.json` is this, canonical.
///
/// Format policy (as for `report.json`): `format` names the shape of this file. Fields added
/// later (optional, or with a default) do not bump it; renaming, removing or retyping a field
/// does. Readers accept the current format and the previous one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CorpusReport {
    pub format: u32,
    /// The roots as requested (absolute, not canonicalised): `{rootN}` is `roots[N]`.
    pub roots: Vec<String>,
    /// How many names each port loaded.
    pub load_count: usize,
    pub ports: BTreeMap<String, PortSummary>,
    pub clusters: Vec<InventoryCluster>,
    /// In location order.
    pub disagreements: Vec<LocationRow>,
    /// In name order.
    pub duplicates: Vec<DuplicateRow>,
    /// Every port that ran agrees with the reference.
    pub agreement: bool,
}

impl CorpusReport {
    /// Ports in display order: reference, real ports, mutants, each by name.
    pub fn port_order(&self) -> Vec<&str> {
        display_order(self.ports.iter().map(|(name, s)| (name.as_str(), s.kind)))
    }

    /// Ports that ran and disagree with the reference, in display order.
    pub fn disagreeing(&self) -> Vec<&str> {
        self.port_order()
            .into_iter()
            .filter(|port| self.ports[*port].agrees_with_reference == Some(false))
            .collect()
    }
}

fn display_order<'a>(ports: impl Iterator<Item = (&'a str, PortKind)>) -> Vec<&'a str> {
    let mut ports: Vec<(&str, PortKind)> = ports.collect();
    ports.sort_by_key(|(name, kind)| (*kind, *name));
    ports.into_iter().map(|(name, _)| name).collect()
}

/// Runs corpus mode and returns the exit code (see the module doc).
pub fn corpus(options: CorpusOptions) -> Result<ExitCode, Error> {
    let repo = std::fs::canonicalize(&options.repo).map_err(|e| {
        Error::Usage(format!(
            "repository `{}`: {e} (hint: pass --repo DIR)",
            options.repo.display()
        ))
    })?;
    let roots = absolute_roots(&options.dirs)?;
    let specs = port::read_ports(&repo)?;
    let mut requests: Vec<PortRequest> = if options.ports.is_empty() {
        specs
            .keys()
            .map(|name| PortRequest::Named {
                name: name.clone(),
                version: None,
                path: None,
            })
            .collect()
    } else {
        options.ports.clone()
    };
    // The reference is always its own column.
    requests
        .retain(|request| !matches!(request, PortRequest::Named { name, .. } if name == REFERENCE));
    let mut seen = BTreeSet::from([REFERENCE.to_owned()]);
    for request in &requests {
        port::check_known(request, &specs)?;
        if !seen.insert(request.name().to_owned()) {
            return Err(Error::Usage(format!(
                "port `{}` is selected twice",
                request.name()
            )));
        }
    }

    let root_paths: Vec<PathBuf> = roots.iter().map(PathBuf::from).collect();
    let reference = run_reference(
        skill_ref::Config::default(),
        &root_paths,
        0,
        &BTreeMap::new(),
        &LoadList::AcceptedThen(vec![UNKNOWN_SKILL.to_owned()]),
        false,
        Path::new("/"),
    )
    .expect("sample limit 0 is valid");
    let request = RunRequest {
        case: CASE_ID.to_owned(),
        roots: roots.clone(),
        sample_limit: 0,
        filter: BTreeMap::new(),
        load: reference
            .output
            .loads
            .iter()
            .map(|l| l.name.clone())
            .collect(),
        tool: false,
    };
    let reference_raw = serde_json::to_value(&reference.output).expect("the output serialises");
    let mut results = vec![PortResult {
        name: REFERENCE.to_owned(),
        hello: Some(crate::reference::hello(REFERENCE)),
        run: PortRun::Reply {
            normalized: normalize(&reference_raw, &roots, &Field::default_set()),
        },
    }];

    let home = crate::sandbox::plain_tempdir("skill-conform-home-")
        .map_err(|e| Error::Usage(e.to_string()))?;
    let ports: Vec<PortResult> = std::thread::scope(|scope| {
        let handles: Vec<_> = requests
            .iter()
            .map(|port_request| {
                let (specs, repo, home, request, timeouts) =
                    (&specs, &repo, &home.1, &request, options.timeouts);
                scope.spawn(move || {
                    let resolved = port::resolve(port_request, specs, repo, home);
                    run_port(resolved, request, timeouts)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a port worker does not panic"))
            .collect()
    });
    results.extend(ports);

    let report = analyse(roots, request.load.len(), results);
    print!("{}", render_markdown(&report, Some(TERMINAL_ROWS)));
    let report_dir = options.report_dir.unwrap_or_else(|| repo.join("reports"));
    write_report(&report, &report_dir)
        .map_err(|e| Error::io(format!("writing reports to `{}`", report_dir.display()), e))?;
    println!(
        "\nreports written to {}",
        report_dir.join("corpus.md").display()
    );
    Ok(if options.fail_on_disagreement && !report.agreement {
        ExitCode::Divergence
    } else {
        ExitCode::Ok
    })
}

/// The folders as absolute roots, in order: relative ones joined to the working directory,
/// `.` components dropped, symlinks kept. A folder that is not a directory is a usage error.
pub fn absolute_roots(dirs: &[PathBuf]) -> Result<Vec<String>, Error> {
    if dirs.is_empty() {
        return Err(Error::Usage("give at least one skills folder".to_owned()));
    }
    dirs.iter()
        .map(|dir| {
            if !dir.is_dir() {
                return Err(Error::MissingRoot(dir.clone()));
            }
            let absolute = std::path::absolute(dir)
                .map_err(|e| Error::io(format!("making `{}` absolute", dir.display()), e))?;
            let text = absolute.to_str().ok_or_else(|| {
                Error::Usage(format!("`{}` is not valid UTF-8", absolute.display()))
            })?;
            // `absolute` keeps a trailing separator; a root never has one.
            let trimmed = text.trim_end_matches('/');
            Ok(if trimmed.is_empty() { "/" } else { trimmed }.to_owned())
        })
        .collect()
}

/// Starts one port (spawn, handshake, the smoke pair, as `run` does), sends the request,
/// closes it.
fn run_port(resolved: Resolved, request: &RunRequest, timeouts: Timeouts) -> PortResult {
    let options = ObserveOptions {
        timeouts,
        keep_sandbox: false,
    };
    let (mut session, observation) = match start_port(resolved, &options) {
        Started::Ready {
            session,
            observation,
        } => (session, observation),
        Started::Done(observation) => {
            let run = match observation.trouble {
                Some(PortTrouble::Unavailable(reason)) => PortRun::Unavailable { reason },
                Some(PortTrouble::Broken { what, evidence, .. }) => PortRun::Broken {
                    what,
                    fault: evidence.as_deref().map(FaultDetails::from),
                    stderr_tail: evidence
                        .as_deref()
                        .and_then(|evidence| stderr_text(&evidence.stderr_tail)),
                },
                None => PortRun::Broken {
                    what: "the adapter stopped before its first request".to_owned(),
                    fault: None,
                    stderr_tail: None,
                },
            };
            return PortResult {
                name: observation.name,
                hello: observation.hello,
                run,
            };
        }
    };
    let run = match session.run(request) {
        Err(evidence) => PortRun::Fault {
            fault: FaultDetails::from(&evidence),
            stderr_tail: stderr_text(&evidence.stderr_tail),
        },
        Ok(reply) => match reply.get("error") {
            Some(error) => PortRun::Error {
                message: error
                    .as_str()
                    .map_or_else(|| to_canonical_string(error), str::to_owned),
            },
            None => PortRun::Reply {
                normalized: normalize(&reply, &request.roots, &Field::default_set()),
            },
        },
    };
    let _ = session.close();
    PortResult {
        name: observation.name,
        hello: observation.hello,
        run,
    }
}

/// One answering port's normalised reply, taken apart.
struct View<'a> {
    locations: BTreeMap<String, Vec<LocationVerdict>>,
    /// Accepted name -> locations.
    names: BTreeMap<String, Vec<String>>,
    accepted: usize,
    skipped: BTreeMap<String, usize>,
    inventory: String,
    loads: &'a [Value],
    prompt: Option<&'a Value>,
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => to_canonical_string(other).trim_end().to_owned(),
    }
}

fn view(normalized: &Value) -> View<'_> {
    let list = |key: &str| -> &[Value] {
        normalized
            .pointer(&format!("/inventory/{key}"))
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    };
    let location_of = |entry: &Value| {
        entry
            .get("location")
            .map_or_else(|| "(no location)".to_owned(), text_of)
    };
    let mut out = View {
        locations: BTreeMap::new(),
        names: BTreeMap::new(),
        accepted: 0,
        skipped: BTreeMap::new(),
        inventory: normalized
            .get("inventory")
            .map(to_canonical_string)
            .unwrap_or_default(),
        loads: normalized
            .get("loads")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice),
        prompt: normalized.get("prompt"),
    };
    for entry in list("skills") {
        let location = location_of(entry);
        let name = entry.get("name").cloned().unwrap_or(Value::Null);
        out.accepted += 1;
        out.names
            .entry(text_of(&name))
            .or_default()
            .push(location.clone());
        out.locations
            .entry(location)
            .or_default()
            .push(LocationVerdict::Accepted {
                name,
                description: entry.get("description").cloned().unwrap_or(Value::Null),
            });
    }
    for entry in list("skipped") {
        let reason = entry.get("reason").cloned().unwrap_or(Value::Null);
        *out.skipped.entry(text_of(&reason)).or_default() += 1;
        out.locations
            .entry(location_of(entry))
            .or_default()
            .push(LocationVerdict::Skipped { reason });
    }
    out
}

/// Cuts a line to [`LINE_CHARS`] characters (an ellipsis marks the cut).
fn cut(line: &str) -> String {
    match line.char_indices().nth(LINE_CHARS) {
        None => line.to_owned(),
        Some((at, _)) => format!("{}…", &line[..at]),
    }
}

/// The first line where `reference` and `actual` differ, if they do.
pub fn first_difference(reference: &str, actual: &str) -> Option<FirstDifference> {
    if reference == actual {
        return None;
    }
    let mut expected_lines = reference.split('\n');
    let mut actual_lines = actual.split('\n');
    let mut line = 0;
    loop {
        line += 1;
        match (expected_lines.next(), actual_lines.next()) {
            (Some(a), Some(b)) if a == b => continue,
            (None, None) => unreachable!("unequal texts differ somewhere"),
            (a, b) => {
                return Some(FirstDifference {
                    line,
                    reference: a.map(cut),
                    actual: b.map(cut),
                })
            }
        }
    }
}

fn load_difference(
    reference: Option<&Value>,
    actual: Option<&Value>,
    name: &str,
) -> Option<LoadDifference> {
    let (reference, actual) = match (reference, actual) {
        (Some(a), Some(b)) if a == b => return None,
        (Some(a), Some(b)) => (a, b),
        (a, b) => {
            return Some(LoadDifference {
                name: name.to_owned(),
                field: "load".to_owned(),
                at: FirstDifference {
                    line: 1,
                    reference: a.map(|_| "(a load)".to_owned()),
                    actual: b.map(|_| "(a load)".to_owned()),
                },
            })
        }
    };
    for field in ["name", "isError", "output"] {
        let (a, b) = (reference.get(field), actual.get(field));
        if a == b {
            continue;
        }
        let text = |v: Option<&Value>| v.map_or_else(|| "(absent)".to_owned(), text_of);
        let at = first_difference(&text(a), &text(b)).unwrap_or(FirstDifference {
            line: 1,
            reference: Some(text(a)),
            actual: Some(text(b)),
        });
        return Some(LoadDifference {
            name: name.to_owned(),
            field: field.to_owned(),
            at,
        });
    }
    // Same three fields, different objects: some other field.
    let at = first_difference(
        &to_canonical_string(reference),
        &to_canonical_string(actual),
    )
    .expect("the loads differ");
    Some(LoadDifference {
        name: name.to_owned(),
        field: "load".to_owned(),
        at,
    })
}

/// Turns the reference's and the ports' results into the report (pure; see the module doc).
/// `results` must hold the reference, named [`REFERENCE`].
pub fn analyse(roots: Vec<String>, load_count: usize, results: Vec<PortResult>) -> CorpusReport {
    let mut ports: BTreeMap<String, PortSummary> = BTreeMap::new();
    let mut views: BTreeMap<&str, View<'_>> = BTreeMap::new();
    for result in &results {
        let kind = PortKind::of_name(&result.name);
        let mut summary = PortSummary {
            kind,
            state: PortState::Ok,
            reason: None,
            library: result.hello.as_ref().map(|h| h.library.clone()),
            library_version: result.hello.as_ref().map(|h| h.version.clone()),
            runtime: result.hello.as_ref().map(|h| h.runtime.clone()),
            libraries: result
                .hello
                .as_ref()
                .map(|h| h.libraries.clone())
                .unwrap_or_default(),
            fault: None,
            stderr_tail: None,
            cluster: None,
            accepted: None,
            skipped: None,
            loads: None,
            prompt_difference: None,
            agrees_with_reference: Some(false),
        };
        match &result.run {
            PortRun::Unavailable { reason } => {
                summary.state = PortState::Unavailable;
                summary.reason = Some(reason.clone());
                summary.agrees_with_reference = None;
            }
            PortRun::Broken {
                what,
                fault,
                stderr_tail,
            } => {
                summary.state = PortState::Broken;
                summary.reason = Some(what.clone());
                summary.fault = fault.clone();
                summary.stderr_tail = stderr_tail.clone();
            }
            PortRun::Fault { fault, stderr_tail } => {
                summary.state = PortState::Fault;
                summary.fault = Some(fault.clone());
                summary.stderr_tail = stderr_tail.clone();
            }
            PortRun::Error { message } => {
                summary.state = PortState::Error;
                summary.reason = Some(message.clone());
            }
            PortRun::Reply { normalized } => {
                let v = view(normalized);
                summary.accepted = Some(v.accepted);
                summary.skipped = Some(v.skipped.clone());
                views.insert(result.name.as_str(), v);
            }
        }
        ports.insert(result.name.clone(), summary);
    }
    let order = display_order(views.keys().map(|name| (*name, PortKind::of_name(name))));

    // Clusters: identical canonical inventories; the reference's first, then larger first.
    let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for port in &order {
        groups
            .entry(views[port].inventory.as_str())
            .or_default()
            .push(port);
    }
    let reference_inventory = views.get(REFERENCE).map(|v| v.inventory.as_str());
    let mut clusters: Vec<InventoryCluster> = groups
        .into_iter()
        .map(|(inventory, members)| InventoryCluster {
            ports: members.iter().map(|p| (*p).to_owned()).collect(),
            matches_reference: Some(inventory) == reference_inventory,
            fingerprint: fingerprint(inventory),
        })
        .collect();
    clusters.sort_by(|a, b| {
        b.matches_reference
            .cmp(&a.matches_reference)
            .then_with(|| b.ports.len().cmp(&a.ports.len()))
            .then_with(|| {
                let position = |c: &InventoryCluster| order.iter().position(|p| *p == c.ports[0]);
                position(a).cmp(&position(b))
            })
    });
    for (index, cluster) in clusters.iter().enumerate() {
        for port in &cluster.ports {
            if let Some(summary) = ports.get_mut(port) {
                summary.cluster = Some(index + 1);
            }
        }
    }

    // Loads and prompt against the reference.
    if let Some(reference) = views.get(REFERENCE) {
        for port in &order {
            let v = &views[port];
            let count = reference.loads.len().max(v.loads.len());
            let differences: Vec<LoadDifference> = (0..count)
                .filter_map(|i| {
                    let name = reference
                        .loads
                        .get(i)
                        .or_else(|| v.loads.get(i))
                        .and_then(|l| l.get("name"))
                        .map_or_else(|| format!("#{}", i + 1), text_of);
                    load_difference(reference.loads.get(i), v.loads.get(i), &name)
                })
                .collect();
            let prompt_difference = match (reference.prompt, v.prompt) {
                (a, b) if a == b => None,
                (a, b) => first_difference(
                    &a.map_or_else(|| "(no prompt)".to_owned(), text_of),
                    &b.map_or_else(|| "(no prompt)".to_owned(), text_of),
                ),
            };
            let summary = ports.get_mut(*port).expect("every view has a summary");
            summary.agrees_with_reference = Some(
                summary.cluster == Some(1)
                    && clusters[0].matches_reference
                    && differences.is_empty()
                    && prompt_difference.is_none(),
            );
            summary.loads = Some(LoadsSummary {
                count: v.loads.len(),
                differences,
            });
            summary.prompt_difference = prompt_difference;
        }
    }

    // Locations where the answering ports disagree.
    let locations: BTreeSet<&str> = views
        .values()
        .flat_map(|v| v.locations.keys().map(String::as_str))
        .collect();
    let mut disagreements = Vec::new();
    for location in locations {
        let verdicts: BTreeMap<String, Vec<LocationVerdict>> = order
            .iter()
            .map(|port| {
                (
                    (*port).to_owned(),
                    views[port]
                        .locations
                        .get(location)
                        .cloned()
                        .unwrap_or_default(),
                )
            })
            .collect();
        let mut distinct = verdicts.values();
        let first = distinct.next();
        if distinct.all(|other| Some(other) == first) {
            continue;
        }
        let accepts = |entries: &[LocationVerdict]| {
            entries
                .iter()
                .any(|e| matches!(e, LocationVerdict::Accepted { .. }))
        };
        let reference_accepts_port_drops = verdicts
            .get(REFERENCE)
            .is_some_and(|entries| accepts(entries))
            && verdicts.values().any(|entries| !accepts(entries));
        disagreements.push(LocationRow {
            location: location.to_owned(),
            reference_accepts_port_drops,
            verdicts,
        });
    }

    // Accepted names whose winning copy is not the same everywhere.
    let names: BTreeSet<&str> = views
        .values()
        .flat_map(|v| v.names.keys().map(String::as_str))
        .collect();
    let mut duplicates = Vec::new();
    for name in names {
        let winners: BTreeMap<String, Vec<String>> = order
            .iter()
            .map(|port| {
                (
                    (*port).to_owned(),
                    views[port].names.get(name).cloned().unwrap_or_default(),
                )
            })
            .collect();
        let copies: BTreeSet<&String> = winners.values().flatten().collect();
        let mut all = winners.values();
        let first = all.next();
        if copies.len() > 1 && !all.all(|other| Some(other) == first) {
            duplicates.push(DuplicateRow {
                name: name.to_owned(),
                winners,
            });
        }
    }

    let agreement = ports
        .iter()
        .filter(|(name, _)| *name != REFERENCE)
        .all(|(_, summary)| summary.agrees_with_reference != Some(false));
    CorpusReport {
        format: FORMAT,
        roots,
        load_count,
        ports,
        clusters,
        disagreements,
        duplicates,
        agreement,
    }
}

/// The JSON Schema (draft 2020-12) of `corpus.json` ([`CorpusReport`]); its `format` follows
/// the policy of `report.json` (see [`crate::report::format`]).
pub fn schema() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    generator.into_root_schema_for::<CorpusReport>().to_value()
}

/// `corpus.json`: the report as canonical JSON.
pub fn render_json(report: &CorpusReport) -> String {
    to_canonical_string(&serde_json::to_value(report).expect("the report serialises"))
}

fn verdict_text(entries: &[LocationVerdict]) -> String {
    if entries.is_empty() {
        return "not listed".to_owned();
    }
    entries
        .iter()
        .map(|entry| match entry {
            LocationVerdict::Accepted { name, description } => {
                let description = match description {
                    Value::Null => "no description".to_owned(),
                    Value::String(text) => format!("\"{}\"", cut(&visible_inline(text))),
                    other => format!("description {}", text_of(other)),
                };
                format!(
                    "accepted `{}` — {description}",
                    visible_inline(&text_of(name))
                )
            }
            LocationVerdict::Skipped { reason } => format!("skipped ({})", text_of(reason)),
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

fn counts_text(summary: &PortSummary) -> String {
    let skipped = summary.skipped.clone().unwrap_or_default();
    let total: usize = skipped.values().sum();
    let reasons: Vec<String> = skipped.iter().map(|(r, n)| format!("{r}: {n}")).collect();
    format!(
        "{} ok / {total} skipped {{{}}}",
        summary.accepted.unwrap_or(0),
        reasons.join(", ")
    )
}

fn difference_text(port: &str, at: &FirstDifference) -> String {
    let side = |line: &Option<String>| {
        line.as_deref().map_or_else(
            || "(no line)".to_owned(),
            |l| format!("`{}`", visible_line(l)),
        )
    };
    format!(
        "line {}: reference {} · {port} {}",
        at.line,
        side(&at.reference),
        side(&at.actual)
    )
}

fn state_text(summary: &PortSummary) -> String {
    let fault = |f: &FaultDetails| {
        let kind = serde_json::to_value(f.kind).ok().map(|v| text_of(&v));
        let phase = serde_json::to_value(f.phase).ok().map(|v| text_of(&v));
        format!(
            "{} during {}",
            kind.unwrap_or_default(),
            phase.unwrap_or_default()
        )
    };
    let last_stderr = summary
        .stderr_tail
        .as_deref()
        .and_then(|t| t.lines().rev().find(|l| !l.trim().is_empty()))
        .map(|l| format!(" (stderr: {})", cut(&visible_line(l))))
        .unwrap_or_default();
    match summary.state {
        PortState::Ok => "ok".to_owned(),
        PortState::Unavailable => format!(
            "unavailable: {}",
            summary.reason.as_deref().unwrap_or("no reason given")
        ),
        PortState::Broken => {
            let what = summary
                .reason
                .as_deref()
                .unwrap_or("the adapter did not start");
            match summary.fault.as_ref() {
                Some(details) => format!("broken: {what}: {}{last_stderr}", fault(details)),
                None => format!("broken: {what}{last_stderr}"),
            }
        }
        PortState::Fault => format!(
            "fault: {}{last_stderr}",
            summary.fault.as_ref().map(fault).unwrap_or_default()
        ),
        PortState::Error => format!(
            "error reply: {}",
            cut(&visible_inline(summary.reason.as_deref().unwrap_or("")))
        ),
    }
}

/// `corpus.md` (and, with a `limit`, what the terminal shows): see the module doc.
pub fn render_markdown(report: &CorpusReport, limit: Option<usize>) -> String {
    let mut out = String::new();
    let order = report.port_order();
    let _ = writeln!(out, "# skill-conform corpus\n");
    for (index, root) in report.roots.iter().enumerate() {
        let _ = writeln!(out, "- `{{root{index}}}` = `{root}`");
    }
    let _ = writeln!(
        out,
        "- {} names loaded: every name the reference accepts, then `{UNKNOWN_SKILL}`",
        report.load_count
    );
    let disagreeing = report.disagreeing();
    if disagreeing.is_empty() {
        let _ = writeln!(
            out,
            "- every port that ran agrees with the reference (inventory, loads, prompt)"
        );
    } else {
        let _ = writeln!(
            out,
            "- disagreeing with the reference: {}",
            disagreeing
                .iter()
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }

    let _ = writeln!(
        out,
        "\n## Disagreements: {} SKILL.md location{}\n",
        report.disagreements.len(),
        if report.disagreements.len() == 1 {
            ""
        } else {
            "s"
        }
    );
    if report.disagreements.is_empty() {
        let _ = writeln!(out, "The ports that ran agree on every SKILL.md location.");
    }
    let mut shown = 0;
    let mut hidden = 0;
    for row in &report.disagreements {
        if limit.is_some_and(|limit| shown >= limit) && !row.reference_accepts_port_drops {
            hidden += 1;
            continue;
        }
        shown += 1;
        let _ = writeln!(out, "- `{}`", visible_inline(&row.location));
        for port in &order {
            if let Some(entries) = row.verdicts.get(*port) {
                let _ = writeln!(out, "  - {port}: {}", verdict_text(entries));
            }
        }
    }
    if hidden > 0 {
        let _ = writeln!(out, "- … and {hidden} more locations (all in corpus.md)");
    }

    if !report.duplicates.is_empty() {
        let _ = writeln!(
            out,
            "\n## Duplicated names: which copy won ({} where the ports differ)\n",
            report.duplicates.len()
        );
        for row in &report.duplicates {
            let _ = writeln!(out, "- `{}`", visible_inline(&row.name));
            for port in &order {
                if let Some(locations) = row.winners.get(*port) {
                    let won = if locations.is_empty() {
                        "not accepted".to_owned()
                    } else {
                        locations
                            .iter()
                            .map(|l| format!("`{}`", visible_inline(l)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    let _ = writeln!(out, "  - {port}: {won}");
                }
            }
        }
    }

    let _ = writeln!(
        out,
        "\n## Counts, by agreement cluster (identical normalised inventories)\n"
    );
    for (index, cluster) in report.clusters.iter().enumerate() {
        let label = if cluster.matches_reference {
            " — the reference's"
        } else {
            ""
        };
        let _ = writeln!(out, "- cluster {}{label}", index + 1);
        for port in &cluster.ports {
            let _ = writeln!(out, "  - {port}: {}", counts_text(&report.ports[port]));
        }
    }
    let not_run: Vec<&str> = report
        .port_order()
        .into_iter()
        .filter(|p| report.ports[*p].state != PortState::Ok)
        .collect();
    if !not_run.is_empty() {
        let _ = writeln!(out, "- not compared");
        for port in not_run {
            let _ = writeln!(out, "  - {port}: {}", state_text(&report.ports[port]));
        }
    }

    let _ = writeln!(out, "\n## Loads and prompt, against the reference\n");
    let mut any = false;
    for port in &order {
        let summary = &report.ports[*port];
        let Some(loads) = &summary.loads else {
            continue;
        };
        if *port == REFERENCE {
            continue;
        }
        any = true;
        let loads_text = if loads.differences.is_empty() {
            format!("all {} loads match", loads.count)
        } else {
            format!(
                "{} of {} loads differ",
                loads.differences.len(),
                report.load_count
            )
        };
        let prompt_text = if summary.prompt_difference.is_some() {
            "prompt differs"
        } else {
            "prompt matches"
        };
        let _ = writeln!(out, "- {port}: {loads_text}; {prompt_text}");
        for difference in loads.differences.iter().take(SHOWN_LOADS) {
            let _ = writeln!(
                out,
                "  - load `{}` {} {}",
                visible_inline(&difference.name),
                difference.field,
                difference_text(port, &difference.at)
            );
        }
        if loads.differences.len() > SHOWN_LOADS {
            let _ = writeln!(
                out,
                "  - … and {} more loads (all in corpus.json)",
                loads.differences.len() - SHOWN_LOADS
            );
        }
        if let Some(at) = &summary.prompt_difference {
            let _ = writeln!(out, "  - prompt {}", difference_text(port, at));
        }
    }
    if !any {
        let _ = writeln!(out, "No port besides the reference answered.");
    }
    out
}

/// Writes `corpus.json` and `corpus.md` into `dir` (created if missing).
pub fn write_report(report: &CorpusReport, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("corpus.json"), render_json(report))?;
    std::fs::write(dir.join("corpus.md"), render_markdown(report, None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reply(skills: &[(&str, &str)], skipped: &[(&str, &str)], prompt: &str) -> PortRun {
        let skills: Vec<Value> = skills
            .iter()
            .map(|(name, location)| json!({"name": name, "description": "d", "location": location}))
            .collect();
        let skipped: Vec<Value> = skipped
            .iter()
            .map(|(location, reason)| json!({"location": location, "reason": reason}))
            .collect();
        let loads: Vec<Value> = ["a", "no-such-skill"]
            .iter()
            .map(|n| json!({"name": n, "isError": false, "output": format!("body of {n}\nline two")}))
            .collect();
        PortRun::Reply {
            normalized: json!({"inventory": {"skills": skills, "skipped": skipped}, "loads": loads, "prompt": prompt}),
        }
    }

    fn port(name: &str, run: PortRun) -> PortResult {
        PortResult {
            name: name.to_owned(),
            hello: None,
            run,
        }
    }

    #[test]
    fn agreement_is_quiet_and_disagreement_is_located() {
        let reference = reply(
            &[("a", "{root0}/a/SKILL.md")],
            &[("{root0}/x/a/SKILL.md", "duplicate-name")],
            "p",
        );
        let same = reference.clone();
        let last_wins = reply(
            &[("a", "{root0}/x/a/SKILL.md")],
            &[("{root0}/a/SKILL.md", "duplicate-name")],
            "p\nq",
        );
        let report = analyse(
            vec!["/r".into()],
            2,
            vec![
                port(REFERENCE, reference),
                port("python", same),
                port("mutant-x", last_wins),
                port(
                    "golang",
                    PortRun::Unavailable {
                        reason: "no go".into(),
                    },
                ),
            ],
        );
        assert!(!report.agreement);
        assert_eq!(report.disagreeing(), ["mutant-x"]);
        assert_eq!(
            report.port_order(),
            ["reference", "golang", "python", "mutant-x"]
        );
        assert_eq!(report.clusters.len(), 2);
        assert_eq!(report.clusters[0].ports, ["reference", "python"]);
        assert_eq!(report.disagreements.len(), 2);
        assert!(report.disagreements[0].reference_accepts_port_drops);
        assert_eq!(report.duplicates.len(), 1);
        assert_eq!(report.duplicates[0].name, "a");
        let prompt = report.ports["mutant-x"].prompt_difference.clone().unwrap();
        assert_eq!((prompt.line, prompt.actual.as_deref()), (2, Some("q")));
        assert_eq!(report.ports["golang"].agrees_with_reference, None);
        let text = render_markdown(&report, None);
        assert!(
            text.contains("  - mutant-x: skipped (duplicate-name)\n"),
            "{text}"
        );
        assert!(
            text.contains("  - python: 1 ok / 1 skipped {duplicate-name: 1}\n"),
            "{text}"
        );
        assert!(text.contains("  - golang: unavailable: no go\n"), "{text}");
        assert!(
            text.contains("- mutant-x: all 2 loads match; prompt differs\n"),
            "{text}"
        );
        // Deterministic: the same input renders the same bytes.
        assert_eq!(render_json(&report), render_json(&report.clone()));
    }

    #[test]
    fn first_difference_names_the_line_or_the_missing_one() {
        assert_eq!(first_difference("a\nb", "a\nb"), None);
        let d = first_difference("a\nb", "a\nc").unwrap();
        assert_eq!(
            (d.line, d.reference.as_deref(), d.actual.as_deref()),
            (2, Some("b"), Some("c"))
        );
        let d = first_difference("a", "a\nc").unwrap();
        assert_eq!(
            (d.line, d.reference, d.actual.as_deref()),
            (2, None, Some("c"))
        );
        assert!(cut(&"x".repeat(500)).ends_with('…'));
    }

    #[test]
    fn roots_are_absolute_not_canonical_and_missing_ones_are_named() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let roots = absolute_roots(&[link.join("."), real.clone()]).unwrap();
        assert_eq!(
            roots,
            [link.display().to_string(), real.display().to_string()]
        );
        let missing = tmp.path().join("missing");
        let error = absolute_roots(std::slice::from_ref(&missing)).unwrap_err();
        assert!(matches!(error, Error::MissingRoot(ref p) if *p == missing));
    }
}
