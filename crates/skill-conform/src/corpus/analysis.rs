//! [`analyse`]: a pure function from the reference's and the ports' normalised replies to a
//! [`CorpusReport`] (see the `corpus` module doc for what it finds).

use super::{
    counts_as_not_compared, display_order, CorpusReport, DuplicateRow, FirstDifference,
    InventoryCluster, LoadAnswer, LoadAnswers, LoadDifference, LoadsSummary, LocationRow,
    LocationVerdict, PortResult, PortRun, PortState, PortSummary, UncomparedLoads, FORMAT,
    LINE_CHARS,
};
use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use skill_ref::canonical::to_canonical_string;

use crate::judge::cluster::agreement;
use crate::judge::{fingerprint, HelloFacts, PortKind};
use crate::port::REFERENCE;
/// One answering port's normalised reply, taken apart.
struct View<'a> {
    locations: BTreeMap<String, Vec<LocationVerdict>>,
    /// Accepted name -> locations.
    names: BTreeMap<String, Vec<String>>,
    accepted: usize,
    skipped: BTreeMap<String, usize>,
    inventory: String,
    loads: &'a LoadAnswers,
    prompt: Option<&'a Value>,
}

pub(crate) fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => to_canonical_string(other).trim_end().to_owned(),
    }
}

fn view<'a>(normalized: &'a Value, loads: &'a LoadAnswers) -> View<'a> {
    let list = |key: &str| -> &[Value] {
        normalized
            .pointer(&format!("/inventory/{key}"))
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    };
    let location_of = |entry: &Value| {
        entry
            .get("location")
            .map_or_else(|| "(no location)".to_owned(), text_of)
    };
    let mut out = View {
        locations: BTreeMap::new(),
        names: BTreeMap::new(),
        accepted: 0,
        skipped: BTreeMap::new(),
        inventory: normalized
            .get("inventory")
            .map(to_canonical_string)
            .unwrap_or_default(),
        loads,
        prompt: normalized.get("prompt"),
    };
    for entry in list("skills") {
        let location = location_of(entry);
        let name = entry.get("name").cloned().unwrap_or(Value::Null);
        out.accepted += 1;
        out.names
            .entry(text_of(&name))
            .or_default()
            .push(location.clone());
        out.locations
            .entry(location)
            .or_default()
            .push(LocationVerdict::Accepted {
                name,
                description: entry.get("description").cloned().unwrap_or(Value::Null),
            });
    }
    for entry in list("skipped") {
        let reason = entry.get("reason").cloned().unwrap_or(Value::Null);
        *out.skipped.entry(text_of(&reason)).or_default() += 1;
        out.locations
            .entry(location_of(entry))
            .or_default()
            .push(LocationVerdict::Skipped { reason });
    }
    out
}

/// Cuts a line to [`LINE_CHARS`] characters (an ellipsis marks the cut).
pub(crate) fn cut(line: &str) -> String {
    match line.char_indices().nth(LINE_CHARS) {
        None => line.to_owned(),
        Some((at, _)) => format!("{}…", &line[..at]),
    }
}

/// The first line where `reference` and `actual` differ, if they do, with each side's line
/// there (from [`crate::compare::text::first_difference`]).
pub(crate) fn first_difference(reference: &str, actual: &str) -> Option<FirstDifference> {
    let (line, _) = crate::compare::text::first_difference(reference, actual)?;
    let nth = |text: &'_ str, line: usize| text.split('\n').nth(line - 1).map(str::to_owned);
    // The first differing character is on `line`; when both texts have that same line (one
    // ends where the other goes on with a line feed), the lines differ on the next one.
    let line = if nth(reference, line) == nth(actual, line) {
        line + 1
    } else {
        line
    };
    Some(FirstDifference {
        line,
        reference: nth(reference, line).as_deref().map(cut),
        actual: nth(actual, line).as_deref().map(cut),
    })
}

fn load_difference(
    reference: Option<&Value>,
    actual: Option<&Value>,
    name: &str,
) -> Option<LoadDifference> {
    let (reference, actual) = match (reference, actual) {
        (Some(a), Some(b)) if a == b => return None,
        (Some(a), Some(b)) => (a, b),
        (a, b) => {
            return Some(LoadDifference {
                name: name.to_owned(),
                field: "load".to_owned(),
                at: FirstDifference {
                    line: 1,
                    reference: a.map(|_| "(a load)".to_owned()),
                    actual: b.map(|_| "(a load)".to_owned()),
                },
            })
        }
    };
    for field in ["name", "isError", "output"] {
        let (a, b) = (reference.get(field), actual.get(field));
        if a == b {
            continue;
        }
        let text = |v: Option<&Value>| v.map_or_else(|| "(absent)".to_owned(), text_of);
        let at = first_difference(&text(a), &text(b)).unwrap_or(FirstDifference {
            line: 1,
            reference: Some(text(a)),
            actual: Some(text(b)),
        });
        return Some(LoadDifference {
            name: name.to_owned(),
            field: field.to_owned(),
            at,
        });
    }
    // Same three fields, different objects: some other field.
    let at = first_difference(
        &to_canonical_string(reference),
        &to_canonical_string(actual),
    )
    .expect("the loads differ");
    Some(LoadDifference {
        name: name.to_owned(),
        field: "load".to_owned(),
        at,
    })
}

/// Turns the reference's and the ports' results into the report (pure; see the module doc).
/// `results` must hold the reference, named [`REFERENCE`].
pub fn analyse(roots: Vec<String>, load_count: usize, results: Vec<PortResult>) -> CorpusReport {
    let mut ports: BTreeMap<String, PortSummary> = BTreeMap::new();
    let mut views: BTreeMap<&str, View<'_>> = BTreeMap::new();
    for result in &results {
        let (summary, view) = summarise(result);
        if let Some(view) = view {
            views.insert(result.name.as_str(), view);
        }
        ports.insert(result.name.clone(), summary);
    }
    let order = display_order(views.keys().map(|name| (*name, PortKind::of_name(name))));
    let clusters = inventory_clusters(&order, &views, &mut ports);
    if let Some(reference) = views.get(REFERENCE) {
        for port in &order {
            let summary = ports.get_mut(*port).expect("every view has a summary");
            against_reference(summary, reference, &views[port], &clusters);
        }
    }
    let complete = !ports.values().any(counts_as_not_compared);
    let disagreement = ports
        .values()
        .any(|summary| summary.agrees_with_reference == Some(false));
    CorpusReport {
        format: FORMAT,
        roots,
        load_count,
        line_cap: None,
        warnings: Vec::new(),
        ports,
        clusters,
        disagreements: disagreements(&order, &views),
        duplicates: duplicates(&order, &views),
        complete,
        disagreement,
        agreement: None,
    }
}

/// A port's summary line from its result, and its view when it answered.
fn summarise(result: &PortResult) -> (PortSummary, Option<View<'_>>) {
    let hello = result.hello.as_ref();
    let mut summary = PortSummary {
        kind: PortKind::of_name(&result.name),
        state: PortState::Ok,
        selected: result.selected,
        reason: None,
        library: hello.map(|h| h.library.clone()),
        hello: hello.map(HelloFacts::of).unwrap_or_default(),
        fault: None,
        stderr_tail: None,
        cluster: None,
        accepted: None,
        skipped: None,
        loads: None,
        prompt_difference: None,
        agrees_with_reference: None,
    };
    let mut answered = None;
    match &result.run {
        PortRun::Unavailable { reason } => {
            summary.state = PortState::Unavailable;
            summary.reason = Some(reason.clone());
        }
        PortRun::Broken {
            what,
            fault,
            stderr_tail,
        } => {
            summary.state = PortState::Broken;
            summary.reason = Some(what.clone());
            summary.fault = fault.clone();
            summary.stderr_tail = stderr_tail.clone();
        }
        PortRun::Fault { fault, stderr_tail } => {
            summary.state = PortState::Fault;
            summary.fault = Some(fault.clone());
            summary.stderr_tail = stderr_tail.clone();
        }
        PortRun::Error { message } => {
            summary.state = PortState::Error;
            summary.reason = Some(message.clone());
        }
        PortRun::Reply { normalized, loads } => {
            let v = view(normalized, loads);
            summary.accepted = Some(v.accepted);
            summary.skipped = Some(v.skipped.clone());
            answered = Some(v);
        }
    }
    (summary, answered)
}

/// Clusters of identical canonical inventories ([`crate::judge::cluster::agreement`]): the
/// reference's first, then larger first, then by display order; each summary gets its
/// cluster's 1-based number.
fn inventory_clusters(
    order: &[&str],
    views: &BTreeMap<&str, View<'_>>,
    ports: &mut BTreeMap<String, PortSummary>,
) -> Vec<InventoryCluster> {
    let reference_inventory = views.get(REFERENCE).map(|v| v.inventory.as_str());
    let members = order.iter().map(|port| {
        let inventory = views[port].inventory.as_str();
        (*port, inventory, Some(inventory) == reference_inventory)
    });
    let position = |ports: &[&str]| order.iter().position(|p| *p == ports[0]);
    let clusters: Vec<InventoryCluster> = agreement(members, |a, b| position(a).cmp(&position(b)))
        .into_iter()
        .map(|group| InventoryCluster {
            ports: group.ports.iter().map(|p| (*p).to_owned()).collect(),
            matches_reference: group.matches,
            fingerprint: fingerprint(group.output),
        })
        .collect();
    for (index, cluster) in clusters.iter().enumerate() {
        for port in &cluster.ports {
            if let Some(summary) = ports.get_mut(port) {
                summary.cluster = Some(index + 1);
            }
        }
    }
    clusters
}

/// A port's loads and prompt against the reference's, whether all of it was compared, and
/// whether it agrees overall.
fn against_reference(
    summary: &mut PortSummary,
    reference: &View<'_>,
    v: &View<'_>,
    clusters: &[InventoryCluster],
) {
    let (mut differences, not_compared) = compare_loads(reference.loads, v.loads);
    if v.loads.extra > 0 {
        differences.push(LoadDifference {
            name: "(more loads than asked)".to_owned(),
            field: "load".to_owned(),
            at: FirstDifference {
                line: 1,
                reference: None,
                actual: Some(format!("{} loads more than asked for", v.loads.extra)),
            },
        });
    }
    let prompt_difference = match (reference.prompt, v.prompt) {
        (a, b) if a == b => None,
        (a, b) => first_difference(
            &a.map_or_else(|| "(no prompt)".to_owned(), text_of),
            &b.map_or_else(|| "(no prompt)".to_owned(), text_of),
        ),
    };
    let equal = summary.cluster == Some(1)
        && clusters[0].matches_reference
        && differences.is_empty()
        && prompt_difference.is_none();
    if !not_compared.is_empty() {
        summary.state = PortState::Partial;
    }
    // Agreement is said only of what was compared, all of it.
    summary.agrees_with_reference = match (equal, not_compared.is_empty()) {
        (false, _) => Some(false),
        (true, true) => Some(true),
        (true, false) => None,
    };
    let count = v
        .loads
        .answers
        .iter()
        .filter(|a| matches!(a, LoadAnswer::Answered(_)))
        .count();
    summary.loads = Some(LoadsSummary {
        count,
        differences,
        not_compared,
        requests: Some(v.loads.requests),
    });
    summary.prompt_difference = prompt_difference;
}

/// The load at `i`, when there is one.
fn answered(answers: &[LoadAnswer], i: usize) -> Option<&Value> {
    match answers.get(i) {
        Some(LoadAnswer::Answered(load)) => Some(load),
        _ => None,
    }
}

/// Every compared load that differs from the reference's, in request order, and the loads not
/// compared, grouped by why (first occurrence order).
fn compare_loads(
    reference: &LoadAnswers,
    port: &LoadAnswers,
) -> (Vec<LoadDifference>, Vec<UncomparedLoads>) {
    let mut differences = Vec::new();
    let mut not_compared: Vec<UncomparedLoads> = Vec::new();
    let count = reference.answers.len().max(port.answers.len());
    for i in 0..count {
        let (ours, theirs) = (answered(&reference.answers, i), answered(&port.answers, i));
        let name = ours
            .or(theirs)
            .and_then(|l| l.get("name"))
            .map_or_else(|| format!("#{}", i + 1), text_of);
        if let Some(LoadAnswer::NotCompared(why)) = port.answers.get(i) {
            match not_compared.iter_mut().find(|group| group.why == *why) {
                Some(group) => group.names.push(name),
                None => not_compared.push(UncomparedLoads {
                    why: why.clone(),
                    names: vec![name],
                }),
            }
            continue;
        }
        differences.extend(load_difference(ours, theirs, &name));
    }
    (differences, not_compared)
}

/// Per port (in `order`), the entries of `key` in each view (empty when absent), for every
/// key of any view.
fn per_port<'v, 'a: 'v, T: Clone + Default + 'v>(
    order: &[&'v str],
    views: &'v BTreeMap<&'a str, View<'a>>,
    map: impl Fn(&'v View<'a>) -> &'v BTreeMap<String, T>,
) -> Vec<(&'v str, BTreeMap<String, T>)> {
    let keys: BTreeSet<&str> = views
        .values()
        .flat_map(|v| map(v).keys().map(String::as_str))
        .collect();
    keys.into_iter()
        .map(|key| {
            let row = order
                .iter()
                .map(|port| {
                    let entries = map(&views[port]).get(key).cloned().unwrap_or_default();
                    ((*port).to_owned(), entries)
                })
                .collect();
            (key, row)
        })
        .collect()
}

/// Locations where the answering ports' verdicts are not all the same.
fn disagreements(order: &[&str], views: &BTreeMap<&str, View<'_>>) -> Vec<LocationRow> {
    let accepts = |entries: &[LocationVerdict]| {
        entries
            .iter()
            .any(|e| matches!(e, LocationVerdict::Accepted { .. }))
    };
    per_port(order, views, |v| &v.locations)
        .into_iter()
        .filter(|(_, verdicts)| !all_same(verdicts))
        .map(|(location, verdicts)| LocationRow {
            location: location.to_owned(),
            reference_accepts_port_drops: verdicts
                .get(REFERENCE)
                .is_some_and(|entries| accepts(entries))
                && verdicts.values().any(|entries| !accepts(entries)),
            verdicts,
        })
        .collect()
}

/// Accepted names whose winning copy is not the same everywhere.
fn duplicates(order: &[&str], views: &BTreeMap<&str, View<'_>>) -> Vec<DuplicateRow> {
    per_port(order, views, |v| &v.names)
        .into_iter()
        .filter(|(_, winners)| {
            let copies: BTreeSet<&String> = winners.values().flatten().collect();
            copies.len() > 1 && !all_same(winners)
        })
        .map(|(name, winners)| DuplicateRow {
            name: name.to_owned(),
            winners,
        })
        .collect()
}

/// Whether every port's entry is the same.
fn all_same<T: PartialEq>(row: &BTreeMap<String, T>) -> bool {
    let mut values = row.values();
    let first = values.next();
    values.all(|other| Some(other) == first)
}
