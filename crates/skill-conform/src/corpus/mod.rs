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
//! (`normalize`): roots become `{root0}`, `{root1}` …, inventory lists are sorted,
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
//!
//! | module       | owns                                                                  |
//! |--------------|-----------------------------------------------------------------------|
//! | this file    | orchestration: roots, ports, the one request, each port's session     |
//! | `model`      | the typed `corpus.json` ([`CorpusReport`]) and its schema             |
//! | `analysis`   | [`analyse`]: normalised replies to a [`CorpusReport`] (pure)          |
//! | `report::corpus` | rendering `corpus.md` and `corpus.json`                           |

mod analysis;
mod model;

pub use crate::report::corpus::{render_json, render_markdown, write_report};
pub use analysis::analyse;
pub(crate) use analysis::{cut, text_of};
pub use model::*;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;
use skill_ref::canonical::to_canonical_string;

use crate::case::Field;
use crate::error::{Error, ExitCode};
use crate::judge::{stderr_text, FaultDetails};
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
    /// Also observe the folders with the writing tool ([`crate::writing_tool::corpus`]).
    pub writing_tool: bool,
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

/// Runs corpus mode and returns the exit code (see the module doc).
pub fn corpus(options: CorpusOptions) -> Result<ExitCode, Error> {
    // Plan: every usage error before anything starts.
    let repo = crate::plan::canonical_repo(&options.repo)?;
    let roots = absolute_roots(&options.dirs)?;
    let specs = port::read_ports(&repo)?;
    let requests = requested_ports(&options.ports, &specs)?;
    let report_dir = options
        .report_dir
        .clone()
        .unwrap_or_else(|| repo.join("reports"));
    crate::output_dir::check_writable(&report_dir, "--report-dir")?;
    // Observe: the reference in process, then every port in its own session, concurrently.
    let (request, reference) = run_reference_over(&roots);
    let mut results = vec![reference];
    let home = crate::sandbox::plain_tempdir("skill-conform-home-")
        .map_err(|e| Error::Usage(e.to_string()))?;
    // SIGINT/SIGTERM: kill the adapters, remove HOME, exit 130/143 (no partial corpus report).
    crate::partial::watch();
    let _home_interrupt = crate::interrupt::register_dir(&home.1);
    results.extend(std::thread::scope(|scope| {
        let handles: Vec<_> = requests
            .iter()
            .map(|port_request| {
                let (specs, repo, home, request) = (&specs, &repo, &home.1, &request);
                scope.spawn(move || {
                    let resolved = port::resolve(port_request, specs, repo, home);
                    run_port(resolved, request, options.timeouts)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a port worker does not panic"))
            .collect::<Vec<_>>()
    }));
    // Judge and report.
    let report = analyse(roots, request.load.len(), results);
    print!("{}", render_markdown(&report, Some(TERMINAL_ROWS)));
    write_report(&report, &report_dir)
        .map_err(|e| Error::io(format!("writing reports to `{}`", report_dir.display()), e))?;
    if options.writing_tool {
        crate::writing_tool::corpus::report(&repo, &report, &report_dir)?;
    }
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

/// The ports to compare (default: every port of `ports.toml`), each known and selected once;
/// the reference is always its own column, never one of them.
fn requested_ports(
    asked: &[PortRequest],
    specs: &BTreeMap<String, port::PortSpec>,
) -> Result<Vec<PortRequest>, Error> {
    let mut requests: Vec<PortRequest> = if asked.is_empty() {
        specs
            .keys()
            .map(|name| PortRequest::Named {
                name: name.clone(),
                version: None,
                path: None,
            })
            .collect()
    } else {
        asked.to_vec()
    };
    requests
        .retain(|request| !matches!(request, PortRequest::Named { name, .. } if name == REFERENCE));
    let mut seen = BTreeSet::from([REFERENCE.to_owned()]);
    for request in &requests {
        port::check_known(request, specs)?;
        if !seen.insert(request.name().to_owned()) {
            return Err(Error::Usage(format!(
                "port `{}` is selected twice",
                request.name()
            )));
        }
    }
    Ok(requests)
}

/// The reference over `roots` in process, and the one request every port gets: every name it
/// accepts, then [`UNKNOWN_SKILL`].
fn run_reference_over(roots: &[String]) -> (RunRequest, PortResult) {
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
        roots: roots.to_vec(),
        sample_limit: 0,
        filter: BTreeMap::new(),
        load: reference
            .output
            .loads
            .iter()
            .map(|l| l.name.clone())
            .collect(),
        tool: false,
        profile: None,
    };
    let raw = serde_json::to_value(&reference.output).expect("the output serialises");
    let result = PortResult {
        name: REFERENCE.to_owned(),
        hello: Some(crate::reference::hello(REFERENCE)),
        run: PortRun::Reply {
            normalized: normalize(&raw, roots, &Field::default_set()),
        },
    };
    (request, result)
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
        max_timeouts: None,
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

#[cfg(test)]
mod tests {
    use super::analysis::first_difference;
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
