//! Plan: from what the user asked to what will run, validated before anything
//! starts. [`Plan::new`] turns `run`'s options into a [`Plan`]: the ports as given (name,
//! version or checkout path, or adapter command), their `expected.toml` entries, the cases
//! selected by `--case` globs with their committed goldens, the report targets, timeouts, repeat
//! and seed. Every usage error is found here; nothing resolves, sets up or starts a port.
//!
//! The costly half of planning, the request of each case ([`plan_loads`]), runs later, while
//! the ports resolve, set up and start (see `run`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use libtest_mimic::Arguments;

use crate::case::{self, CaseSelector, Field};
use crate::error::{Error, ExitCode};
use crate::goldens::{version_text, Layout};
use crate::judge::expected::{check_entries, read_expected, ExpectedEntry};
use crate::judge::ExpectationProblem;
use crate::observe::{ObserveOptions, PlannedCase};
use crate::port::{self, PortRequest, PortSpec, REFERENCE};
use crate::reference::run_case;
use crate::reproduce::Reproducer;
use crate::run::{pass_orders, Require, RunOptions};
use crate::sandbox::Sandbox;

/// One port to run, as the user gave it.
#[derive(Clone, Debug)]
pub(crate) struct PortPlan {
    /// The request as given: its name and its origin (`NAME`, `NAME@VERSION`, `NAME=PATH` or
    /// `--adapter NAME=COMMAND`; see [`PortRequest::as_given`]).
    pub request: PortRequest,
    /// The port's id in results and reports: its name, or `NAME@VERSION` when one port is
    /// selected in several versions ([`crate::port_columns`]).
    pub column: String,
    /// Its `adapters/<port>/expected.toml` entries (empty without one).
    pub expected: Vec<ExpectedEntry>,
}

/// Where the reports go and how they are redacted.
#[derive(Clone, Debug)]
pub(crate) struct ReportTargets {
    pub dir: PathBuf,
    /// Redact durations and sandbox paths (hidden `--redact-volatile`).
    pub redact_volatile: bool,
    /// Draft `expected.toml` for every port that ran (`--write-expected`).
    pub write_expected: bool,
    /// libtest's line per trial instead of the terse summary (`--libtest`).
    pub libtest_listing: bool,
}

/// How many passes, in which case orders (`--repeat N`, `--seed S`, hidden `--shuffle`).
#[derive(Clone, Debug)]
pub(crate) struct Repeat {
    pub passes: u32,
    pub seed: u64,
    pub shuffle: bool,
    /// Per pass, the case order as indices into [`Plan::cases`].
    pub orders: Vec<Vec<usize>>,
    /// Per pass, where its sandboxes are made and in what entry order
    /// ([`crate::sandbox::placements`]).
    pub placements: Vec<crate::sandbox::Placement>,
}

/// Everything a run will do, validated (see the module doc).
///
/// Room for the next issues, each a field validated in [`Plan::new`]: the contract profile,
/// the isolation policy, and the reply-size cap (today a constant of the session).
#[derive(Debug)]
pub(crate) struct Plan {
    /// Absolute, so that messages, reports and adapters do not depend on the working directory.
    pub repo: PathBuf,
    /// `adapters/ports.toml`.
    pub specs: BTreeMap<String, PortSpec>,
    pub ports: Vec<PortPlan>,
    /// Selected cases with their goldens, sorted by id.
    pub cases: Vec<SelectedCase>,
    /// Problems found in the ports' `expected.toml` files (each fails the run, exit 1).
    pub expectation_errors: Vec<ExpectationProblem>,
    /// Ports whose unavailability exits 3 (`--require`).
    pub required: BTreeSet<String>,
    /// libtest-mimic's arguments (filter, `--exact`, `--list`, …), one test thread.
    pub libtest: Arguments,
    /// Timeouts and `--keep-sandbox`.
    pub observe: ObserveOptions,
    pub repeat: Repeat,
    pub reports: ReportTargets,
    /// Each trial's reproduce line.
    pub reproduce: Reproducer,
}

impl Plan {
    /// Validates `options` into a plan; every usage error is an `Err` here.
    pub fn new(options: RunOptions) -> Result<Plan, Error> {
        let repo = canonical_repo(&options.repo)?;
        let layout = Layout::under(&repo);
        if !layout.fixtures.is_dir() {
            return Err(Error::Usage(format!(
                "fixture directory `{}` does not exist (hint: run from the repository root or pass --repo DIR)",
                layout.fixtures.display()
            )));
        }
        let mut libtest = Arguments::from_iter(
            std::iter::once("skill-conform run".to_owned()).chain(options.libtest.clone()),
        );
        // Trials only report verdicts that are already known: one thread keeps libtest's own
        // lines in a stable order.
        libtest.test_threads = Some(1);
        let specs = port::read_ports(&repo)?;
        let requests = crate::port_columns::columns(requested_ports(&options, &specs)?, &specs)?;
        let required = required_ports(&options.require, &requests)?;
        let selection = select_cases(&layout, &options.cases)?;
        let (ports, expectation_errors) = read_expectations(&repo, requests, &selection.all_ids)?;
        let passes = options.repeat.max(1);
        let seed = options.seed.unwrap_or_else(crate::run::clock_seed);
        let report_dir = options.report_dir.unwrap_or_else(|| repo.join("reports"));
        if !libtest.list {
            crate::output_dir::check_writable(&report_dir, "--report-dir")?;
        }
        let reproduce = Reproducer::new(
            ports.iter().map(|p| (p.column.clone(), p.request.clone())),
            std::env::var_os("TMPDIR"),
            (&repo, std::env::current_dir().ok().as_deref()),
            (passes, seed),
        );
        Ok(Plan {
            reproduce,
            specs,
            ports,
            expectation_errors,
            required,
            libtest,
            observe: ObserveOptions {
                timeouts: options.timeouts,
                keep_sandbox: options.keep_sandbox,
                max_timeouts: options.max_timeouts,
            },
            repeat: Repeat {
                passes,
                seed,
                shuffle: options.shuffle,
                orders: pass_orders(selection.cases.len(), passes, options.shuffle, seed),
                placements: crate::sandbox::placements(passes, seed),
            },
            reports: ReportTargets {
                dir: report_dir,
                redact_volatile: options.redact_volatile,
                write_expected: options.write_expected,
                libtest_listing: options.libtest_listing,
            },
            cases: selection.cases,
            repo,
        })
    }
}

/// The repository root, absolute and canonical, so that messages, reports and adapters do not
/// depend on the working directory.
pub(crate) fn canonical_repo(repo: &std::path::Path) -> Result<PathBuf, Error> {
    std::fs::canonicalize(repo).map_err(|e| {
        Error::Usage(format!(
            "repository `{}`: {e} (hint: pass --repo DIR)",
            repo.display()
        ))
    })
}

/// The requested ports (default: the reference and every port of `ports.toml`), each known
/// ([`crate::port_columns`] refuses one selected twice).
fn requested_ports(
    options: &RunOptions,
    specs: &BTreeMap<String, PortSpec>,
) -> Result<Vec<PortRequest>, Error> {
    let requests: Vec<PortRequest> = if options.ports.is_empty() {
        std::iter::once(REFERENCE.to_owned())
            .chain(specs.keys().cloned())
            .map(|name| PortRequest::Named {
                name,
                version: None,
                path: None,
            })
            .collect()
    } else {
        options.ports.clone()
    };
    for request in &requests {
        port::check_known(request, specs)?;
    }
    Ok(requests)
}

/// The ports `--require` names, each of them selected.
/// A name requires every column of that port (`python` both `python@0.18.1` and
/// `python@0.21.0`).
fn required_ports(
    require: &Require,
    requests: &[(PortRequest, String)],
) -> Result<BTreeSet<String>, Error> {
    let columns_of = |name: &str| -> BTreeSet<String> {
        requests
            .iter()
            .filter(|(request, column)| request.name() == name || column == name)
            .map(|(_, column)| column.clone())
            .collect()
    };
    match require {
        Require::None => Ok(BTreeSet::new()),
        Require::All => Ok(requests.iter().map(|(_, column)| column.clone()).collect()),
        Require::Ports(names) => {
            let mut required = BTreeSet::new();
            for name in names {
                let columns = columns_of(name);
                if columns.is_empty() {
                    return Err(Error::Usage(format!(
                        "--require names `{name}`, which is not selected (hint: add --port {name})"
                    )));
                }
                required.extend(columns);
            }
            Ok(required)
        }
    }
}

/// Each port's `expected.toml`, checked against the whole fixture set: an unreadable file is a
/// usage error; a stale entry is an expectation problem (exit 1).
fn read_expectations(
    repo: &std::path::Path,
    requests: Vec<(PortRequest, String)>,
    all_ids: &[case::CaseId],
) -> Result<(Vec<PortPlan>, Vec<ExpectationProblem>), Error> {
    let mut ports = Vec::new();
    let mut problems = Vec::new();
    for (request, column) in requests {
        let path = repo
            .join("adapters")
            .join(request.name())
            .join("expected.toml");
        let (expected, errors) = match read_expected(&path) {
            Ok(entries) => {
                let stale = check_entries(&entries, all_ids.iter());
                (entries, stale)
            }
            Err(error) if error.exit_code() == ExitCode::Usage => {
                return Err(Error::Usage(error.to_string()))
            }
            Err(error) => (Vec::new(), vec![error]),
        };
        problems.extend(errors.into_iter().map(|error| ExpectationProblem {
            port: column.clone(),
            message: error.to_string(),
        }));
        ports.push(PortPlan {
            request,
            column,
            expected,
        });
    }
    Ok((ports, problems))
}

/// A selected case and its committed golden: everything known before the reference runs.
#[derive(Clone, Debug)]
pub(crate) struct SelectedCase {
    pub spec: case::CaseSpec,
    pub golden: String,
}

/// What [`select_cases`] found: the selected cases, and every case id of the fixture set
/// (against which `expected.toml` globs are checked).
#[derive(Clone, Debug)]
pub(crate) struct CaseSelection {
    pub all_ids: Vec<case::CaseId>,
    pub cases: Vec<SelectedCase>,
}

/// Plans the selected cases (all when `globs` is empty), sorted by id.
pub fn plan_cases(layout: &Layout, globs: &[String]) -> Result<Vec<PlannedCase>, Error> {
    plan_loads(select_cases(layout, globs)?.cases)
}

/// The cheap half of planning, where every usage error is found: discovery, the goldens'
/// version, the `--case` globs, and each selected case's golden.
pub(crate) fn select_cases(layout: &Layout, globs: &[String]) -> Result<CaseSelection, Error> {
    let cases = case::discover(&layout.fixtures).map_err(|e| Error::Usage(e.to_string()))?;
    let version_path = layout.goldens.join("VERSION");
    let version = std::fs::read_to_string(&version_path).unwrap_or_default();
    if version != version_text() {
        return Err(Error::Usage(format!(
            "`{}` does not match this reference ({}) (hint: regenerate with `skill-conform goldens --write` and review)",
            version_path.display(),
            version_text().trim().replace('\n', ", ")
        )));
    }
    let selected: Vec<&case::CaseSpec> = if globs.is_empty() {
        cases.iter().collect()
    } else {
        let selector = CaseSelector::new(globs).map_err(|e| Error::Usage(e.to_string()))?;
        let selection = selector.select(&cases);
        if let Some(glob) = selection.unmatched.first() {
            return Err(Error::Usage(format!(
                "--case `{glob}` matches no case (hint: ids look like `frontmatter/plain`; `*` stays within one segment, `**` crosses `/`)"
            )));
        }
        selection.cases.into_iter().collect()
    };
    let selected = selected
        .into_iter()
        .map(|spec| {
            let golden_path = layout.golden_path(&spec.id);
            let golden = std::fs::read_to_string(&golden_path).map_err(|_| {
                Error::Usage(format!(
                    "missing golden `{}` (hint: run `skill-conform goldens --write`)",
                    golden_path.display()
                ))
            })?;
            Ok(SelectedCase {
                spec: spec.clone(),
                golden,
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    Ok(CaseSelection {
        all_ids: cases.iter().map(|c| c.id.clone()).collect(),
        cases: selected,
    })
}

/// A sandbox that cannot be built, as a usage error that names the case.
fn case_error(case: &crate::case::CaseId, error: crate::sandbox::SandboxError) -> Error {
    let message = error.to_string();
    if message.contains(&format!("`{case}`")) {
        Error::Usage(message)
    } else {
        Error::Usage(format!("case `{case}`: {message}"))
    }
}

/// The costly half: the request of each case, whose default load list needs the reference to
/// run in a sandbox (the runner does this while the ports set up and start).
pub(crate) fn plan_loads(selected: Vec<SelectedCase>) -> Result<Vec<PlannedCase>, Error> {
    let mut planned = Vec::new();
    for SelectedCase { spec, golden } in selected {
        let tool = spec.compare.contains(&Field::Tool);
        // Checked here for every case, without a copy, so that a fixture no sandbox can be built
        // from (a FIFO in its tree, a `links` path that exists) is exit 2 naming the case before
        // any adapter is asked, not an `error` on every port.
        Sandbox::check(&spec).map_err(|e| case_error(&spec.id, e))?;
        // The request's names: the case's own list, or the golden's (which lists every load in
        // request order when it compares loads; `goldens --check` keeps it fresh), or else the
        // reference run in a sandbox — the load list depends only on which names it accepts,
        // not on where the sandbox is, and a vacuous sandbox still gives it.
        let load = match (&spec.load, golden_load_names(&golden)) {
            (Some(load), _) => load.clone(),
            (None, Some(load)) => load,
            (None, None) => {
                let sandbox =
                    Sandbox::prepare(&spec, false).map_err(|e| case_error(&spec.id, e))?;
                run_case(skill_ref::Config::default(), &spec, sandbox.roots()).load
            }
        };
        planned.push(PlannedCase {
            spec,
            golden,
            load,
            tool,
        });
    }
    Ok(planned)
}

/// The names of a golden's `loads`, in order, when it has them.
fn golden_load_names(golden: &str) -> Option<Vec<String>> {
    let value: serde_json::Value = serde_json::from_str(golden).ok()?;
    value
        .get("loads")?
        .as_array()?
        .iter()
        .map(|load| load.get("name")?.as_str().map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The load list read from a golden is the one the reference computes in a sandbox.
    #[test]
    fn golden_load_lists_equal_the_reference_s() {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let layout = Layout::under(&repo);
        let mut compared = 0;
        for selected in select_cases(&layout, &[]).unwrap().cases {
            let Some(from_golden) = golden_load_names(&selected.golden) else {
                continue;
            };
            let sandbox = Sandbox::prepare(&selected.spec, false).unwrap();
            let run = run_case(
                skill_ref::Config::default(),
                &selected.spec,
                sandbox.roots(),
            );
            assert_eq!(from_golden, run.load, "{}", selected.spec.id);
            compared += 1;
        }
        assert!(compared > 100);
    }
}
