//! `report.html`: every status shows with its colour, untrusted text (stderr, adapter errors,
//! versions) is escaped, and — in a real browser, Debian's headless `chromium` — the DOM holds
//! the expected cells, the filters preset from the address hide rows, and a screenshot is
//! written for a human.
//!
//! Without chromium the browser test prints a line and passes, unless
//! `SKILL_CONFORM_REQUIRE_CHROMIUM=1` (CI), which turns absence into a failure.
//! `SKILL_CONFORM_SCREENSHOT_DIR=DIR` also copies the screenshot there.

use std::path::Path;

use crate::common::{chromium, headless};

use skill_conform::case::CaseId;
use skill_conform::judge::{
    CaseInfo, Evidence, FaultDetails, PortInfo, PortStatus, Results, Status, Verdict,
};
use skill_conform::report::{html, write_reports, Redactor};
use skill_conform::session::{Fault, Phase};

const HOSTILE_STDERR: &str = "Traceback\n<script>alert('stderr')</script>\n";
const HOSTILE_ERROR: &str = "<img src=x onerror=alert('error')>";
const HOSTILE_VERSION: &str = "0.21.0\"><script>alert('version')</script>";

fn id(text: &str) -> CaseId {
    CaseId::parse(text).unwrap()
}

fn verdict(status: Status, case: &CaseId) -> Verdict {
    let mut evidence = Evidence {
        repro: format!("skill-conform run --port fault --case {case}"),
        ..Evidence::default()
    };
    if status != Status::Pass {
        evidence.stderr_tail = Some(HOSTILE_STDERR.to_owned());
        evidence.adapter_error = Some(HOSTILE_ERROR.to_owned());
    }
    if status == Status::Crash {
        evidence.fault = Some(FaultDetails::new(
            Fault::Exited {
                status: None,
                signal: None,
                partial: None,
            },
            Phase::Run,
        ));
    }
    Verdict { status, evidence }
}

/// The reference, python 0.21.0, python@0.18.1, and a fault adapter that shows every status
/// (one case per status); one port unavailable.
fn run() -> Results {
    let mut results = Results::new();
    let statuses: Vec<Status> = Status::all().collect();
    let cases: Vec<CaseId> = (0..statuses.len())
        .map(|index| id(&format!("group{}/case-{index:02}", index % 3)))
        .collect();
    for (index, case) in cases.iter().enumerate() {
        let info = CaseInfo {
            pinned: index % 2 == 0,
            rules: vec!["§4".into()],
            golden_sha256: None,
        };
        results.add_case(case.clone(), info);
    }
    for (port, version) in [
        ("reference", "0.1.0"),
        ("python", HOSTILE_VERSION),
        ("python@0.18.1", "0.18.1"),
        ("fault", "1"),
    ] {
        let mut info = PortInfo::available(port);
        info.hello.library_version = Some(version.into());
        results.add_port(info);
    }
    let mut java = PortInfo::available("java");
    java.status = PortStatus::Unavailable {
        reason: "`mvn` not found".into(),
    };
    results.add_port(java);
    for (index, case) in cases.iter().enumerate() {
        results.insert("reference", case.clone(), verdict(Status::Pass, case));
        results.insert("python", case.clone(), verdict(Status::Pass, case));
        let old = if index == 1 {
            Status::Fail
        } else {
            Status::Pass
        };
        results.insert("python@0.18.1", case.clone(), verdict(old, case));
        results.insert("fault", case.clone(), verdict(statuses[index], case));
    }
    results
}

fn untrusted_text_is_escaped_and_every_status_has_a_cell() {
    let page = html::render(&run(), &Redactor::none());
    assert_eq!(
        page.matches("<script").count(),
        1,
        "only the page's own script"
    );
    assert!(!page.contains("<img"), "adapter error unescaped");
    assert!(page.contains("&lt;script&gt;alert(&#39;stderr&#39;)&lt;/script&gt;"));
    assert!(page.contains("&lt;img src=x onerror=alert(&#39;error&#39;)&gt;"));
    assert!(
        page.contains("0.21.0&quot;&gt;&lt;script&gt;"),
        "version escaped"
    );
    for status in Status::all() {
        let cell = status.words().cell;
        assert!(
            page.contains(&format!("<summary>{cell}</summary>"))
                || page.contains(&format!("\">{cell}</td>")),
            "{status} has no cell"
        );
    }
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "no CDN"
    );
}

fn headless_chromium_renders_the_matrix_and_the_filters() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = crate::common::tempdir();
    write_reports(&run(), dir.path(), &Redactor::none()).unwrap();
    let url = format!("file://{}", dir.path().join("report.html").display());
    let profile = dir.path().join("profile");

    // One start for the DOM and the screenshot: each start of chromium costs ~0.8 s of CPU.
    let shot = dir.path().join("report-html.png");
    let arg = format!("--screenshot={}", shot.display());
    let dom = headless(&chromium, &profile, &["--dump-dom", &arg], &url);
    assert!(dom.contains("<table id=\"matrix\">"), "{dom}");
    assert!(dom.contains("<p id=\"interop\">interop "), "{dom}");
    assert!(!dom.contains("<script>alert"), "injected script in the DOM");
    assert!(!dom.contains("<img"), "injected element in the DOM");
    assert!(dom.contains("<summary>FAIL</summary>"), "{dom}");
    assert_eq!(dom.matches("class=\"case-row hidden\"").count(), 0);

    let filtered = headless(
        &chromium,
        &profile,
        &["--dump-dom"],
        &format!("{url}#status=fail"),
    );
    let shown = filtered.matches("class=\"case-row\"").count();
    assert_eq!(shown, 1, "only the case with a `fail` stays: {filtered}");

    let bytes = std::fs::read(&shot).expect("a screenshot");
    assert!(bytes.starts_with(b"\x89PNG"), "not a PNG");
    if let Some(keep) = std::env::var_os("SKILL_CONFORM_SCREENSHOT_DIR") {
        std::fs::copy(&shot, Path::new(&keep).join("report-html.png")).unwrap();
    }
    println!("screenshot: {}", shot.display());
}

crate::tests![
    untrusted_text_is_escaped_and_every_status_has_a_cell,
    headless_chromium_renders_the_matrix_and_the_filters,
];
