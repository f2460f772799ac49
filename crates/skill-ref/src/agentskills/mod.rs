//! The Agent Skills (agentskills.io) profile's reference: per skill directory, the verdict, the
//! parsed properties and a stable `AS-` rule code for every violation of the specification, and
//! the `<available_skills>` prompt of the valid skills. The rules and their codes are listed in
//! `crates/skill-ref/AGENTSKILLS.md`; [`mutant`] holds the profile's deliberate bugs.
//!
//! ```no_run
//! use skill_ref::agentskills::{self, AsConfig};
//! let output = agentskills::run_case(&AsConfig::default(), "skills".as_ref(), "{root0}").unwrap();
//! println!("{}", skill_ref::canonical::to_canonical_string(&output));
//! ```

pub mod check;
pub mod mutant;
pub mod output;
pub mod prompt;
pub mod rule;

use std::path::Path;

pub use mutant::{AsConfig, AsMutant};
pub use output::{CaseOutput, Properties, Report, SkillReport, Verdict};
pub use rule::Rule;

/// The revision of the profile's rules (AGENTSKILLS.md); `goldens/agentskills/VERSION` names it.
/// Bump it when a rule, a code or the reply shape changes.
pub const REVISION: &str = "agentskills-spec-r1";

/// The file a skill directory must hold, spelled exactly so.
pub const SKILL_FILE: &str = "SKILL.md";

/// Checks the skill directory `dir`: its `SKILL.md` (exact spelling, even on a file system that
/// ignores case) against the specification, the name against the directory's own name.
pub fn check_dir(config: &AsConfig, dir: &Path) -> std::io::Result<Report> {
    let dir_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut holds_skill_file = false;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        holds_skill_file |= entry.file_name() == SKILL_FILE && entry.file_type()?.is_file();
    }
    if !holds_skill_file {
        return Ok(Report::unreadable(Rule::FileMissing));
    }
    let bytes = std::fs::read(dir.join(SKILL_FILE))?;
    Ok(check::check_bytes(config, &dir_name, &bytes))
}

/// Runs one case: every directory directly under `skills_dir`, in code-point order, and the
/// prompt of the valid ones with locations written as `{root_label}/<dir>/SKILL.md`.
pub fn run_case(
    config: &AsConfig,
    skills_dir: &Path,
    root_label: &str,
) -> std::io::Result<CaseOutput> {
    let mut dirs = Vec::new();
    for entry in std::fs::read_dir(skills_dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            dirs.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    dirs.sort();
    let mut skills = Vec::new();
    for dir in dirs {
        let report = check_dir(config, &skills_dir.join(&dir))?;
        skills.push(SkillReport { dir, report });
    }
    let prompt = case_prompt(config, &skills, root_label);
    Ok(CaseOutput { skills, prompt })
}

/// The prompt of a case: its valid skills, in `dir` order.
fn case_prompt(config: &AsConfig, skills: &[SkillReport], root_label: &str) -> String {
    let listed = |skill: &&SkillReport| {
        skill.report.verdict == Verdict::Valid || config.is(AsMutant::PromptListsInvalid)
    };
    let located: Vec<(String, &Properties)> = skills
        .iter()
        .filter(listed)
        .filter_map(|s| {
            let location = format!("{root_label}/{}/{SKILL_FILE}", s.dir);
            s.report.properties.as_ref().map(|p| (location, p))
        })
        .collect();
    let entries: Vec<prompt::Entry<'_>> = located
        .iter()
        .filter_map(|(location, p)| {
            Some(prompt::Entry {
                name: p.name.as_deref()?,
                description: p.description.as_deref()?,
                location,
            })
        })
        .collect();
    prompt::available_skills(config, &entries)
}
