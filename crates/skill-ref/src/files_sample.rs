//! The `<skill_files>` sample (`TN-SAMP-*`): collect every regular file under the skill
//! directory, sort by the path relative to it in code-point order, then cap.

use std::path::{Path, PathBuf};

use crate::mutant::{Config, Mutant};
use crate::order;
use crate::walk::{is_excluded_dir, Found, Kind, Walker};

/// Returns the sampled files' absolute paths (as discovered), at most `cap` of them.
pub fn sample(config: &Config, walker: &Walker, skill_dir: &Path, cap: usize) -> Vec<PathBuf> {
    let keep = |relative: &str, name: &[u8]| -> bool {
        let nested = relative.contains('/');
        if name == b"SKILL.md" && !(nested && config.is(Mutant::SampleListsSkillMd)) {
            return false;
        }
        if config.is(Mutant::SampleSkipsDotfiles) && name.starts_with(b".") {
            return false;
        }
        !(config.is(Mutant::SampleSkipsGitFile) && name == b".git")
    };
    if config.is(Mutant::PerDirectorySampleOrder) {
        let mut found = Vec::new();
        per_level(config, walker, skill_dir, "", &keep, &mut found);
        found.truncate(cap);
        return found.into_iter().map(|f| f.path).collect();
    }
    let mut found = if config.is(Mutant::CapBeforeSort) {
        walker.walk(skill_dir, true, &mut |r, n| keep(r, n), &mut |f| {
            f.len() >= cap
        })
    } else {
        walker.walk(skill_dir, true, &mut |r, n| keep(r, n), &mut |_| false)
    };
    found.sort_by(|a, b| order::compare(config, &a.relative, &b.relative));
    found.truncate(cap);
    found.into_iter().map(|f| f.path).collect()
}

/// The wrong order A25 rejected: each directory's entries by bare name, subdirectories expanded
/// where they sort. (No cycle guard beyond the excluded names: mutants run on fixture trees.)
fn per_level(
    config: &Config,
    walker: &Walker,
    dir: &Path,
    prefix: &str,
    keep: &dyn Fn(&str, &[u8]) -> bool,
    found: &mut Vec<Found>,
) {
    let Some(real) = walker.real_path(dir) else {
        return;
    };
    if prefix.matches('/').count() > 32 {
        return;
    }
    let listing = walker.list(dir, &real);
    for entry in &listing.entries {
        let name = entry.name.as_encoded_bytes();
        let relative = format!("{prefix}{}", entry.name.to_string_lossy());
        match &entry.kind {
            Kind::Dir { .. } if !is_excluded_dir(config, name) => per_level(
                config,
                walker,
                &dir.join(&entry.name),
                &(relative + "/"),
                keep,
                found,
            ),
            Kind::File if keep(&relative, name) => found.push(Found {
                path: dir.join(&entry.name),
                relative,
            }),
            _ => {}
        }
    }
}
