//! `corpus.html`: skill names, descriptions, locations and port messages are untrusted and
//! escaped, the page is self-contained, a port that was not compared is never said to agree,
//! and — in a real browser, Debian's headless `chromium` — the port filter preset from the
//! address hides the rows where that port's verdict is the reference's.
//!
//! Without chromium the browser test prints a line and passes, unless
//! `SKILL_CONFORM_REQUIRE_CHROMIUM=1` (CI), which turns absence into a failure.

use crate::common::{chromium, headless};

use serde_json::{json, Value};
use skill_conform::corpus::{analyse, write_report, LoadAnswers, PortResult, PortRun};

const HOSTILE_NAME: &str = "<script>alert('name')</script>";
const HOSTILE_DESCRIPTION: &str = "<img src=x onerror=alert('description')>";
const HOSTILE_REASON: &str = "\"><script>alert('reason')</script>";

fn reply(skills: &[(&str, &str, &str)], skipped: &[(&str, &str)]) -> PortRun {
    let skills: Vec<Value> = skills
        .iter()
        .map(|(name, description, location)| {
            json!({"name": name, "description": description, "location": location})
        })
        .collect();
    let skipped: Vec<Value> = skipped
        .iter()
        .map(|(location, reason)| json!({"location": location, "reason": reason}))
        .collect();
    PortRun::Reply {
        normalized: json!({"inventory": {"skills": skills, "skipped": skipped}, "loads": [], "prompt": "p"}),
        loads: LoadAnswers::answered(vec![]),
    }
}

fn port(name: &str, run: PortRun) -> PortResult {
    PortResult::selected(name, run)
}

/// The reference and `python` agree on one location and differ on one whose name and
/// description are hostile; `mutant` differs on another; `ghost` did not start.
fn page() -> String {
    let shared = ("shared", "Shared.", "{root0}/shared/SKILL.md");
    let hostile = (
        HOSTILE_NAME,
        HOSTILE_DESCRIPTION,
        "{root0}/<b>x</b>/SKILL.md",
    );
    let report = analyse(
        vec!["/r".into()],
        0,
        vec![
            port("reference", reply(&[shared, hostile], &[])),
            port(
                "python",
                reply(&[shared], &[("{root0}/<b>x</b>/SKILL.md", HOSTILE_REASON)]),
            ),
            port("mutant", reply(&[hostile], &[])),
            port(
                "ghost",
                PortRun::Broken {
                    what: "<i>did not start</i>".into(),
                    fault: None,
                    stderr_tail: None,
                },
            ),
        ],
    );
    skill_conform::report::corpus_html::render(&report)
}

fn untrusted_text_is_escaped_and_the_page_is_self_contained() {
    let page = page();
    assert_eq!(
        page.matches("<script").count(),
        1,
        "only the page's own script"
    );
    for raw in ["<img", "<b>x</b>", "<i>did"] {
        assert!(!page.contains(raw), "{raw} unescaped");
    }
    assert!(page.contains("&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt;"));
    assert!(page.contains("&lt;img src=x onerror=alert(&#39;description&#39;)&gt;"));
    assert!(page.contains("&quot;&gt;&lt;script&gt;alert(&#39;reason&#39;)"));
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "no CDN"
    );
    assert!(page.contains("<table id=\"disagreements\">"));
    assert!(page.contains("<p class=\"legend\" id=\"legend\">"));
    assert!(page.contains("<select id=\"port-filter\">"));
    // The ghost was not compared: its row says so and never "agrees".
    let ghost = page
        .lines()
        .find(|l| l.starts_with("<tr><td>ghost</td>"))
        .expect("a ghost row");
    assert!(ghost.contains("not said: not compared in full"), "{ghost}");
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("<h1>skill-conform corpus: ghost: not compared: broken: "));
}

fn headless_chromium_filters_the_disagreements_by_port() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = crate::common::tempdir();
    std::fs::write(dir.path().join("corpus.html"), page()).unwrap();
    let url = format!("file://{}", dir.path().join("corpus.html").display());
    let profile = dir.path().join("profile");
    let dom = headless(&chromium, &profile, &["--dump-dom"], &url);
    assert!(!dom.contains("<script>alert"), "injected script in the DOM");
    assert!(!dom.contains("<img"), "injected element in the DOM");
    assert_eq!(dom.matches("class=\"location-row\"").count(), 2, "{dom}");
    // python differs from the reference on one location only.
    let filtered = headless(
        &chromium,
        &profile,
        &["--dump-dom"],
        &format!("{url}#port=python"),
    );
    assert_eq!(
        filtered.matches("class=\"location-row\"").count(),
        1,
        "{filtered}"
    );
    assert_eq!(filtered.matches("class=\"location-row hidden\"").count(), 1);
    assert!(
        filtered.contains("<tr class=\"location-row\" data-ports=\"python\">"),
        "{filtered}"
    );
    assert!(
        filtered.contains("<tr class=\"location-row hidden\" data-ports=\"mutant\">"),
        "{filtered}"
    );
}

fn corpus_writes_the_page_beside_corpus_md() {
    let dir = crate::common::tempdir();
    let report = analyse(
        vec!["/r".into()],
        0,
        vec![port("reference", reply(&[], &[]))],
    );
    write_report(&report, dir.path()).unwrap();
    let page = std::fs::read_to_string(dir.path().join("corpus.html")).unwrap();
    assert!(page.contains("<table id=\"ports\">"));
    assert!(dir.path().join("corpus.md").is_file());
}

crate::tests![
    untrusted_text_is_escaped_and_the_page_is_self_contained,
    headless_chromium_filters_the_disagreements_by_port,
    corpus_writes_the_page_beside_corpus_md,
];
