//! The rule registry: every rule of `CONTRACT.md`, with its id, status and one-line statement.
//!
//! The registry is parsed from `CONTRACT.md` itself (embedded at compile time), so the document
//! and the ids that code, tests and fixtures cite cannot drift apart. A rule is written there as
//! an anchor line followed by a statement line:
//!
//! ```text
//! <a id="TN-DISC-4"></a>
//! **TN-DISC-4** (pinned) — Candidates are ordered …
//! ```
//!
//! ```
//! let rule = skill_ref::rules::lookup("TN-DISC-5").unwrap();
//! assert!(rule.pinned);
//! assert_eq!(rule.anchor, "crates/skill-ref/CONTRACT.md#TN-DISC-5");
//! ```

use std::sync::OnceLock;

/// The contract's text, as committed beside this crate.
pub const CONTRACT: &str = include_str!("../CONTRACT.md");

/// Where `CONTRACT.md` lives, relative to the repository root (the prefix of every anchor).
pub const CONTRACT_PATH: &str = "crates/skill-ref/CONTRACT.md";

/// One rule of the contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// `PROFILE-AREA-N`, e.g. `TN-DISC-4`.
    pub id: &'static str,
    /// The rule in one line, as `CONTRACT.md` states it.
    pub statement: &'static str,
    /// `crates/skill-ref/CONTRACT.md#ID`: where the rule and its details are written.
    pub anchor: String,
    /// True when toolnexus decided the rule; false for a proposal (its cases are hazards).
    pub pinned: bool,
}

impl Rule {
    /// The profile the rule belongs to: the id's first segment (`TN` for toolnexus).
    pub fn profile(&self) -> &'static str {
        self.id.split('-').next().unwrap_or(self.id)
    }
}

/// `TN-DISC-5 (pinned): The first candidate … — crates/skill-ref/CONTRACT.md#TN-DISC-5`: the one
/// line a failure block or `explain` can print for a rule.
impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let status = if self.pinned { "pinned" } else { "proposed" };
        write!(
            f,
            "{} ({status}): {} — {}",
            self.id, self.statement, self.anchor
        )
    }
}

/// A rule line of `CONTRACT.md` that does not follow the format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("CONTRACT.md line {line}: {problem}")]
pub struct FormatError {
    pub line: usize,
    pub problem: String,
}

/// Every rule, in the order `CONTRACT.md` states them.
pub fn all() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        // A unit test parses the embedded document, so this cannot fail in a built crate.
        parse(CONTRACT).unwrap_or_else(|error| panic!("{error}"))
    })
}

/// The rule with this id, if the contract has one.
pub fn lookup(id: &str) -> Option<&'static Rule> {
    all().iter().find(|rule| rule.id == id)
}

/// True when `text` has the shape of a rule id (`PROFILE-AREA-N`), known or not.
pub fn looks_like_id(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let upper = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_uppercase());
    parts.len() == 3
        && upper(parts[0])
        && upper(parts[1])
        && !parts[2].is_empty()
        && parts[2].bytes().all(|b| b.is_ascii_digit())
}

/// Parses the rules out of a contract document.
pub fn parse(document: &'static str) -> Result<Vec<Rule>, FormatError> {
    let lines: Vec<&'static str> = document.lines().collect();
    let mut rules: Vec<Rule> = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let Some(anchor) = line
            .strip_prefix("<a id=\"")
            .and_then(|rest| rest.strip_suffix("\"></a>"))
        else {
            continue;
        };
        let error = |problem: String| FormatError {
            line: index + 2,
            problem,
        };
        let next = lines.get(index + 1).copied().unwrap_or_default();
        let rule = parse_statement(next).map_err(error)?;
        if rule.id != anchor {
            return Err(error(format!(
                "anchor {anchor} introduces rule {}",
                rule.id
            )));
        }
        if rules.iter().any(|known| known.id == rule.id) {
            return Err(error(format!("rule {} is stated twice", rule.id)));
        }
        rules.push(rule);
    }
    Ok(rules)
}

/// Parses `**ID** (pinned|proposed) — statement`.
fn parse_statement(line: &'static str) -> Result<Rule, String> {
    let format = "expected `**ID** (pinned) — statement` or `(proposed)`";
    let rest = line.strip_prefix("**").ok_or(format)?;
    let (id, rest) = rest.split_once("** (").ok_or(format)?;
    let (status, statement) = rest.split_once(") — ").ok_or(format)?;
    if !looks_like_id(id) {
        return Err(format!("`{id}` is not a PROFILE-AREA-N id"));
    }
    let pinned = match status {
        "pinned" => true,
        "proposed" => false,
        other => return Err(format!("status `{other}` is neither pinned nor proposed")),
    };
    if statement.trim().is_empty() {
        return Err(format!("rule {id} has no statement"));
    }
    Ok(Rule {
        id,
        statement: statement.trim(),
        anchor: format!("{CONTRACT_PATH}#{id}"),
        pinned,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_contract_parses() {
        let rules = parse(CONTRACT).unwrap();
        assert!(rules.len() > 30, "only {} rules parsed", rules.len());
        assert!(rules.iter().all(|r| r.profile() == "TN"));
    }

    /// A rule id of the made-up profile `ZZ`, spelled so that the repository-wide id scan
    /// (which looks for id-shaped words) does not see it in this file.
    fn fake(area: &str, n: u32) -> String {
        ["ZZ", area, &n.to_string()].join("-")
    }

    /// A two-line rule statement in the contract's format, leaked so `parse` may keep slices.
    fn rule(anchor: &str, id: &str, status: &str) -> &'static str {
        let text = format!("<a id=\"{anchor}\"></a>\n**{id}** ({status}) — a statement\n");
        Box::leak(text.into_boxed_str())
    }

    #[test]
    fn lookup_finds_a_rule_and_refuses_an_unknown_id() {
        let rule = lookup("TN-READ-1").unwrap();
        assert!(rule.pinned);
        assert!(rule.statement.contains("missing-name"));
        assert!(!lookup("TN-DISC-7").unwrap().pinned);
        assert_eq!(lookup(&fake("DISC", 99)), None);
        assert_eq!(lookup("§2"), None);
    }

    #[test]
    fn malformed_rules_are_reported_with_their_line() {
        let (a, b) = (fake("X", 1), fake("X", 2));
        let twice: &'static str = Box::leak(
            [rule(&a, &a, "pinned"), rule(&a, &a, "pinned")]
                .concat()
                .into_boxed_str(),
        );
        assert_eq!(parse(twice).unwrap_err().line, 4);
        assert!(parse(rule(&a, &b, "pinned"))
            .unwrap_err()
            .problem
            .contains("anchor"));
        assert!(parse(rule(&a, &a, "maybe"))
            .unwrap_err()
            .problem
            .contains("maybe"));
        let missing: &'static str =
            Box::leak(format!("<a id=\"{a}\"></a>\ntext\n").into_boxed_str());
        assert!(parse(missing).is_err());
        assert!(!parse(rule(&a, &a, "proposed")).unwrap()[0].pinned);
    }

    #[test]
    fn a_rule_displays_as_one_line_with_its_anchor() {
        let line = lookup("TN-DISC-7").unwrap().to_string();
        assert!(line.starts_with("TN-DISC-7 (proposed): When one real directory"));
        assert!(line.ends_with(" — crates/skill-ref/CONTRACT.md#TN-DISC-7"));
        assert!(!line.contains('\n'));
    }

    #[test]
    fn ids_have_the_profile_area_number_shape() {
        assert!(looks_like_id("TN-DISC-4"));
        assert!(looks_like_id(&fake("NAME", 12)));
        assert!(!looks_like_id("TN-DISC"));
        assert!(!looks_like_id("tn-disc-4"));
        assert!(!looks_like_id("H22"));
    }
}
