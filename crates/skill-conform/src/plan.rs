//! From what the user asked to what will run: cases selected by `--case` globs, each with its
//! committed golden and the request every port gets. Nothing starts an adapter here.

use crate::case::{self, CaseSelector};
use crate::error::Error;
use crate::goldens::{version_text, Layout};
use crate::observe::PlannedCase;
use crate::reference::run_case;
use crate::sandbox::Sandbox;

/// Plans the selected cases (all when `globs` is empty), sorted by id.
pub fn plan_cases(layout: &Layout, globs: &[String]) -> Result<Vec<PlannedCase>, Error> {
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
    let mut planned = Vec::new();
    for spec in selected {
        let golden_path = layout.golden_path(&spec.id);
        let golden = std::fs::read_to_string(&golden_path).map_err(|_| {
            Error::Usage(format!(
                "missing golden `{}` (hint: run `skill-conform goldens --write`)",
                golden_path.display()
            ))
        })?;
        // The load list depends only on which names the reference accepts, not on where the
        // sandbox is; a vacuous sandbox still gives it.
        let sandbox = Sandbox::prepare(spec, false).map_err(|e| Error::Usage(e.to_string()))?;
        let run = run_case(skill_ref::Config::default(), spec, sandbox.roots());
        planned.push(PlannedCase {
            spec: spec.clone(),
            golden,
            load: run.load,
            tool: run.tool,
        });
    }
    Ok(planned)
}
