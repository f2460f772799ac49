//! The reference loader as the harness uses it: one case in, the `run` reply body out.
//!
//! `skill-conform ref`, `adapter --reference [--mutant NAME]`, golden generation and the mutant
//! proof all go through [`run_reference`], so every path sees the same answer.

use std::path::{Path, PathBuf};

use serde_json::Value;
use skill_ref::{Config, Filter, InvalidSampleLimit, Options, Output, SampleLimit, Source};

use crate::case::{CaseSpec, Field};

/// The name the default load list ends with: a skill no case defines.
pub(crate) const UNKNOWN_SKILL: &str = "no-such-skill";

/// What to load: an explicit list, or every accepted name in code-point order followed by
/// `extra` (for `ref`, the `--load` names; for cases, [`UNKNOWN_SKILL`]).
#[derive(Clone, Debug)]
pub(crate) enum LoadList {
    Exactly(Vec<String>),
    AcceptedThen(Vec<String>),
}

/// One reference run: the reply body, the loader's warnings, and what its walks could not read.
#[derive(Debug)]
pub(crate) struct ReferenceRun {
    pub output: Output,
    pub warnings: Vec<String>,
    /// Unreadable directories, unfollowable links, names that are not UTF-8 (sorted by path).
    pub walk_problems: Vec<skill_ref::walk::WalkProblem>,
}

/// Runs the reference (or a mutant) over `roots`, relative ones resolved against `cwd`.
pub fn run_reference(
    config: Config,
    roots: &[PathBuf],
    sample_limit: i64,
    filter: &Filter,
    load: &LoadList,
    tool: bool,
    cwd: &Path,
) -> Result<ReferenceRun, InvalidSampleLimit> {
    let options = Options {
        sample_limit: SampleLimit::try_from(sample_limit)?,
        filter: filter.clone(),
    };
    let source = Source::load_with(config, roots, &options, cwd);
    let names = match load {
        LoadList::Exactly(names) => names.clone(),
        LoadList::AcceptedThen(extra) => {
            let mut names = source.accepted_names();
            names.extend(extra.iter().cloned());
            names
        }
    };
    let output = source.output(&names, tool);
    Ok(ReferenceRun {
        output,
        warnings: source.warnings().to_vec(),
        walk_problems: source.walk_problems(),
    })
}

/// The request a case makes of every adapter, and the reference's raw reply to it.
#[derive(Clone, Debug)]
pub(crate) struct CaseRun {
    /// The names to load: the case's own list, or every accepted name then [`UNKNOWN_SKILL`].
    pub load: Vec<String>,
    /// The reply body (no `case`): the output, or `{"error": …}` for input the contract refuses.
    pub reply: Value,
}

/// Runs a case's request through the reference (or a mutant) over the sandbox `roots`.
pub(crate) fn run_case(config: Config, case: &CaseSpec, roots: &[String]) -> CaseRun {
    let roots: Vec<PathBuf> = roots.iter().map(PathBuf::from).collect();
    let tool = case.compare.contains(&Field::Tool);
    // One load serves the load list and the reply. Discovery does not depend on the sample
    // limit, so the load list is known even when the limit itself is refused.
    let sample_limit = SampleLimit::try_from(case.sample_limit);
    let options = Options {
        sample_limit: sample_limit.clone().unwrap_or_default(),
        filter: case.filter.clone(),
    };
    let source = Source::load_with(config, &roots, &options, Path::new("/"));
    let load = case.load_or_default(&source.accepted_names());
    let reply = match sample_limit {
        Ok(_) => serde_json::to_value(source.output(&load, tool)).expect("the output serialises"),
        Err(error) => serde_json::json!({ "error": error.to_string() }),
    };
    CaseRun { load, reply }
}

/// The reference's answer to `hello`, as port `port` (`reference`, or a mutant's name).
pub fn hello(port: &str) -> crate::session::HelloReply {
    let mut hello = crate::session::HelloReply::new(
        port,
        "skill-ref",
        format!(
            "{} ({})",
            env!("CARGO_PKG_VERSION"),
            skill_ref::CONTRACT_REVISION
        ),
        "rust",
    );
    let (library, version) = skill_ref::YAML_LIBRARY;
    hello.libraries.insert(library.into(), version.into());
    hello
}
