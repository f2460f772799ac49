//! The one table of what skill-conform calls things: every trial status, port state and
//! run-level problem, with its words in each report, whether it fails a pinned or an unpinned
//! case, and the exit codes with their precedence. README.md carries [`markdown`]'s output
//! between `<!-- vocabulary:start -->` and `<!-- vocabulary:end -->`; a test keeps them equal.
//! Later issues add rows here (to the enums), never a second vocabulary.

use std::fmt::Write as _;

use crate::error::ExitCode;
use crate::judge::{PortState, RunProblem, Status};

fn yes(flag: bool) -> &'static str {
    if flag {
        "yes"
    } else {
        "no"
    }
}

/// The trial statuses table.
fn statuses(out: &mut String) {
    out.push_str("| status (report.json, JUnit type, totals, libtest message) | matrix cell | fails a pinned case | fails an unpinned case | JUnit pinned / unpinned | libtest |\n|---|---|---|---|---|---|\n");
    for status in Status::all() {
        let words = status.words();
        let libtest = match (
            words.libtest_ignored,
            words.fails_pinned,
            words.fails_unpinned,
        ) {
            (true, _, _) => "ignored",
            (false, true, true) => "FAILED",
            (false, true, false) => "FAILED if pinned, else ok",
            (false, false, _) => "ok",
        };
        let _ = writeln!(
            out,
            "| `{}` | `{}` | {} | {} | {} / {} | {libtest} |",
            words.name,
            words.cell,
            yes(words.fails_pinned),
            yes(words.fails_unpinned),
            status.junit(true).word(),
            status.junit(false).word(),
        );
    }
}

/// The tables of port states (in a run, and in `skill-conform ports`), run-level problems and
/// exit codes.
fn runs(out: &mut String) {
    out.push_str("\n| port state | exit code |\n|---|---|\n");
    for state in PortState::all() {
        let _ = writeln!(out, "| `{}` | {} |", state.word(), state.exit_effect());
    }
    out.push_str("\n| `skill-conform ports` state | meaning |\n|---|---|\n");
    for state in crate::readiness::ReadinessState::all() {
        let _ = writeln!(out, "| `{}` | {} |", state.word(), state.meaning());
    }
    out.push_str("\n| run-level problem | exit code |\n|---|---|\n");
    for problem in RunProblem::all() {
        let _ = writeln!(
            out,
            "| {} | {} |",
            problem.words(),
            problem.exit_code().code()
        );
    }
    out.push_str("\n| exit code | meaning | precedence (highest wins) |\n|---|---|---|\n");
    for code in ExitCode::all() {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} |",
            code.code(),
            code.meaning(),
            code.precedence()
        );
    }
}

/// `skill-conform corpus`'s port states, why a load is not compared, and its exit codes.
fn corpus(out: &mut String) {
    use crate::corpus::{NotComparedKind, PortState};
    out.push_str("\n`skill-conform corpus`:\n\n| corpus port state (corpus.json) | meaning | exit code |\n|---|---|---|\n");
    for state in PortState::all() {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} |",
            state.word(),
            state.meaning(),
            state.exit_effect()
        );
    }
    out.push_str(
        "\n| load not compared (corpus.json `why`) | meaning | exit code |\n|---|---|---|\n",
    );
    for kind in NotComparedKind::all() {
        let _ = writeln!(out, "| `{}` | {} | 3 |", kind.word(), kind.meaning());
    }
    out.push_str("\n| corpus exit code | meaning |\n|---|---|\n");
    for (code, meaning) in crate::corpus::EXIT_CODES {
        let _ = writeln!(out, "| `{}` | {meaning} |", code.code());
    }
}

/// The whole vocabulary as Markdown (the README's table).
pub fn markdown() -> String {
    let mut out = String::new();
    statuses(&mut out);
    runs(&mut out);
    corpus(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "<!-- vocabulary:start -->\n";
    const END: &str = "<!-- vocabulary:end -->";

    #[test]
    fn the_readme_table_is_the_generated_one() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
        let readme = std::fs::read_to_string(&path).unwrap();
        let start = readme
            .find(START)
            .expect("README has the vocabulary start marker");
        let end = readme
            .find(END)
            .expect("README has the vocabulary end marker");
        let committed = &readme[start + START.len()..end];
        let generated = format!("\n{}\n", markdown());
        if std::env::var_os("UPDATE_README").is_some() && committed != generated {
            let updated = format!(
                "{}{generated}{}",
                &readme[..start + START.len()],
                &readme[end..]
            );
            std::fs::write(&path, updated).unwrap();
            return;
        }
        assert!(
            committed == generated,
            "README.md's vocabulary table is stale (hint: UPDATE_README=1 cargo test -p skill-conform --lib vocabulary)"
        );
    }

    #[test]
    fn every_word_is_the_serde_name() {
        for status in Status::all() {
            assert_eq!(serde_json::to_value(status).unwrap(), status.as_str());
        }
        for (state, status) in PortState::all().zip([
            serde_json::json!({"state": "available"}),
            serde_json::json!({"state": "unavailable", "reason": ""}),
            serde_json::json!({"state": "broken", "evidence": {"repro": ""}}),
        ]) {
            let status: crate::judge::PortStatus = serde_json::from_value(status).unwrap();
            assert_eq!(PortState::from(&status), state);
            assert_eq!(status.word(), state.word());
        }
        for state in crate::corpus::PortState::all() {
            assert_eq!(serde_json::to_value(state).unwrap(), state.word());
        }
        let fault = crate::judge::FaultDetails::new(
            crate::session::Fault::Timeout {
                after: std::time::Duration::from_secs(1),
            },
            crate::session::Phase::Run,
        );
        for why in [
            crate::corpus::NotComparedWhy::OverTheCap { cap: 1 },
            crate::corpus::NotComparedWhy::Fault { fault },
            crate::corpus::NotComparedWhy::ErrorReply {
                message: String::new(),
            },
        ] {
            let word = crate::corpus::NotComparedKind::from(&why).word();
            assert_eq!(serde_json::to_value(&why).unwrap()["why"], word);
        }
    }

    #[test]
    fn precedence_orders_the_codes() {
        use ExitCode::*;
        assert_eq!(Divergence.and(PortTrouble), PortTrouble);
        assert_eq!(PortTrouble.and(Divergence), PortTrouble);
        assert_eq!(Ok.and(Divergence), Divergence);
        assert_eq!(Divergence.and(Usage), Usage);
        let mut codes: Vec<ExitCode> = ExitCode::all().collect();
        codes.sort_by_key(|code| code.precedence());
        assert_eq!(
            codes,
            [Ok, Divergence, Usage, PortTrouble, Interrupted, Terminated]
        );
        assert_eq!(PortTrouble.and(Interrupted), Interrupted);
    }
}
