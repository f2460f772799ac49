//! How many hangs in a row a port may cost before the rest of its cases are not sent.
//!
//! A port that hangs on every case would otherwise cost cases × run timeout (the full suite is
//! about 24 minutes per port at 10 s). After `--max-timeouts N` consecutive timeouts (default 3)
//! the port is given up: its remaining cases are `not-run` and the port is `broken`, so such a
//! port costs about N timeouts. Any other outcome resets the count.

use std::num::NonZeroU32;

/// The default of `--max-timeouts`.
pub(crate) const DEFAULT_MAX_TIMEOUTS: u32 = 3;

/// Counts consecutive timeouts against a limit.
#[derive(Clone, Debug)]
pub(crate) struct HangBudget {
    limit: Option<NonZeroU32>,
    consecutive: u32,
    reason: Option<String>,
}

impl HangBudget {
    /// A budget of `limit` timeouts in a row (`None`: unlimited).
    pub fn new(limit: Option<NonZeroU32>) -> HangBudget {
        HangBudget {
            limit,
            consecutive: 0,
            reason: None,
        }
    }

    /// Records one received case: whether it timed out.
    pub(crate) fn record(&mut self, timed_out: bool) {
        if self.reason.is_some() {
            return;
        }
        self.consecutive = if timed_out { self.consecutive + 1 } else { 0 };
        if let Some(limit) = self.limit {
            if self.consecutive >= limit.get() {
                self.reason = Some(format!(
                    "the port timed out on {} cases in a row (--max-timeouts {limit}) \
                     and is broken for the rest of the run",
                    self.consecutive
                ));
            }
        }
    }

    /// Why the remaining cases are not sent, once the budget is used up.
    pub(crate) fn exhausted(&self) -> Option<&str> {
        self.reason.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_up_after_the_limit_in_a_row_only() {
        let mut budget = HangBudget::new(NonZeroU32::new(DEFAULT_MAX_TIMEOUTS));
        for timed_out in [true, true, false, true, true] {
            budget.record(timed_out);
            assert!(budget.exhausted().is_none());
        }
        budget.record(true);
        let why = budget.exhausted().expect("three in a row");
        assert!(why.contains("3 cases in a row"), "{why}");
        budget.record(false);
        assert!(
            budget.exhausted().is_some(),
            "giving up is for the rest of the run"
        );
    }

    #[test]
    fn no_limit_never_gives_up() {
        let mut budget = HangBudget::new(None);
        (0..1000).for_each(|_| budget.record(true));
        assert!(budget.exhausted().is_none());
    }
}
