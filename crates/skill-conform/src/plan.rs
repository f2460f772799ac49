//! From what the user asked to what will run: cases selected by `--case` globs, each with its
//! committed golden and the request every port gets. Nothing starts an adapter here.

use crate::case::{self, CaseSelector, Field};
use crate::error::Error;
use crate::goldens::{version_text, Layout};
use crate::observe::PlannedCase;
use crate::reference::run_case;
use crate::sandbox::Sandbox;

/// A selected case and its committed golden: everything known before the reference runs.
#[derive(Clone, Debug)]
pub struct SelectedCase {
    pub spec: case::CaseSpec,
    pub golden: String,
}

/// What [`select_cases`] found: the selected cases, and every case id of the fixture set
/// (against which `expected.toml` globs are checked).
#[derive(Clone, Debug)]
pub struct CaseSelection {
    pub all_ids: Vec<case::CaseId>,
    pub cases: Vec<SelectedCase>,
}

/// Plans the selected cases (all when `globs` is empty), sorted by id.
pub fn plan_cases(layout: &Layout, globs: &[String]) -> Result<Vec<PlannedCase>, Error> {
    plan_loads(select_cases(layout, globs)?.cases)
}

/// The cheap half of planning, where every usage error is found: discovery, the goldens'
/// version, the `--case` globs, and each selected case's golden.
pub fn select_cases(layout: &Layout, globs: &[String]) -> Result<CaseSelection, Error> {
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

/// The costly half: the request of each case, whose default load list needs the reference to
/// run in a sandbox (the runner does this while the ports set up and start).
pub fn plan_loads(selected: Vec<SelectedCase>) -> Result<Vec<PlannedCase>, Error> {
    let mut planned = Vec::new();
    for SelectedCase { spec, golden } in selected {
        let tool = spec.compare.contains(&Field::Tool);
        // The request's names: the case's own list, or the golden's (which lists every load in
        // request order when it compares loads; `goldens --check` keeps it fresh), or else the
        // reference run in a sandbox — the load list depends only on which names it accepts,
        // not on where the sandbox is, and a vacuous sandbox still gives it.
        let load = match (&spec.load, golden_load_names(&golden)) {
            (Some(load), _) => load.clone(),
            (None, Some(load)) => load,
            (None, None) => {
                let sandbox =
                    Sandbox::prepare(&spec, false).map_err(|e| Error::Usage(e.to_string()))?;
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
