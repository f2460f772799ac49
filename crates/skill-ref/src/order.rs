//! Text order: plain Unicode code points (`TN-DISC-4`).
//!
//! Every ordering in the contract — candidates, the sample, the prompt, the not-found list —
//! compares strings by code point. Rust's `str` order is UTF-8 byte order, which is exactly
//! code-point order, so the correct comparison is `a.cmp(b)`; the mutants swap in the two wrong
//! orders that real ports have shipped (UTF-16 units, case folding).

use std::cmp::Ordering;

use crate::mutant::{Config, Mutant};

/// Compares two strings the way the contract orders text.
pub fn compare(config: &Config, a: &str, b: &str) -> Ordering {
    if config.is(Mutant::Utf16Order) {
        a.encode_utf16().cmp(b.encode_utf16())
    } else if config.is(Mutant::CaseFoldedOrder) {
        a.to_lowercase()
            .cmp(&b.to_lowercase())
            .then_with(|| a.cmp(b))
    } else {
        a.cmp(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_points_not_utf16_units_not_locale_not_case_folding() {
        let c = Config::default();
        assert_eq!(compare(&c, "a\u{E000}", "a\u{1F600}"), Ordering::Less);
        assert_eq!(compare(&c, "z", "ß"), Ordering::Less);
        assert_eq!(compare(&c, "B", "a"), Ordering::Less);
        let utf16 = Config::mutated(Mutant::Utf16Order);
        assert_eq!(
            compare(&utf16, "a\u{E000}", "a\u{1F600}"),
            Ordering::Greater
        );
        let folded = Config::mutated(Mutant::CaseFoldedOrder);
        assert_eq!(compare(&folded, "B", "a"), Ordering::Greater);
    }
}
