//! `skill-conform run`: plan, observe every port concurrently, judge, then report.
//!
//! Trials are libtest-mimic trials named `PORT::GROUP/CASE`, so `--list`, a filter, `--exact`
//! and `--skip` work as with `cargo test`, and the run closes with the familiar
//! `test result: … N passed; M failed` line. Adapters are started only for the trials the filter
//! keeps, one session per port (never one process per trial), ports in parallel threads. The
//! verdicts go into our own sorted map ([`Results`]); every report is rendered from it after
//! the run, never from libtest-mimic's stream, which is in completion order.
//!
//! nextest runs one process per trial, which would start an adapter per case: run this binary
//! directly (or `just conform`), not under nextest.
//!
//! `--repeat N` is the determinism check: each port runs the selected cases N times in its one
//! session — pass 1 in plan order, passes 2..N each in a fresh shuffle ([`pass_orders`], ChaCha8
//! seeded by `--seed S` or, without it, by the clock; the seed is printed on stderr so a failure
//! can be replayed). Passes 2..N also build their sandboxes differently
//! ([`crate::sandbox::placements`]): entries created in a seeded shuffled order, alternating
//! `/dev/shm` and `/tmp`, so a port that follows directory read order shows up too.
//! [`judge::judge_repeats`] folds the passes into one verdict, which is
//! `nondeterministic` when the *normalised* outputs differ; raw replies that differ only in
//! what normalisation removes (inventory order, `detail`) are listed under `repeat` in
//! `report.json` and change no verdict.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use chacha20::ChaCha8Rng;
use libtest_mimic::{Arguments, Failed, Trial};
use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::case::CaseId;
use crate::error::{Error, ExitCode};
use crate::judge::expected::{draft_expected, ExpectedEntry};
use crate::judge::{
    self, judge_trial, stderr_text, CaseInfo, EntryOrder, Evidence, FaultDetails, HelloFacts,
    Outcome, PassSandboxes, PortInfo, PortStatus, RawDifference, RepeatInfo, Results, Status,
    TrialInput, Verdict,
};
use crate::normalize::compared_form;
use crate::observe::{
    build_sandboxes, run_order, run_started_with, start_port, Closing, Observed, PlannedCase,
    PortObservation, PortTrouble,
};
use crate::plan::{plan_loads, Plan, PortPlan, Repeat};
use crate::port::{self, PortRequest, REFERENCE};
use crate::report::{self, Redactor};
use crate::reproduce::Reproducer;
use crate::session::Timeouts;

/// One port's observation with the global indices of the cases it ran, and its closing session.
type PortRun = (PortObservation, Vec<usize>, Closing);

/// Which unavailable ports make the run exit 3.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Require {
    #[default]
    None,
    All,
    Ports(BTreeSet<String>),
}

impl Require {
    /// Parses `all` or `NAME,NAME`.
    pub fn parse(text: &str) -> Result<Require, String> {
        if text == "all" {
            return Ok(Require::All);
        }
        let names: BTreeSet<String> = text
            .split(',')
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect();
        if names.is_empty() {
            return Err(format!("`{text}` is not `all` or NAME,NAME"));
        }
        Ok(Require::Ports(names))
    }
}

/// Everything `run` was asked.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub repo: PathBuf,
    pub ports: Vec<PortRequest>,
    pub cases: Vec<String>,
    pub require: Require,
    pub report_dir: Option<PathBuf>,
    pub keep_sandbox: bool,
    pub write_expected: bool,
    pub timeouts: Timeouts,
    /// After this many timeouts in a row a port is broken and its other cases are not run
    /// (`--max-timeouts N`; `None`: never).
    pub max_timeouts: Option<std::num::NonZeroU32>,
    /// Arguments for libtest-mimic (filter, `--exact`, `--list`, `--format`, …).
    pub libtest: Vec<String>,
    /// Print libtest's line per trial (`--libtest`) rather than the terse summary.
    pub libtest_listing: bool,
    /// How many passes each port makes over the selected cases (`--repeat N`; 0 counts as 1).
    pub repeat: u32,
    /// The case-order shuffle's seed (`--seed S`); `None` derives one from the clock.
    pub seed: Option<u64>,
    /// Shuffle the first pass too (hidden `--shuffle`: the reports must not change).
    pub shuffle: bool,
    /// Redact durations and sandbox paths from the reports (hidden `--redact-volatile`), so two
    /// runs can be compared byte for byte.
    pub redact_volatile: bool,
}

/// The case order of each of `passes` passes over `cases` cases, as indices: the first in plan
/// order (shuffled too when `shuffle_first`), every later one a fresh shuffle. One ChaCha8
/// generator seeded with `seed` draws them all, so the same seed gives the same orders.
pub fn pass_orders(cases: usize, passes: u32, shuffle_first: bool, seed: u64) -> Vec<Vec<usize>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..passes.max(1))
        .map(|pass| {
            let mut order: Vec<usize> = (0..cases).collect();
            if pass > 0 || shuffle_first {
                order.shuffle(&mut rng);
            }
            order
        })
        .collect()
}

/// A shuffle seed from the clock and the process id, for runs without `--seed`.
pub(crate) fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    // 48 bits: short to type, and exact in every JSON reader.
    ((nanos as u64) ^ (u64::from(std::process::id()) << 24)) & 0xFFFF_FFFF_FFFF
}

/// The trial name of a (port, case).
pub(crate) fn trial_name(port: &str, case: &CaseId) -> String {
    format!("{port}::{case}")
}

/// Whether libtest-mimic's filter keeps `name` (the same rule it applies itself).
fn selected(args: &Arguments, name: &str) -> bool {
    let matches = |pattern: &str| {
        if args.exact {
            name == pattern
        } else {
            name.contains(pattern)
        }
    };
    args.filter.as_deref().is_none_or(matches) && !args.skip.iter().any(|s| matches(s))
}

/// Runs the suite and returns the exit code: plan, observe, judge, report.
pub fn run(options: RunOptions) -> Result<ExitCode, Error> {
    let (plan, guard) = plan_and_guard(options)?;
    if plan.libtest.list {
        list_trials(&plan);
        return Ok(ExitCode::Ok);
    }
    announce_seed(&plan.repeat);
    arm_interruption(&plan);
    let started = std::time::Instant::now();
    let observed = observe_ports(&plan)?;
    let mut results = judge_all(&plan, &observed);
    results.tampered = guard.changes();
    report_all(&plan, &results, &observed)?;
    crate::partial::disarm();
    if !plan.reports.libtest_listing {
        println!("{}", crate::progress::summary(&results, started.elapsed()));
    }
    // The adapters exited while the verdicts were judged and reported; wait for them now.
    drop(observed);
    Ok(judge::exit_code(&results, &plan.required))
}

/// Stage 1 — the plan, and the guard's digest of the repository taken at the same time: both
/// only read, on two cores, and no port's code (probe, set-up, adapter) runs before both are
/// done, so the digest is still of the repository as it was before any of them.
fn plan_and_guard(options: RunOptions) -> Result<(Plan, crate::guard::RepositoryGuard), Error> {
    let repo = crate::plan::canonical_repo(&options.repo);
    std::thread::scope(|scope| {
        let digesting = repo
            .ok()
            .map(|repo| scope.spawn(move || crate::guard::RepositoryGuard::take(&repo)));
        let plan = Plan::new(options)?;
        let guard = match digesting {
            Some(digesting) => digesting.join().expect("digesting does not panic")?,
            None => crate::guard::RepositoryGuard::take(&plan.repo)?,
        };
        Ok((plan, guard))
    })
}

/// From now on SIGINT/SIGTERM write the reports with the verdicts judged so far (each port's
/// once it has run), marked `interrupted`.
fn arm_interruption(plan: &Plan) {
    let mut results = Results::new();
    for case in &plan.cases {
        results.add_case(case.spec.id.clone(), CaseInfo::from(&case.spec));
    }
    results.expectation_errors = plan.expectation_errors.clone();
    let (dir, repo) = (plan.reports.dir.clone(), plan.repo.clone());
    crate::partial::arm(results, dir, repo);
}

/// `--list`: every trial the plan has, started by nothing.
fn list_trials(plan: &Plan) {
    let trials = plan
        .ports
        .iter()
        .flat_map(|port| {
            plan.cases
                .iter()
                .map(move |case| Trial::test(trial_name(&port.column, &case.spec.id), || Ok(())))
        })
        .collect();
    let _listed = libtest_mimic::run(&plan.libtest, trials);
}

/// Prints the shuffle seed on stderr when the case order is shuffled, so a run can be replayed,
/// and, with `--repeat`, where each pass makes its sandboxes.
fn announce_seed(repeat: &Repeat) {
    if repeat.passes > 1 || repeat.shuffle {
        let (passes, seed) = (repeat.passes, repeat.seed);
        let shuffle = if repeat.shuffle { " --shuffle" } else { "" };
        eprintln!(
            "skill-conform: case order shuffled with seed {seed} (replay: --repeat {passes}{shuffle} --seed {seed})"
        );
    }
    if repeat.passes > 1 {
        let passes: Vec<String> = repeat
            .placements
            .iter()
            .enumerate()
            .map(|(pass, placement)| {
                let shown = pass_sandboxes(placement);
                let entries = match shown.entries {
                    EntryOrder::Sorted => "entries sorted",
                    EntryOrder::Shuffled => "entries shuffled",
                };
                format!("pass {} in {} ({entries})", pass + 1, shown.base)
            })
            .collect();
        eprintln!("skill-conform: sandboxes: {}", passes.join(", "));
    }
}

/// How a pass's placement is reported.
fn pass_sandboxes(placement: &crate::sandbox::Placement) -> PassSandboxes {
    PassSandboxes {
        base: placement.base().display().to_string(),
        entries: match placement.shuffle {
            None => EntryOrder::Sorted,
            Some(_) => EntryOrder::Shuffled,
        },
    }
}

/// What observing gave: the planned cases, each port's run, and the sessions still closing.
struct Observations {
    /// Dropped first: waits for the adapters to exit (before their home directory goes).
    _closing: Vec<Closing>,
    cases: Vec<PlannedCase>,
    /// Each port's observation with the global indices of the cases it ran.
    ports: Vec<(PortObservation, Vec<usize>)>,
    /// The temporary HOME, registered for removal on SIGINT/SIGTERM.
    _home: (crate::interrupt::DirGuard, tempfile::TempDir),
}

/// One port's share of the plan: its chosen cases and its pass orders, in its own indices.
struct PortShare {
    /// Global case index -> index among this port's chosen cases.
    local: BTreeMap<usize, usize>,
    passes: Vec<Vec<usize>>,
}

impl PortShare {
    /// The cases the libtest filter keeps for `port`; `None` when it keeps none.
    fn of(plan: &Plan, port: &str) -> Option<PortShare> {
        let local: BTreeMap<usize, usize> = plan
            .cases
            .iter()
            .enumerate()
            .filter(|(_, c)| selected(&plan.libtest, &trial_name(port, &c.spec.id)))
            .enumerate()
            .map(|(local, (global, _))| (global, local))
            .collect();
        let passes = plan
            .repeat
            .orders
            .iter()
            .map(|order| order.iter().filter_map(|g| local.get(g).copied()).collect())
            .collect();
        (!local.is_empty()).then_some(PortShare { local, passes })
    }
}

type PlanReceiver = std::sync::mpsc::Receiver<Option<std::sync::Arc<Vec<PlannedCase>>>>;

/// Stage 2 — observe every port that has a selected trial, concurrently: each resolves, sets
/// up, starts and runs its smoke pair while the reference plans the load lists (the overlap is
/// part of the runner's measured overhead); then each runs its cases in its one session.
fn observe_ports(plan: &Plan) -> Result<Observations, Error> {
    let (home, home_dir) = crate::sandbox::plain_tempdir("skill-conform-home-")
        .map_err(|e| Error::Usage(e.to_string()))?;
    let home_interrupt = crate::interrupt::register_dir(&home_dir);
    let (planned, runs): (Result<Vec<PlannedCase>, Error>, Vec<PortRun>) =
        std::thread::scope(|scope| {
            let mut senders = Vec::new();
            let handles: Vec<_> = plan
                .ports
                .iter()
                .filter_map(|port| {
                    let share = PortShare::of(plan, &port.column)?;
                    let (plan_tx, plan_rx) = std::sync::mpsc::channel();
                    senders.push(plan_tx);
                    let home_dir = &home_dir;
                    Some(scope.spawn(move || observe_port(plan, port, home_dir, share, plan_rx)))
                })
                .collect();
            let planned = plan_loads(plan.cases.clone());
            let shared = planned
                .as_ref()
                .ok()
                .map(|p| std::sync::Arc::new(p.clone()));
            for sender in senders {
                let _ = sender.send(shared.clone());
            }
            let runs = handles
                .into_iter()
                .filter_map(|h| h.join().expect("a port worker does not panic"))
                .collect();
            (planned, runs)
        });
    let cases = planned?;
    let mut closing = Vec::new();
    let ports = runs
        .into_iter()
        .map(|(observation, chosen, ending)| {
            closing.push(ending);
            (observation, chosen)
        })
        .collect();
    Ok(Observations {
        _closing: closing,
        cases,
        ports,
        _home: (home_interrupt, home),
    })
}

/// One port's worker: resolve and set up (the first stage of observe), start the adapter while
/// waiting for the plan and building the sandboxes, then run its cases.
fn observe_port(
    plan: &Plan,
    port: &PortPlan,
    home: &Path,
    share: PortShare,
    plan_rx: PlanReceiver,
) -> Option<PortRun> {
    let began = std::time::Instant::now();
    crate::progress::setting_up(port.request.name());
    let resolved = port::resolve(&port.request, &plan.specs, &plan.repo, home).named(&port.column);
    crate::progress::resolved(&resolved, began.elapsed());
    std::thread::scope(|inner| {
        let starter = inner.spawn(|| start_port(resolved, &plan.observe));
        let Ok(Some(planned)) = plan_rx.recv() else {
            starter
                .join()
                .expect("starting a port does not panic")
                .close();
            return None;
        };
        let chosen: Vec<usize> = share.local.keys().copied().collect();
        let owned: Vec<PlannedCase> = chosen.iter().map(|&g| planned[g].clone()).collect();
        let sandboxes = build_sandboxes(
            owned.iter().map(|c| c.spec.clone()).collect(),
            run_order(&share.passes),
            (plan.observe.keep_sandbox, plan.repeat.placements.clone()),
        );
        let started = starter.join().expect("starting a port does not panic");
        let (observation, closing) =
            run_started_with(started, &owned, &share.passes, &plan.observe, sandboxes);
        let judged: Vec<&PlannedCase> = owned.iter().collect();
        crate::partial::update(|partial| {
            judge_port(
                partial,
                &observation,
                &judged,
                (&port.expected, &plan.reproduce),
            );
        });
        if observation.trouble.is_none() {
            crate::progress::ran(&observation.name, owned.len(), began.elapsed());
        }
        Some((observation, chosen, closing))
    })
}

/// Stage 3 — judge every observation into [`Results`].
fn judge_all(plan: &Plan, observed: &Observations) -> Results {
    let mut results = Results::new();
    results.expectation_errors = plan.expectation_errors.clone();
    for case in &observed.cases {
        let info = CaseInfo {
            golden_sha256: Some(crate::rundiff::golden_sha256(&case.golden)),
            ..CaseInfo::from(&case.spec)
        };
        results.add_case(case.spec.id.clone(), info);
    }
    let mut raw_differences = BTreeMap::new();
    for (observation, chosen) in &observed.ports {
        let chosen: Vec<&PlannedCase> = chosen.iter().map(|&g| &observed.cases[g]).collect();
        // The port as planned: its column is the observation's name (`python@0.18.1`).
        let planned = plan
            .ports
            .iter()
            .find(|port| port.column == observation.name);
        let expected = planned.map_or(&[][..], |port| port.expected.as_slice());
        let differences = judge_port(
            &mut results,
            observation,
            &chosen,
            (expected, &plan.reproduce),
        );
        if let (Some(info), Some(port)) = (results.ports.get_mut(&observation.name), planned) {
            info.origin = crate::origin::describe(&port.request, &plan.specs);
        }
        if !differences.is_empty() {
            raw_differences.insert(observation.name.clone(), differences);
        }
    }
    if plan.repeat.passes > 1 {
        results.repeat = Some(RepeatInfo {
            passes: plan.repeat.passes,
            seed: plan.repeat.seed,
            raw_differences,
            sandboxes: plan.repeat.placements.iter().map(pass_sandboxes).collect(),
        });
    }
    results
}

/// Stage 4 — report: libtest's lines, the terminal matrix, the report files and, with
/// `--write-expected`, the drafted `expected.toml` files.
fn report_all(plan: &Plan, results: &Results, observed: &Observations) -> Result<(), Error> {
    if plan.reports.libtest_listing {
        let _conclusion = libtest_mimic::run(&plan.libtest, libtest_trials(results));
        println!();
    }
    // The terminal shows real paths; the files, meant for sharing, say `[REPO]`.
    let mut terminal_redactor = Redactor::none().durations(plan.reports.redact_volatile);
    let mut redactor = Redactor::none()
        .repo(&plan.repo)
        .durations(plan.reports.redact_volatile);
    if plan.reports.redact_volatile {
        for (observation, _) in &observed.ports {
            for dir in &observation.sandboxes {
                redactor = redactor.sandbox(dir);
                terminal_redactor = terminal_redactor.sandbox(dir);
            }
        }
    }
    let options = report::terminal::Options { color: false };
    print!(
        "{}",
        report::terminal::render(results, &terminal_redactor, options)
    );
    let report_dir = &plan.reports.dir;
    report::write_reports(results, report_dir, &redactor)
        .map_err(|e| Error::io(format!("writing reports to `{}`", report_dir.display()), e))?;
    let specs: Vec<_> = observed.cases.iter().map(|c| c.spec.clone()).collect();
    let layout = crate::goldens::Layout::under(&plan.repo);
    crate::writing_tool::append_section(&report_dir.join("summary.md"), &layout, &specs)?;
    println!("reports written to {}", report_dir.display());
    if plan.reports.write_expected && !results.tampered.is_empty() {
        eprintln!("skill-conform: not drafting expected.toml: the run is tampered");
    } else if plan.reports.write_expected {
        write_expected(plan, results, observed)?;
    }
    Ok(())
}

/// libtest-mimic trials that report the verdicts we already have.
fn libtest_trials(results: &Results) -> Vec<Trial> {
    results
        .verdicts
        .iter()
        .filter(|((port, _), _)| crate::progress::shown(results, port))
        .map(|((port, case), verdict)| {
            let pinned = results.is_pinned(case);
            let status = verdict.status;
            let message = format!("{} (repro: {})", status.as_str(), verdict.evidence.repro);
            let ignored = status.words().libtest_ignored;
            Trial::test(trial_name(port, case), move || {
                if status.is_failure(pinned) {
                    Err(Failed::from(message))
                } else {
                    Ok(())
                }
            })
            .with_ignored_flag(ignored)
        })
        .collect()
}

/// `--write-expected`: drafts `adapters/<port>/expected.toml` for every port that ran.
fn write_expected(plan: &Plan, results: &Results, observed: &Observations) -> Result<(), Error> {
    for (observation, _) in &observed.ports {
        if observation.name == REFERENCE || observation.trouble.is_some() {
            continue;
        }
        let verdicts = results
            .verdicts
            .iter()
            .filter(|((p, _), _)| *p == observation.name)
            .map(|((_, c), v)| (c, v));
        let path = plan
            .repo
            .join("adapters")
            .join(&observation.name)
            .join("expected.toml");
        std::fs::write(&path, draft_expected(&observation.name, verdicts))
            .map_err(|e| Error::io(format!("writing `{}`", path.display()), e))?;
        println!(
            "drafted {} (review every reason before committing)",
            path.display()
        );
    }
    Ok(())
}

/// Judges every chosen case of one observed port into `results`, folding repeated passes into
/// one verdict; returns the cases whose raw replies differed between passes in what
/// normalisation removes.
fn judge_port(
    results: &mut Results,
    observation: &PortObservation,
    chosen: &[&PlannedCase],
    (expected, reproduce): (&[ExpectedEntry], &Reproducer),
) -> BTreeMap<CaseId, RawDifference> {
    let mut raw_differences = BTreeMap::new();
    let name = observation.name.as_str();
    // Every verdict's reproduce line names the port as given, with what else decided it.
    let insert = |results: &mut Results, id: &CaseId, mut verdict: Verdict| {
        let repeated = verdict.status == Status::Nondeterministic;
        verdict.evidence.repro = reproduce.trial(name, id, repeated);
        results.insert(name, id.clone(), verdict);
    };
    let mut info = PortInfo::available(name);
    if let Some(hello) = &observation.hello {
        info.hello = HelloFacts::of(hello);
        info.isolation = Some(crate::confine::level());
    }
    match &observation.trouble {
        Some(PortTrouble::Unavailable(reason)) => {
            info.status = PortStatus::Unavailable {
                reason: reason.clone(),
            };
            for case in chosen {
                let verdict = Verdict::unavailable(name, &case.spec.id, reason.clone());
                insert(results, &case.spec.id, verdict);
            }
        }
        Some(PortTrouble::Broken {
            what,
            evidence,
            reply,
        }) => {
            let fault = evidence.as_deref().map(FaultDetails::from);
            let broken = Evidence {
                fault: fault.clone(),
                reason: Some(what.clone()),
                raw: reply.clone(),
                stderr_tail: evidence
                    .as_deref()
                    .and_then(|e| stderr_text(&e.stderr_tail)),
                repro: reproduce.port(name),
                ..Evidence::default()
            };
            info.status = PortStatus::Broken {
                evidence: Box::new(broken),
            };
            for case in chosen {
                let mut verdict = Verdict::broken(name, &case.spec.id, fault.clone());
                verdict.evidence.reason = Some(what.clone());
                insert(results, &case.spec.id, verdict);
            }
        }
        None => {
            for case in chosen {
                let id = &case.spec.id;
                let Some((verdict, difference)) = judge_case(observation, case, expected) else {
                    continue;
                };
                if let Some(difference) = difference {
                    raw_differences.insert(id.clone(), difference);
                }
                insert(results, id, verdict);
            }
            if let Some(why) = given_up(observation) {
                info.status = PortStatus::Broken {
                    evidence: Box::new(Evidence {
                        reason: Some(why.to_owned()),
                        repro: reproduce.port(name),
                        ..Evidence::default()
                    }),
                };
            }
        }
    }
    results.add_port(info);
    raw_differences
}

/// Why a port was given up mid-run (`--max-timeouts`), if it was.
fn given_up(observation: &PortObservation) -> Option<&str> {
    std::iter::once(&observation.observed)
        .chain(&observation.repeats)
        .flat_map(BTreeMap::values)
        .find_map(|observed| match observed {
            Observed::NotRun(why) => Some(why.as_str()),
            _ => None,
        })
}

/// One case of a port that ran: its passes folded into one verdict, and how its raw replies
/// differed between passes when its verdict did not (`None` when it has no observation).
fn judge_case(
    observation: &PortObservation,
    case: &PlannedCase,
    expected: &[ExpectedEntry],
) -> Option<(Verdict, Option<RawDifference>)> {
    let (name, id) = (observation.name.as_str(), &case.spec.id);
    let first = observation.observed.get(id)?;
    let runs: Vec<&Observed> = std::iter::once(first)
        .chain(observation.repeats.iter().filter_map(|pass| pass.get(id)))
        .filter(|observed| !matches!(observed, Observed::NotRun(_)))
        .collect();
    if runs.is_empty() {
        let Observed::NotRun(why) = first else {
            unreachable!("only not-run observations are left out")
        };
        return Some((Verdict::not_run(name, id, why.as_str()), None));
    }
    let verdicts = runs
        .iter()
        .map(|observed| match observed {
            Observed::SandboxFailed(why) => Verdict {
                status: Status::Error,
                evidence: Evidence {
                    reason: Some(format!("skill-conform could not build the sandbox: {why}")),
                    repro: judge::repro_command(name, id),
                    ..Evidence::default()
                },
            },
            Observed::SandboxModified(changes) => Verdict {
                status: Status::SandboxModified,
                evidence: Evidence {
                    reason: Some(format!(
                        "the adapter modified its sandbox, which it may only read:\n{}",
                        changes.join("\n")
                    )),
                    repro: judge::repro_command(name, id),
                    ..Evidence::default()
                },
            },
            observed => judge_observed(name, case, observed, expected, observation),
        })
        .collect();
    let verdict = judge::judge_repeats(verdicts).expect("one run at least");
    if verdict.status == Status::Nondeterministic {
        return Some((verdict, None));
    }
    let replies: Option<Vec<(&serde_json::Value, &[String])>> = runs
        .iter()
        .map(|observed| match observed {
            Observed::Reply { raw, roots, .. } => Some((raw, roots.as_slice())),
            _ => None,
        })
        .collect();
    let difference = replies
        .filter(|r| r.len() > 1)
        .and_then(|r| judge::raw_difference(&r));
    Some((verdict, difference))
}

fn judge_observed(
    port: &str,
    case: &PlannedCase,
    observed: &Observed,
    expected: &[ExpectedEntry],
    observation: &PortObservation,
) -> Verdict {
    let (outcome, stderr_tail, duration) = match observed {
        Observed::Reply {
            raw,
            roots,
            duration,
        } => (
            Outcome::Reply {
                raw: raw.clone(),
                normalized: compared_form(raw, roots, &case.spec.compare),
            },
            None,
            Some(*duration),
        ),
        Observed::Fault { evidence, duration } => (
            Outcome::Fault(FaultDetails::from(evidence.as_ref())),
            stderr_text(&evidence.stderr_tail),
            Some(*duration),
        ),
        Observed::Vacuous(reason) => (
            Outcome::Vacuous {
                reason: reason.clone(),
            },
            None,
            None,
        ),
        Observed::SandboxFailed(_) | Observed::SandboxModified(_) | Observed::NotRun(_) => {
            unreachable!("handled by the caller")
        }
    };
    judge_trial(TrialInput {
        port,
        case: &case.spec.id,
        pinned: case.spec.pinned,
        golden: &case.golden,
        outcome,
        expected,
        port_version: observation.hello.as_ref().map(|h| h.version.as_str()),
        stderr_tail,
        duration_ms: duration.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
    })
}
