//! Judging one `agentskills` reply against its golden, part by part.
//!
//! A reply has up to four parts per skill directory (capabilities, adapters/PROTOCOL.md
//! "Profiles"): `validate` (verdict and rule codes), `unknown-fields`, `properties`, and one
//! per case, `prompt`. A part the adapter did not offer in `hello` is [`Part::NotOffered`]:
//! neither compared nor counted as passing. The rules of comparison:
//!
//! - rule codes are compared as sets, except that `AS-NAME-FORMAT` stands for any non-empty
//!   subset of `AS-NAME-TOO-LONG`, `AS-NAME-CHARSET`, `AS-NAME-HYPHEN-EDGE` that the golden has
//!   (crates/skill-ref/AGENTSKILLS.md);
//! - properties are compared only where the golden's verdict is `valid` (an invalid skill's
//!   properties are whatever each library got as far as reading);
//! - the prompt is compared byte for byte once the case's root is written `{root0}`; its byte
//!   form is not specified, so a difference is always a hazard (`ASH-PROMPT`): reported in
//!   [`CaseJudgement::prompt`], never a failure and never the case's status.
//!
//! The case's status comes from the one status table ([`Status`]): `pass` when every offered
//! skill part matches, `fail` (pinned) or `gap` (hazard) when one differs, `error` when the
//! adapter threw.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::judge::Status;

/// The capabilities of the `agentskills` profile, as `hello` names them.
pub(crate) const CAPABILITIES: [&str; 4] = ["validate", "unknown-fields", "properties", "prompt"];

/// The umbrella code of an implementation that checks the name with one expression.
pub(crate) const NAME_FORMAT: &str = "AS-NAME-FORMAT";

/// The codes [`NAME_FORMAT`] may stand for.
pub(crate) const NAME_FORMAT_CODES: [&str; 3] =
    ["AS-NAME-TOO-LONG", "AS-NAME-CHARSET", "AS-NAME-HYPHEN-EDGE"];

/// How one part of a reply compared with the golden.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    Matches,
    /// It differs; the text says where (`dir: codes [..] vs golden [..]`).
    Differs(String),
    /// The adapter does not offer this capability.
    NotOffered,
}

/// The judgement of one case on one port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseJudgement {
    pub status: Status,
    /// One line per differing skill part, in reply order.
    pub differences: Vec<String>,
    /// The prompt part (`ASH-PROMPT`): never part of the status.
    pub prompt: Part,
    /// The capabilities not offered that this case would have compared.
    pub not_offered: Vec<&'static str>,
}

/// What the judge needs to know about the case.
#[derive(Clone, Copy, Debug)]
pub struct CaseFacts<'a> {
    pub pinned: bool,
    /// The absolute root the adapter was given (written `{root0}` in the golden's prompt).
    pub root: &'a str,
}

/// True when the reply's codes `got` stand for the golden's `want` (see the module doc).
pub(crate) fn codes_match(got: &BTreeSet<String>, want: &BTreeSet<String>) -> bool {
    if !got.contains(NAME_FORMAT) {
        return got == want;
    }
    let rest: BTreeSet<String> = got.iter().filter(|c| *c != NAME_FORMAT).cloned().collect();
    let covered: Vec<&String> = want.difference(&rest).collect();
    let name_codes_in_golden = want.iter().any(|c| NAME_FORMAT_CODES.contains(&c.as_str()));
    rest.is_subset(want)
        && name_codes_in_golden
        && covered
            .iter()
            .all(|c| NAME_FORMAT_CODES.contains(&c.as_str()))
}

fn strings(value: Option<&Value>) -> Option<BTreeSet<String>> {
    value?
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// Compares one skill of the reply with the golden's; pushes one line per differing part.
fn judge_skill(golden: &Value, got: &Value, offered: &BTreeSet<String>, out: &mut Vec<String>) {
    let dir = golden["dir"].as_str().unwrap_or("?");
    if offered.contains("validate") {
        if got.get("verdict") != golden.get("verdict") {
            out.push(format!(
                "{dir}: verdict {} (golden {})",
                got.get("verdict").unwrap_or(&Value::Null),
                golden["verdict"]
            ));
        }
        let want = strings(golden.get("violations")).unwrap_or_default();
        match strings(got.get("violations")) {
            Some(codes) if codes_match(&codes, &want) => {}
            codes => out.push(format!(
                "{dir}: codes {:?} (golden {:?})",
                codes.unwrap_or_default(),
                want
            )),
        }
    }
    if offered.contains("unknown-fields") && got.get("unknownFields") != golden.get("unknownFields")
    {
        out.push(format!(
            "{dir}: unknown fields {} (golden {})",
            got.get("unknownFields").unwrap_or(&Value::Null),
            golden["unknownFields"]
        ));
    }
    let valid = golden["verdict"] == "valid";
    if valid && offered.contains("properties") && got.get("properties") != golden.get("properties")
    {
        out.push(format!(
            "{dir}: properties {} (golden {})",
            got.get("properties").unwrap_or(&Value::Null),
            golden["properties"]
        ));
    }
}

/// Judges a reply (`error` or `skills` + `prompt`) against the golden output of its case.
pub fn judge(
    golden: &Value,
    reply: &Value,
    offered: &BTreeSet<String>,
    facts: CaseFacts<'_>,
) -> CaseJudgement {
    let not_offered: Vec<&'static str> = CAPABILITIES
        .into_iter()
        .filter(|c| !offered.contains(*c))
        .collect();
    if let Some(error) = reply.get("error").and_then(Value::as_str) {
        return CaseJudgement {
            status: Status::Error,
            differences: vec![format!("error: {error}")],
            prompt: Part::NotOffered,
            not_offered,
        };
    }
    let mut differences = Vec::new();
    let want = golden["skills"].as_array().cloned().unwrap_or_default();
    let got = reply
        .get("skills")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let dirs = |list: &[Value]| -> Vec<Value> { list.iter().map(|s| s["dir"].clone()).collect() };
    if dirs(&want) != dirs(&got) {
        differences.push(format!(
            "skills: directories {:?} (golden {:?})",
            dirs(&got),
            dirs(&want)
        ));
    } else {
        for (golden_skill, got_skill) in want.iter().zip(&got) {
            judge_skill(golden_skill, got_skill, offered, &mut differences);
        }
    }
    let prompt = judge_prompt(golden, reply, offered, facts.root);
    let status = match (differences.is_empty(), facts.pinned) {
        (true, _) => Status::Pass,
        (false, true) => Status::Fail,
        (false, false) => Status::Gap,
    };
    CaseJudgement {
        status,
        differences,
        prompt,
        not_offered,
    }
}

/// The prompt part: `{root0}` put back for the root, then byte for byte.
pub(crate) fn judge_prompt(
    golden: &Value,
    reply: &Value,
    offered: &BTreeSet<String>,
    root: &str,
) -> Part {
    if !offered.contains("prompt") {
        return Part::NotOffered;
    }
    let want = golden["prompt"].as_str().unwrap_or_default();
    match reply.get("prompt").and_then(Value::as_str) {
        Some(got) if got.replace(root, "{root0}") == want => Part::Matches,
        Some(got) => {
            let got = got.replace(root, "{root0}");
            let (line, column) =
                crate::compare::text::first_difference(&got, want).unwrap_or((0, 0));
            Part::Differs(format!("prompt differs at line {line}, column {column}"))
        }
        None => Part::Differs(format!(
            "prompt missing ({})",
            reply.get("promptError").unwrap_or(&Value::Null)
        )),
    }
}

#[cfg(test)]
mod tests;
