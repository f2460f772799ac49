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
//! The batches still to send shrink to what the replies so far showed ([`Sizing`]): a port
//! whose loads outgrow the reference's pays one over-cap reply, not one per batch.

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

/// The most names one batch asks for, so one reply stays well inside the run timeout (a port
/// that walks the whole folder again for every request pays that walk per batch: the batches
/// should be few).
pub const MAX_BATCH_NAMES: usize = 10_000;

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

/// How the batches are sized as the port answers: the reference's sizes, scaled by the most
/// any reply so far outgrew them (a port that writes each load bigger, or answers a name the
/// reference accepts with a long not-found message, gets smaller batches from then on rather
/// than one over-cap reply, and one adapter restart, per batch).
pub(crate) struct Sizing<'a> {
    /// The reply's size without loads, as the reference writes it.
    pub fixed: usize,
    /// Each load's size, as the reference writes it.
    pub each: &'a [usize],
    /// The session's line cap.
    pub cap: usize,
    /// The port's loads' bytes per reference byte, the largest seen (at least 1).
    scale: f64,
}

impl<'a> Sizing<'a> {
    pub fn new(fixed: usize, each: &'a [usize], cap: usize) -> Self {
        Sizing {
            fixed,
            each,
            cap,
            scale: 1.0,
        }
    }

    fn estimate(&self, range: &Range<usize>) -> f64 {
        self.each[range.clone()].iter().sum::<usize>() as f64
    }

    /// Whether `range`, scaled, is over [`FILL`] of the cap (only a batch of several names).
    fn too_big(&self, range: &Range<usize>) -> bool {
        let target = (self.cap / FILL.1 * FILL.0) as f64;
        range.len() > 1 && self.fixed as f64 + self.estimate(range) * self.scale > target
    }

    /// A reply to `range` whose loads took `bytes`.
    fn answered(&mut self, range: &Range<usize>, bytes: usize) {
        let estimate = self.estimate(range);
        if estimate > 0.0 {
            self.scale = self.scale.max(bytes as f64 / estimate);
        }
    }

    /// A reply to `range` that went over the cap: its loads took at least what the cap leaves.
    fn over_the_cap(&mut self, range: &Range<usize>) {
        let at_least = self.cap.saturating_sub(self.fixed);
        self.answered(range, at_least);
    }
}

/// Halves `range` in place at the front of `queue`.
fn halve(queue: &mut VecDeque<Range<usize>>, range: Range<usize>) {
    let middle = range.start + range.len() / 2;
    queue.push_front(middle..range.end);
    queue.push_front(range.start..middle);
}

/// Sends the batches of `names` (ranges from [`plan`]) as `run` requests like `base`, halving
/// a batch whose reply is over the cap (and, from then on, any batch that `sizing` says would
/// be), and returns every answer in request order. `progress` hears of each halving.
pub(crate) fn run_loads(
    session: &mut Session,
    base: &RunRequest,
    names: &[String],
    batches: Vec<Range<usize>>,
    sizing: &mut Sizing<'_>,
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
        if sizing.too_big(&range) {
            halve(&mut queue, range);
            continue;
        }
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
                    sizing.answered(&range, compact_len(&loads));
                    for (slot, load) in range.clone().zip(loads) {
                        out.answers[slot] = LoadAnswer::Answered(redactions.redact(load));
                    }
                    out.extra += loads.len().saturating_sub(range.len());
                    continue;
                }
            },
            Err(evidence) => match evidence.fault {
                Fault::Oversize { cap, .. } if range.len() > 1 => {
                    progress(&format!(
                        "a batch of {} loads came back over the {} cap; halving it",
                        range.len(),
                        cap_text(cap)
                    ));
                    sizing.over_the_cap(&range);
                    halve(&mut queue, range);
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
    fn sizing_learns_how_much_bigger_the_port_writes() {
        let each = [10; 8];
        let mut sizing = Sizing::new(20, &each, 160);
        assert!(!sizing.too_big(&(0..8)));
        // The port wrote 4 loads in 120 bytes, three times the reference's 40.
        sizing.answered(&(0..4), 120);
        assert!(sizing.too_big(&(4..8)));
        assert!(!sizing.too_big(&(4..6)));
        // Over the cap: at least cap - fixed = 140 bytes for 2 loads of 10.
        sizing.over_the_cap(&(6..8));
        assert!(sizing.too_big(&(6..8)));
        // A single name is never split.
        assert!(!sizing.too_big(&(7..8)));
    }

    #[test]
    fn caps_are_said_in_their_unit() {
        assert_eq!(cap_text(16 * 1024 * 1024), "16 MiB");
        assert_eq!(cap_text(64 * 1024), "64 KiB");
        assert_eq!(cap_text(1000), "1000 bytes");
    }
}
