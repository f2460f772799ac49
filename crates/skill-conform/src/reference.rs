//! The reference loader as the harness uses it: one case in, the `run` reply body out.
//!
//! `skill-conform ref`, `adapter --reference [--mutant NAME]`, golden generation and the mutant
//! proof all go through [`run_reference`], so every path sees the same answer.

use std::path::{Path, PathBuf};

use skill_ref::{Config, Filter, InvalidSampleLimit, Options, Output, SampleLimit, Source};

/// The name the default load list ends with: a skill no case defines.
pub const UNKNOWN_SKILL: &str = "no-such-skill";

/// What to load: an explicit list, or every accepted name in code-point order followed by
/// `extra` (for `ref`, the `--load` names; for cases, [`UNKNOWN_SKILL`]).
#[derive(Clone, Debug)]
pub enum LoadList {
    Exactly(Vec<String>),
    AcceptedThen(Vec<String>),
}

/// One reference run: the reply body and the loader's warnings.
#[derive(Debug)]
pub struct ReferenceRun {
    pub output: Output,
    pub warnings: Vec<String>,
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
    Ok(ReferenceRun {
        output: source.output(&names, tool),
        warnings: source.warnings().to_vec(),
    })
}
