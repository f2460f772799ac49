//! Observing one port: resolve it, start one adapter session, run the smoke pair, then every
//! planned case in its own sandbox. Process control lives here; what an observation *means*
//! is the judge's.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::case::{CaseId, CaseSpec, Field};
use crate::hang_budget::HangBudget;
use crate::normalize::compared_form;
use crate::port::Resolved;
use crate::sandbox::{Placement, Sandbox};
use crate::session::{FaultEvidence, HelloReply, RunRequest, Session, Timeouts, IN_FLIGHT};
use crate::tamper::TreeDigest;

/// A case ready to run: its spec, its golden, and the request every port gets.
#[derive(Clone, Debug)]
pub struct PlannedCase {
    pub spec: CaseSpec,
    /// The committed golden (canonical text).
    pub golden: String,
    /// The names to load (from the case, or the reference's accepted names).
    pub load: Vec<String>,
    pub tool: bool,
}

impl PlannedCase {
    /// The `run` request of this case over the sandbox `roots`.
    pub fn request(&self, roots: Vec<String>) -> RunRequest {
        RunRequest {
            case: self.spec.id.to_string(),
            roots,
            sample_limit: self.spec.sample_limit,
            filter: self.spec.filter.clone(),
            load: self.load.clone(),
            tool: self.tool,
            profile: None,
        }
    }
}

/// What happened when one case ran on one port.
#[derive(Clone, Debug)]
pub enum Observed {
    /// The adapter replied (possibly with an `error` field); the roots are the sandbox's.
    Reply {
        raw: Value,
        roots: Vec<String>,
        duration: Duration,
    },
    /// The adapter crashed, hung, or broke the protocol.
    Fault {
        evidence: Box<FaultEvidence>,
        duration: Duration,
    },
    /// The case's precondition does not hold on this filesystem.
    Vacuous(String),
    /// The sandbox could not be built (a skill-conform or fixture problem, not the port's).
    SandboxFailed(String),
    /// The sandbox changed between the request and its reply (`changed|added|removed PATH`
    /// lines): the port wrote where it may only read, and its reply is not judged.
    SandboxModified(Vec<String>),
    /// Never sent: the port had used up its timeouts ([`ObserveOptions::max_timeouts`]); why.
    NotRun(String),
}

/// Why a port could not be judged at all.
#[derive(Clone, Debug)]
pub enum PortTrouble {
    /// Toolchain or package missing.
    Unavailable(String),
    /// It did not start, or failed the smoke pair.
    Broken {
        what: String,
        evidence: Option<Box<FaultEvidence>>,
        reply: Option<Value>,
    },
}

/// Everything observed on one port.
#[derive(Clone, Debug)]
pub(crate) struct PortObservation {
    pub name: String,
    pub hello: Option<HelloReply>,
    pub trouble: Option<PortTrouble>,
    pub observed: BTreeMap<CaseId, Observed>,
    /// The passes after the first (`run --repeat N`), each keyed like `observed`.
    pub repeats: Vec<BTreeMap<CaseId, Observed>>,
    /// Every sandbox directory a case ran in (for redacting them from reports).
    pub sandboxes: Vec<PathBuf>,
    pub restarts: u32,
}

/// The smoke pair: one minimal valid skill and one `missing-name` skip, pinned-safe.
fn smoke_case(dir: &Path) -> std::io::Result<Vec<String>> {
    let root = dir.join("skills");
    std::fs::create_dir_all(root.join("smoke-ok"))?;
    std::fs::create_dir_all(root.join("smoke-missing"))?;
    std::fs::write(
        root.join("smoke-ok/SKILL.md"),
        "---\nname: smoke-ok\ndescription: A minimal valid skill.\n---\nBody.\n",
    )?;
    std::fs::write(
        root.join("smoke-missing/SKILL.md"),
        "---\ndescription: No name here.\n---\nBody.\n",
    )?;
    Ok(vec![root.display().to_string()])
}

/// Runs the smoke pair; `Err` says why the port is broken.
fn smoke(session: &mut Session) -> Result<(), PortTrouble> {
    let broken = |what: String| PortTrouble::Broken {
        what,
        evidence: None,
        reply: None,
    };
    let (_tmp, dir) = crate::sandbox::sandbox_tempdir("skill-conform-smoke-")
        .map_err(|e| broken(format!("could not build the smoke pair: {e}")))?;
    let roots =
        smoke_case(&dir).map_err(|e| broken(format!("could not build the smoke pair: {e}")))?;
    let request = RunRequest {
        case: "smoke/pair".to_owned(),
        roots: roots.clone(),
        sample_limit: 0,
        filter: BTreeMap::new(),
        load: vec!["smoke-ok".to_owned(), "no-such-skill".to_owned()],
        tool: false,
        profile: None,
    };
    let compare = [Field::Inventory].into_iter().collect();
    let reference = crate::reference::run_reference(
        skill_ref::Config::default(),
        &[roots[0].clone().into()],
        0,
        &BTreeMap::new(),
        &crate::reference::LoadList::Exactly(request.load.clone()),
        false,
        Path::new("/"),
    )
    .expect("the smoke pair's options are valid");
    let expected = compared_form(
        &serde_json::to_value(&reference.output).expect("serialises"),
        &roots,
        &compare,
    );
    match session.run(&request) {
        Err(evidence) => Err(PortTrouble::Broken {
            what: "the smoke pair failed".to_owned(),
            evidence: Some(Box::new(evidence)),
            reply: None,
        }),
        Ok(reply) if reply.get("error").is_some() => Err(PortTrouble::Broken {
            what: "the smoke pair answered with an error".to_owned(),
            evidence: None,
            reply: Some(reply),
        }),
        Ok(reply) if compared_form(&reply, &roots, &compare) != expected => Err(PortTrouble::Broken {
            what: "the smoke pair's inventory is not one skill `smoke-ok` and one `missing-name` skip"
                .to_owned(),
            evidence: None,
            reply: Some(reply),
        }),
        Ok(_) => Ok(()),
    }
}

/// Options for observing.
#[derive(Clone, Debug, Default)]
pub(crate) struct ObserveOptions {
    pub timeouts: Timeouts,
    pub keep_sandbox: bool,
    /// After this many timeouts in a row the port's remaining cases are not sent (`None`: never
    /// give up).
    pub max_timeouts: Option<std::num::NonZeroU32>,
}

/// A port after its start: a live session that passed the smoke pair, or an observation that
/// already says why the port cannot be judged (unavailable or broken).
pub(crate) enum Started {
    Ready {
        session: Box<Session>,
        observation: PortObservation,
    },
    Done(PortObservation),
}

/// Starts a resolved port: spawn, handshake, smoke pair. Needs no plan, so the runner does it
/// while the cases are being planned.
pub(crate) fn start_port(resolved: Resolved, options: &ObserveOptions) -> Started {
    let (name, command) = match resolved {
        Resolved::Unavailable { name, reason } => {
            return Started::Done(PortObservation {
                name,
                hello: None,
                trouble: Some(PortTrouble::Unavailable(reason)),
                observed: BTreeMap::new(),
                repeats: Vec::new(),
                sandboxes: Vec::new(),
                restarts: 0,
            })
        }
        Resolved::Ready { name, command, .. } => (name, command),
    };
    let mut observation = PortObservation {
        name,
        hello: None,
        trouble: None,
        observed: BTreeMap::new(),
        repeats: Vec::new(),
        sandboxes: Vec::new(),
        restarts: 0,
    };
    let mut session = match Session::start(command, options.timeouts) {
        Ok(session) => session,
        Err(evidence) => {
            observation.trouble = Some(PortTrouble::Broken {
                what: "the adapter did not start".to_owned(),
                evidence: Some(Box::new(evidence)),
                reply: None,
            });
            return Started::Done(observation);
        }
    };
    observation.hello = Some(session.hello().clone());
    if let Err(trouble) = smoke(&mut session) {
        observation.trouble = Some(trouble);
        let _ = session.close();
        return Started::Done(observation);
    }
    Started::Ready {
        session: Box::new(session),
        observation,
    }
}

impl Started {
    /// Ends a started port without running anything (planning failed).
    pub fn close(self) {
        if let Started::Ready { session, .. } = self {
            let _ = session.close();
        }
    }
}

/// A sandbox built ahead of its case with its digest taken once prepared (compared again after
/// the reply), or why it could not be.
pub(crate) type Prepared = Result<(Sandbox, TreeDigest), String>;

/// Prepares the sandbox of `case` where `placement` says and digests it.
fn prepare_digested(case: &CaseSpec, keep: bool, placement: &Placement) -> Prepared {
    let sandbox = Sandbox::prepare_in(case, keep, placement).map_err(|error| error.to_string())?;
    let digest = crate::tamper::digest_sandbox(&sandbox)
        .map_err(|error| format!("could not digest the sandbox: {error}"))?;
    Ok((sandbox, digest))
}

/// The order in which a port runs its cases: `(pass, index into cases)`.
pub(crate) fn run_order(passes: &[Vec<usize>]) -> Vec<(usize, usize)> {
    passes
        .iter()
        .enumerate()
        .flat_map(|(pass, order)| order.iter().map(move |&index| (pass, index)))
        .collect()
}

/// How many sandboxes the builder keeps ready ahead of the case being run: enough to cover an
/// adapter's start, few enough that `--repeat` on seven ports does not hold every copy at once.
pub(crate) const SANDBOXES_AHEAD: usize = 64;

/// Starts a thread that builds the sandbox of every case in `order`, in that order, each as its
/// pass's placement says (`placements[pass]`; the default one past its end), and hands them
/// over as they are ready, at most [`SANDBOXES_AHEAD`] ahead. The runner starts it while the
/// adapter is still starting (a Python or JVM start leaves a core idle), so the cases rarely
/// wait on the filesystem.
pub(crate) fn build_sandboxes(
    specs: Vec<crate::case::CaseSpec>,
    order: Vec<(usize, usize)>,
    (keep, placements): (bool, Vec<Placement>),
) -> std::sync::mpsc::Receiver<Prepared> {
    let (ready_tx, ready_rx) = std::sync::mpsc::sync_channel(SANDBOXES_AHEAD);
    std::thread::spawn(move || {
        let default = Placement::default();
        for (pass, index) in order {
            let placement = placements.get(pass).unwrap_or(&default);
            if ready_tx
                .send(prepare_digested(&specs[index], keep, placement))
                .is_err()
            {
                break;
            }
        }
    });
    ready_rx
}

/// Runs the passes on a started port, all in its one session, with sandboxes from
/// [`build_sandboxes`] (built for the same `cases` and [`run_order`] of `passes`). Each pass
/// lists indices into `cases` in the order to run them (`run --repeat N`); the first pass goes
/// into [`PortObservation::observed`], the others into [`PortObservation::repeats`]. Used
/// sandboxes are deleted by a helper thread. The session is left [`Closing`].
pub(crate) fn run_started_with(
    started: Started,
    cases: &[PlannedCase],
    passes: &[Vec<usize>],
    options: &ObserveOptions,
    sandboxes: std::sync::mpsc::Receiver<Prepared>,
) -> (PortObservation, Closing) {
    let (mut session, mut observation) = match started {
        Started::Done(observation) => return (observation, Closing::none()),
        Started::Ready {
            session,
            observation,
        } => (session, observation),
    };
    let order = run_order(passes);
    let mut observed_passes = Passes::new(&observation.name, passes.len(), order.len());
    std::thread::scope(|scope| {
        let (done_tx, done_rx) = std::sync::mpsc::channel::<Sandbox>();
        scope.spawn(move || done_rx.into_iter().for_each(drop));
        // Deleting a used copy is the reaper thread's job; if it is gone, drop it here.
        let reap = |sandbox: Sandbox| {
            if let Err(std::sync::mpsc::SendError(sandbox)) = done_tx.send(sandbox) {
                drop(sandbox);
            }
        };
        // Cases sent to the adapter and not answered yet, oldest first, with their sandboxes.
        let mut waiting: VecDeque<Waiting<'_>> = VecDeque::new();
        let mut budget = HangBudget::new(options.max_timeouts);
        for (&(pass, index), prepared) in order.iter().zip(sandboxes) {
            let case = &cases[index];
            if let Some(why) = budget.exhausted() {
                observed_passes.record(pass, case, Observed::NotRun(why.to_owned()));
                prepared.map(|(sandbox, _)| reap(sandbox)).ok();
                continue;
            }
            let (sandbox, digest) = match prepared {
                Ok(prepared) => prepared,
                Err(error) => {
                    observed_passes.record(pass, case, Observed::SandboxFailed(error));
                    continue;
                }
            };
            note_sandbox(&mut observation, case, &sandbox, options.keep_sandbox);
            if let Some(why) = sandbox.vacuous() {
                observed_passes.record(pass, case, Observed::Vacuous(why.to_owned()));
                reap(sandbox);
                continue;
            }
            session.send(case.request(sandbox.roots().to_vec()));
            waiting.push_back((pass, case, sandbox, digest));
            if waiting.len() >= IN_FLIGHT {
                next_reply(
                    &mut session,
                    &mut waiting,
                    &mut observed_passes,
                    &reap,
                    &mut budget,
                );
            }
        }
        while !waiting.is_empty() {
            next_reply(
                &mut session,
                &mut waiting,
                &mut observed_passes,
                &reap,
                &mut budget,
            );
        }
    });
    let mut observed_passes = observed_passes.maps.into_iter();
    observation.observed = observed_passes.next().unwrap_or_default();
    observation.repeats = observed_passes.collect();
    observation.restarts = session.restarts();
    (observation, Closing::start(session))
}

/// A session closing in the background: `bye`, then up to the `bye` timeout for the adapter to
/// exit (an interpreter's shutdown takes a tenth of a second), then its group is killed. The
/// runner judges and reports meanwhile; dropping this waits until the adapter is gone. What
/// happens after `bye` is not judged.
#[must_use = "dropping a Closing waits for the adapter to exit"]
pub(crate) struct Closing(Option<std::thread::JoinHandle<()>>);

impl Closing {
    fn start(session: Box<Session>) -> Closing {
        Closing(Some(std::thread::spawn(move || {
            let _ = session.close();
        })))
    }

    /// Nothing to close (the port never started).
    pub fn none() -> Closing {
        Closing(None)
    }
}

impl Drop for Closing {
    fn drop(&mut self) {
        if let Some(thread) = self.0.take() {
            let _ = thread.join();
        }
    }
}

/// A case sent to the adapter and not answered yet: its pass, the case, its sandbox and the
/// sandbox's digest when the request was sent.
type Waiting<'a> = (usize, &'a PlannedCase, Sandbox, TreeDigest);

/// What changed in `sandbox` since `before` (empty when nothing did).
fn sandbox_changes(sandbox: &Sandbox, before: &TreeDigest) -> Vec<String> {
    match crate::tamper::digest_sandbox(sandbox) {
        Ok(after) => before
            .diff(&after)
            .to_string()
            .lines()
            .map(str::to_owned)
            .collect(),
        Err(error) => vec![format!("unreadable sandbox: {error}")],
    }
}

/// What each pass observed so far, by case; recording a case also moves the port's progress
/// line (`python: 37/144 cases`).
struct Passes {
    maps: Vec<BTreeMap<CaseId, Observed>>,
    progress: crate::progress::CaseProgress,
    done: usize,
}

impl Passes {
    fn new(port: &str, passes: usize, trials: usize) -> Passes {
        Passes {
            maps: vec![BTreeMap::new(); passes],
            progress: crate::progress::CaseProgress::new(port, trials),
            done: 0,
        }
    }

    fn record(&mut self, pass: usize, case: &PlannedCase, observed: Observed) {
        self.maps[pass].insert(case.spec.id.clone(), observed);
        self.done += 1;
        self.progress.update(self.done);
    }
}

/// Remembers a case's sandbox directory (for redaction) and, with `keep`, says where it is.
fn note_sandbox(
    observation: &mut PortObservation,
    case: &PlannedCase,
    sandbox: &Sandbox,
    keep: bool,
) {
    observation.sandboxes.push(sandbox.path().to_path_buf());
    if keep {
        eprintln!(
            "kept sandbox for {}: {}",
            case.spec.id,
            sandbox.path().display()
        );
    }
}

/// Takes the reply to the oldest case in flight ([`take_reply`]) and counts it against the
/// `budget`; once the budget is used up, records the oldest case as not run instead, unsent.
fn next_reply(
    session: &mut Session,
    waiting: &mut VecDeque<Waiting<'_>>,
    observed_passes: &mut Passes,
    reap: &impl Fn(Sandbox),
    budget: &mut HangBudget,
) {
    if let Some(why) = budget.exhausted() {
        let (pass, case, sandbox, _) = waiting.pop_front().expect("a case in flight");
        observed_passes.record(pass, case, Observed::NotRun(why.to_owned()));
        reap(sandbox);
        return;
    }
    budget.record(take_reply(session, waiting, observed_passes, reap));
}

/// Takes the reply to the oldest case in flight and records what it observed; hands the case's
/// sandbox to `reap`. Returns whether the case timed out.
fn take_reply(
    session: &mut Session,
    waiting: &mut VecDeque<Waiting<'_>>,
    observed_passes: &mut Passes,
    reap: &impl Fn(Sandbox),
) -> bool {
    let (pass, case, sandbox, before) = waiting.pop_front().expect("a case in flight");
    let received = session.receive().expect("its request is in flight");
    debug_assert_eq!(received.request.case, case.spec.id.to_string());
    let changes = sandbox_changes(&sandbox, &before);
    let observed = match received.reply {
        _ if !changes.is_empty() => Observed::SandboxModified(changes),
        Ok(raw) => Observed::Reply {
            raw,
            roots: sandbox.roots().to_vec(),
            duration: received.duration,
        },
        Err(evidence) => Observed::Fault {
            evidence: Box::new(evidence),
            duration: received.duration,
        },
    };
    let timed_out = matches!(&observed, Observed::Fault { evidence, .. }
        if evidence.fault.kind() == crate::session::FaultKind::Timeout);
    observed_passes.record(pass, case, observed);
    reap(sandbox);
    timed_out
}
