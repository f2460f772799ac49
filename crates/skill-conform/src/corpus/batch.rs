//! The loads of `corpus`, in batches that fit the reply cap.
//!
//! Every `run` reply carries the inventory and the prompt beside the loads, and one reply is one
//! line under the session's byte cap ([`crate::session::DEFAULT_LINE_CAP`] unless `--line-cap`).
//! So the first request of a port loads nothing, and the loads follow in batches of names
//! ([`plan`]), each a `run` request over the same roots. A batch is sized from the reference's
//! own reply (its inventory and prompt, and each load, as compact JSON: what a port writes),
//! filled to [`FILL`] of the cap. A batch whose reply still comes back over the cap is halved
//! and sent again (the session has already killed and restarted the adapter: an over-cap line
//! is a fault like a crash); a single name over the cap is `over-the-cap` for that name alone.

use std::collections::VecDeque;
use std::ops::Range;

use serde_json::Value;
use skill_ref::Output;

use super::{NotComparedWhy, CASE_ID};
use crate::judge::FaultDetails;
use crate::normalize::Redactions;
use crate::session::{Fault, RunRequest, Session};

/// The share of the cap a planned batch may fill: ports spell JSON a little differently (and
/// may say more than the reference), so a batch leaves room; halving handles the rest.
pub const FILL: (usize, usize) = (3, 4);

/// The most names one batch asks for, so one reply stays well inside the run timeout.
pub const MAX_BATCH_NAMES: usize = 2_000;

/// What a port answered for one requested name.
#[derive(Clone, Debug, PartialEq)]
pub enum LoadAnswer {
    /// The load, with the roots redacted.
    Answered(Value),
    /// The reply had fewer loads than its batch asked for: none at this position.
    Missing,
    /// Not compared, and why.
    NotCompared(NotComparedWhy),
}

/// A port's answers to every load, in request order.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadAnswers {
    pub answers: Vec<LoadAnswer>,
    /// Loads returned beyond what their batches asked for.
    pub extra: usize,
    /// How many `run` requests carried the loads (halved batches included).
    pub requests: usize,
}

impl LoadAnswers {
    /// The reference's own loads, each answered.
    pub fn answered(loads: Vec<Value>) -> LoadAnswers {
        LoadAnswers {
            answers: loads.into_iter().map(LoadAnswer::Answered).collect(),
            extra: 0,
            requests: 0,
        }
    }
}

/// The length of `value` as compact JSON.
fn compact_len<T: serde::Serialize>(value: &T) -> usize {
    serde_json::to_vec(value).map_or(0, |bytes| bytes.len())
}

/// The reply's size without loads, and each load's, in bytes, as a port writes them.
pub fn sizes(output: &Output) -> (usize, Vec<usize>) {
    let fixed = r#"{"case":"","inventory":,"loads":[],"prompt":}"#.len()
        + CASE_ID.len()
        + "/loads/1000000".len()
        + compact_len(&output.inventory)
        + compact_len(&output.prompt);
    let each = output
        .loads
        .iter()
        .map(|load| compact_len(load) + 1)
        .collect();
    (fixed, each)
}

/// Index ranges into the load list, in order, covering it: each batch as many names as fit
/// [`FILL`] of `cap` after the `fixed` part (at least one name, at most [`MAX_BATCH_NAMES`]).
pub fn plan(fixed: usize, each: &[usize], cap: usize) -> Vec<Range<usize>> {
    let target = cap / FILL.1 * FILL.0;
    let mut batches = Vec::new();
    let mut start = 0;
    let mut size = fixed;
    for (index, load) in each.iter().enumerate() {
        let full = index - start >= MAX_BATCH_NAMES || size + load > target;
        if index > start && full {
            batches.push(start..index);
            start = index;
            size = fixed;
        }
        size += load;
    }
    if start < each.len() {
        batches.push(start..each.len());
    }
    batches
}

/// Sends the batches of `names` (ranges from [`plan`]) as `run` requests like `base`, halving
/// a batch whose reply is over the cap, and returns every answer in request order. `progress`
/// hears of each halving.
pub fn run_loads(
    session: &mut Session,
    base: &RunRequest,
    names: &[String],
    batches: Vec<Range<usize>>,
    progress: &mut dyn FnMut(&str),
) -> LoadAnswers {
    let redactions = Redactions::for_roots(&base.roots);
    let mut out = LoadAnswers {
        answers: vec![LoadAnswer::Missing; names.len()],
        extra: 0,
        requests: 0,
    };
    let mut queue: VecDeque<Range<usize>> = batches.into();
    while let Some(range) = queue.pop_front() {
        let request = RunRequest {
            case: format!("{CASE_ID}/loads/{}", range.start + 1),
            load: names[range.clone()].to_vec(),
            ..base.clone()
        };
        out.requests += 1;
        let not_compared = match session.run(&request) {
            Ok(reply) => match reply.get("error") {
                Some(error) => NotComparedWhy::ErrorReply {
                    message: super::analysis::text_of(error),
                },
                None => {
                    let loads = reply.get("loads").and_then(Value::as_array);
                    let loads = loads.map_or(&[][..], Vec::as_slice);
                    for (slot, load) in range.clone().zip(loads) {
                        out.answers[slot] = LoadAnswer::Answered(redactions.redact(load));
                    }
                    out.extra += loads.len().saturating_sub(range.len());
                    continue;
                }
            },
            Err(evidence) => match evidence.fault {
                Fault::Oversize { cap, .. } if range.len() > 1 => {
                    let middle = range.start + range.len() / 2;
                    progress(&format!(
                        "a batch of {} loads came back over the {} cap; halving it",
                        range.len(),
                        cap_text(cap)
                    ));
                    queue.push_front(middle..range.end);
                    queue.push_front(range.start..middle);
                    continue;
                }
                Fault::Oversize { cap, .. } => NotComparedWhy::OverTheCap { cap },
                _ => NotComparedWhy::Fault {
                    fault: FaultDetails::from(&evidence),
                },
            },
        };
        for slot in range {
            out.answers[slot] = LoadAnswer::NotCompared(not_compared.clone());
        }
    }
    out
}

/// A byte cap as people say it: `16 MiB`, `64 KiB`, or `1000 bytes`.
pub fn cap_text(cap: u64) -> String {
    const KIB: u64 = 1024;
    match cap {
        0 => "0 bytes".to_owned(),
        _ if cap.is_multiple_of(KIB * KIB) => format!("{} MiB", cap / (KIB * KIB)),
        _ if cap.is_multiple_of(KIB) => format!("{} KiB", cap / KIB),
        _ => format!("{cap} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_cover_every_load_in_order_and_fit_the_fill() {
        let each = [10, 10, 10, 50, 10, 200, 10];
        // Cap 160: target 120, fixed 20.
        let batches = plan(20, &each, 160);
        assert_eq!(batches, [0..5, 5..6, 6..7]);
        assert_eq!(plan(20, &[40, 40, 40], 160), [0..2, 2..3]);
        let covered: Vec<usize> = batches.iter().flat_map(Clone::clone).collect();
        assert_eq!(covered, (0..each.len()).collect::<Vec<_>>());
        assert_eq!(plan(20, &[], 160), Vec::<Range<usize>>::new());
        // A fixed part over the target still gets one name per batch.
        assert_eq!(plan(500, &[1, 1], 160), [0..1, 1..2]);
        let many = vec![1; MAX_BATCH_NAMES + 1];
        assert_eq!(
            plan(0, &many, usize::MAX / 2),
            [0..MAX_BATCH_NAMES, MAX_BATCH_NAMES..MAX_BATCH_NAMES + 1]
        );
    }

    #[test]
    fn caps_are_said_in_their_unit() {
        assert_eq!(cap_text(16 * 1024 * 1024), "16 MiB");
        assert_eq!(cap_text(64 * 1024), "64 KiB");
        assert_eq!(cap_text(1000), "1000 bytes");
    }
}
