//! `skill-conform corpus` and `gen-corpus` end to end, on generated trees: the folder is read
//! in place and never changed, agreement is quiet, a mutant's disagreements are located, the
//! reports are deterministic, and the exit codes follow the flags.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use skill_conform::corpus_gen::generate;

const BIN: &str = env!("CARGO_BIN_EXE_skill-conform");

use crate::common::repo;

/// The binary with a clean environment (no `SKILL_CONFORM_*`, no `CI`).
fn skill_conform<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    let mut command = Command::new(BIN);
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if key.starts_with("SKILL_CONFORM_") || key == "CI" {
            command.env_remove(key);
        }
    }
    command.args(args).output().expect("skill-conform runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every entry under `dir` with its kind and content (a symlink's target), sorted: compared
/// before and after a run, it proves nothing was written, renamed or removed.
fn snapshot(dir: &Path) -> Vec<(String, String, Vec<u8>)> {
    let mut out: Vec<(String, String, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|entry| {
            let entry = entry.unwrap();
            let relative = entry
                .path()
                .strip_prefix(dir)
                .unwrap()
                .display()
                .to_string();
            let kind = entry.file_type();
            if kind.is_symlink() {
                let target = std::fs::read_link(entry.path()).unwrap();
                (
                    relative,
                    "link".into(),
                    target.display().to_string().into_bytes(),
                )
            } else if kind.is_dir() {
                (relative, "dir".into(), Vec::new())
            } else {
                (
                    relative,
                    "file".into(),
                    std::fs::read(entry.path()).unwrap(),
                )
            }
        })
        .collect();
    out.sort();
    out
}

fn mutant_adapter() -> String {
    format!("mutant-ldw={BIN} adapter --reference --mutant last-duplicate-wins")
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// No line (nor `; ` clause of the verdict line) that names `port` says it agrees: a port
/// not compared never agrees.
fn assert_no_agreement_claimed_for(stdout: &str, port: &str) {
    let clauses = stdout.lines().flat_map(|line| line.split("; "));
    for clause in clauses.filter(|c| c.contains(port)) {
        assert!(
            !clause.replace("disagree", "").contains("agree"),
            "a line claims agreement for {port}: {clause}"
        );
    }
}

/// `out`'s stdout, once its exit code is `code` (else a failure showing both streams).
fn stdout_of(out: &Output, code: i32) -> String {
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    stdout
}

/// `corpus` over `tree` with the reference as port `itself`, the given extra arguments, the
/// reports in `reports`.
fn corpus_with_itself(tree: &Path, reports: &Path, extra: &[&str]) -> Output {
    let adapter = format!("itself={BIN} adapter --reference");
    let mut args = vec![
        "corpus".to_owned(),
        tree.display().to_string(),
        "--adapter".into(),
        adapter,
        "--report-dir".into(),
        reports.display().to_string(),
        "--repo".into(),
        repo().display().to_string(),
    ];
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    skill_conform(&args)
}

fn a_mutant_disagrees_in_place_and_the_tree_is_unchanged() {
    let tmp = crate::common::tempdir();
    let tree = tmp.path().join("skills");
    generate(&tree, 300, 2).unwrap();
    let before = snapshot(&tree);
    let (reports, again) = (tmp.path().join("reports"), tmp.path().join("again"));
    let repo = repo();
    let adapter = mutant_adapter();
    let args = |dir: &Path| {
        vec![
            "corpus".to_owned(),
            tree.display().to_string(),
            "--adapter".into(),
            adapter.clone(),
            "--report-dir".into(),
            dir.display().to_string(),
            "--repo".into(),
            repo.display().to_string(),
        ]
    };
    let out = skill_conform(&args(&reports));
    let stdout = stdout_of(&out, 0);
    assert_eq!(snapshot(&tree), before, "corpus wrote to the tree");

    assert!(
        stdout.starts_with("# skill-conform corpus: every selected port compared; disagreeing with the reference: mutant-ldw\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("## Duplicated names: which copy won"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  - mutant-ldw: skipped (duplicate-name)"),
        "{stdout}"
    );
    assert!(stdout.contains("- mutant-ldw: "), "{stdout}");
    assert!(stdout.contains("loads differ; prompt differs"), "{stdout}");

    let report = read_json(&reports.join("corpus.json"));
    let errors = crate::common::schema_errors(&skill_conform::corpus::schema(), &report);
    assert!(
        errors.is_empty(),
        "corpus.json breaks its schema: {errors:#?}"
    );
    assert_eq!(report["disagreement"], Value::Bool(true));
    assert_eq!(report["complete"], Value::Bool(true));
    assert_eq!(report["format"], 2);
    assert_eq!(
        report["roots"][0],
        Value::String(tree.display().to_string())
    );
    assert_eq!(report["ports"]["reference"]["cluster"], 1);
    assert_eq!(report["ports"]["mutant-ldw"]["cluster"], 2);
    assert_eq!(report["ports"]["mutant-ldw"]["agreesWithReference"], false);
    let rows = report["disagreements"].as_array().unwrap();
    assert!(!rows.is_empty());
    // Every reported location is redacted, and one the reference accepts is dropped.
    assert!(rows
        .iter()
        .all(|r| r["location"].as_str().unwrap().starts_with("{root0}/")));
    assert!(rows.iter().any(|r| r["referenceAcceptsPortDrops"] == true));
    assert!(!report["duplicates"].as_array().unwrap().is_empty());
    assert!(reports.join("corpus.md").is_file());

    // Same tree, same ports: byte-identical reports; --fail-on-disagreement makes it exit 1.
    let mut failing = args(&again);
    failing.push("--fail-on-disagreement".into());
    let out = skill_conform(&failing);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    for name in ["corpus.json", "corpus.md"] {
        assert_eq!(
            std::fs::read(reports.join(name)).unwrap(),
            std::fs::read(again.join(name)).unwrap(),
            "{name} differs between two runs"
        );
    }
    assert_eq!(snapshot(&tree), before, "corpus wrote to the tree");
}

fn the_reference_agrees_with_itself_and_unavailable_ports_are_listed() {
    let tmp = crate::common::tempdir();
    let tree = tmp.path().join("skills");
    generate(&tree, 120, 5).unwrap();
    let reports = tmp.path().join("reports");
    let adapter = format!("itself={BIN} adapter --reference");
    let out = skill_conform(&[
        "corpus",
        tree.to_str().unwrap(),
        "--adapter",
        &adapter,
        "--adapter",
        "ghost=/nonexistent/adapter",
        "--fail-on-disagreement",
        "--report-dir",
        reports.to_str().unwrap(),
        "--repo",
        repo().to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    // The ghost never started: it is listed with the cause and was not compared, so the run
    // exits 3 and its first line says so; "agree" is never said of it.
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.starts_with(
            "# skill-conform corpus: ghost: not compared: broken: the adapter did not start"
        ),
        "{stdout}"
    );
    assert_no_agreement_claimed_for(&stdout, "ghost");
    assert!(
        stdout.contains("## Disagreements: 0 SKILL.md locations"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  - ghost: broken: the adapter did not start"),
        "{stdout}"
    );
    assert!(stdout.contains("- itself: all "), "{stdout}");
    assert!(stdout.contains("loads match; prompt matches"), "{stdout}");
    let report = read_json(&reports.join("corpus.json"));
    assert_eq!(
        report["clusters"][0]["ports"],
        serde_json::json!(["reference", "itself"])
    );
    assert_eq!(report["ports"]["itself"]["agreesWithReference"], true);

    let out = skill_conform(&[
        "corpus",
        tree.to_str().unwrap(),
        "--adapter",
        &adapter,
        "--fail-on-disagreement",
        "--report-dir",
        reports.to_str().unwrap(),
        "--repo",
        repo().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).starts_with(
        "# skill-conform corpus: every selected port compared; itself agrees with the reference (inventory, every load, prompt)\n"
    ));
}

fn a_port_that_fails_the_smoke_pair_is_broken_not_a_disagreement() {
    let tmp = crate::common::tempdir();
    let tree = tmp.path().join("skills");
    generate(&tree, 20, 3).unwrap();
    let reports = tmp.path().join("reports");
    // Answers with another case id: the smoke pair catches it before the corpus request.
    let adapter = format!("liar={BIN} adapter --reference --fault wrong-id");
    let out = skill_conform(&[
        "corpus",
        tree.to_str().unwrap(),
        "--adapter",
        &adapter,
        "--report-dir",
        reports.to_str().unwrap(),
        "--repo",
        repo().to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.contains("  - liar: broken: the smoke pair failed: "),
        "{stdout}"
    );
    assert_no_agreement_claimed_for(&stdout, "liar");
    let report = read_json(&reports.join("corpus.json"));
    assert_eq!(report["ports"]["liar"]["state"], "broken");
    assert_eq!(report["ports"]["liar"]["fault"]["kind"], "wrong-case");
}

fn a_missing_folder_is_a_one_line_usage_error() {
    let tmp = crate::common::tempdir();
    let missing = tmp.path().join("no-such-folder");
    let out = skill_conform(&[
        "corpus",
        missing.to_str().unwrap(),
        "--repo",
        repo().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(missing.to_str().unwrap()), "{stderr}");
    assert!(out.stdout.is_empty());
}

fn gen_corpus_is_seeded_and_refuses_a_non_empty_dir() {
    let tmp = crate::common::tempdir();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for dir in [&a, &b] {
        let out = skill_conform(&[
            "gen-corpus",
            dir.to_str().unwrap(),
            "--skills",
            "80",
            "--seed",
            "9",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(text(&out.stdout).starts_with("wrote 80 SKILL.md files"));
    }
    assert_eq!(snapshot(&a), snapshot(&b));
    let before = snapshot(&a);
    let out = skill_conform(&[
        "gen-corpus",
        a.to_str().unwrap(),
        "--skills",
        "5",
        "--seed",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is not an empty directory"));
    assert_eq!(snapshot(&a), before);
}

/// A stand-in port: the reference adapter behind a relay that pads every load of a reply
/// with spaces between array elements (the same JSON value, twice the bytes), so a batch
/// sized from the reference's own loads comes back over the cap and must be halved.
const PADDING_RELAY: &str = r#"
import json, subprocess, sys
ref = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
for line in sys.stdin:
    ref.stdin.write(line.encode()); ref.stdin.flush()
    reply = ref.stdout.readline().decode()
    value = json.loads(reply)
    loads = value.get("loads")
    if isinstance(loads, list) and loads:
        value["loads"] = "@LOADS@"
        items = [json.dumps(l, ensure_ascii=False, separators=(",", ":")) for l in loads]
        pad = " " * sum(len(i) for i in items)
        joined = ("," + pad).join(items) if len(items) > 1 else items[0] + pad
        reply = json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace('"@LOADS@"', "[" + joined + "]") + "\n"
    sys.stdout.write(reply); sys.stdout.flush()
"#;

fn write_skill(dir: &Path, name: &str, body: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: The {name} skill.\n---\n{body}"),
    )
    .unwrap();
}

fn loads_come_in_batches_under_the_cap_and_a_load_alone_over_it_is_not_compared() {
    let tmp = crate::common::tempdir();
    let tree = tmp.path().join("skills");
    generate(&tree, 60, 7).unwrap();
    write_skill(
        &tree.join("big-one"),
        "big-one",
        &"a long line\n".repeat(8_000),
    );
    let relay = tmp.path().join("relay.py");
    std::fs::write(&relay, PADDING_RELAY).unwrap();
    let padded = format!(
        "padded=python3 {} {BIN} adapter --reference",
        relay.display()
    );
    let reports = tmp.path().join("reports");
    let out = corpus_with_itself(
        &tree,
        &reports,
        &["--adapter", &padded, "--line-cap", "65536"],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    assert!(
        stdout.starts_with("# skill-conform corpus: itself: not compared: 1 load over the 64 KiB cap; padded: not compared: 1 load over the 64 KiB cap\n"),
        "{stdout}"
    );
    assert!(stderr.contains("padded: a batch of "), "{stderr}");
    assert!(
        stderr.contains("over the 64 KiB cap; halving it"),
        "{stderr}"
    );
    assert_no_agreement_claimed_for(&stdout, "itself");
    assert_no_agreement_claimed_for(&stdout, "padded");
    let report = read_json(&reports.join("corpus.json"));
    let load_count = report["loadCount"].as_u64().unwrap();
    for port in ["itself", "padded"] {
        let summary = &report["ports"][port];
        assert_eq!(summary["state"], "partial", "{port}: {summary:#}");
        assert_eq!(summary["agreesWithReference"], Value::Null, "{port}");
        let loads = &summary["loads"];
        assert_eq!(loads["count"].as_u64().unwrap(), load_count - 1, "{port}");
        assert_eq!(loads["differences"], serde_json::json!([]), "{port}");
        assert_eq!(
            loads["notCompared"],
            serde_json::json!([{"why": {"why": "over-the-cap", "cap": 65536}, "names": ["big-one"]}]),
            "{port}"
        );
        assert!(loads["requests"].as_u64().unwrap() > 1, "{port}: {loads:#}");
    }
    // Padding doubled every reply: more requests than the plan, which itself used.
    assert!(
        report["ports"]["padded"]["loads"]["requests"].as_u64()
            > report["ports"]["itself"]["loads"]["requests"].as_u64()
    );
    assert_eq!(report["complete"], false);
    assert_eq!(report["lineCap"], 65536);

    // A cap the first reply (inventory and prompt) does not fit: the port is not compared.
    let out = corpus_with_itself(&tree, &reports, &["--line-cap", "4096"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.starts_with("# skill-conform corpus: itself: not compared: fault: the first reply (inventory and prompt) is over the 4 KiB cap (hint: raise --line-cap)\n"),
        "{stdout}"
    );
    assert_no_agreement_claimed_for(&stdout, "itself");
}

fn a_line_cap_out_of_bounds_is_a_usage_error() {
    let tmp = crate::common::tempdir();
    for cap in ["100", "2147483648", "lots"] {
        let out = skill_conform(&[
            "corpus",
            tmp.path().to_str().unwrap(),
            "--line-cap",
            cap,
            "--repo",
            repo().to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{cap}");
        assert!(text(&out.stderr).contains("--line-cap"), "{cap}");
    }
}

fn a_skill_md_over_the_default_cap_is_not_compared_alone_and_the_rest_is() {
    let tmp = crate::common::tempdir();
    let tree = tmp.path().join("skills");
    write_skill(&tree.join("small-a"), "small-a", "Body.\n");
    write_skill(&tree.join("small-b"), "small-b", "Body.\n");
    // Just over the default 16 MiB line cap once its load is a JSON reply (any size over it
    // takes the same path; a 50 MB file only made the test three times slower).
    let line = "x".repeat(99) + "\n";
    write_skill(&tree.join("huge"), "huge", &line.repeat(170_000));
    assert!(std::fs::metadata(tree.join("huge/SKILL.md")).unwrap().len() > 16 << 20);
    let reports = tmp.path().join("reports");
    let out = corpus_with_itself(&tree, &reports, &[]);
    let stdout = stdout_of(&out, 3);
    assert!(
        stdout.starts_with(
            "# skill-conform corpus: itself: not compared: 1 load over the 16 MiB cap\n"
        ),
        "{stdout}"
    );
    let loads = &read_json(&reports.join("corpus.json"))["ports"]["itself"]["loads"];
    assert_eq!(loads["count"], 3, "{loads:#}");
    assert_eq!(
        loads["notCompared"][0]["names"],
        serde_json::json!(["huge"])
    );
    assert_eq!(loads["differences"], serde_json::json!([]));
}

/// A directory chain whose full path is longer than PATH_MAX (4096 bytes) under `at`, built
/// with short paths only (each level renamed into a fresh parent): listing its deepest
/// folders fails with "File name too long" even for root.
fn too_deep_chain(at: &Path) {
    let level = "d".repeat(200);
    let chain = at.join("chain");
    std::fs::create_dir_all(chain.join("bottom")).unwrap();
    let wrapper = at.join("wrapper");
    for _ in 0..24 {
        std::fs::create_dir_all(wrapper.join(&level)).unwrap();
        std::fs::rename(&chain, wrapper.join(&level).join("chain")).unwrap();
        std::fs::rename(&wrapper, &chain).unwrap();
    }
}

fn unreadable_folders_links_that_loop_and_names_not_utf8_are_warnings() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = crate::common::tempdir();
    let tree = tmp.path().join("skills");
    write_skill(&tree.join("plain"), "plain", "Body.\n");
    let not_utf8 = tree.join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
    write_skill(&not_utf8, "cafe", "Body.\n");
    std::os::unix::fs::symlink("loop", tree.join("loop")).unwrap();
    too_deep_chain(&tree);
    let reports = tmp.path().join("reports");
    let out = corpus_with_itself(&tree, &reports, &[]);
    // Warnings change no verdict: the port was compared on everything the walk read.
    let stdout = stdout_of(&out, 0);
    assert!(
        stdout.contains("## Warnings: 3 paths the reference could not read as given"),
        "{stdout}"
    );
    assert!(
        stdout.contains("- `{root0}/caf\\xE9`: name is not UTF-8"),
        "{stdout}"
    );
    assert!(
        stdout.contains("- `{root0}/loop`: link that cannot be followed, ignored (Too many levels of symbolic links"),
        "{stdout}"
    );
    let report = read_json(&reports.join("corpus.json"));
    let warnings = report["warnings"].as_array().unwrap();
    let kinds: Vec<&str> = warnings
        .iter()
        .map(|w| w["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["not-utf8-name", "unreadable-folder", "unfollowable-link"],
        "{warnings:#?}"
    );
    let deep = warnings[1]["location"].as_str().unwrap();
    assert!(deep.starts_with("{root0}/chain/"), "{deep}");
    assert!(
        warnings[1]["error"]
            .as_str()
            .unwrap()
            .contains("File name too long"),
        "{warnings:#?}"
    );
    // Walks read the listing once and the warnings come sorted: the same bytes twice.
    let again = tmp.path().join("again");
    corpus_with_itself(&tree, &again, &[]);
    assert_eq!(
        std::fs::read(reports.join("corpus.json")).unwrap(),
        std::fs::read(again.join("corpus.json")).unwrap()
    );
}

fn a_named_port_that_is_unavailable_is_not_compared_and_exits_3() {
    let tmp = crate::common::tempdir();
    let tree = tmp.path().join("skills");
    write_skill(&tree.join("plain"), "plain", "Body.\n");
    let reports = tmp.path().join("reports");
    // A checkout path that does not exist makes the port unavailable.
    let missing = tmp.path().join("no-checkout");
    let port = format!("python={}", missing.display());
    let out = corpus_with_itself(&tree, &reports, &["--port", &port]);
    let stdout = stdout_of(&out, 3);
    assert!(
        stdout.starts_with("# skill-conform corpus: python: not compared: unavailable: "),
        "{stdout}"
    );
    assert_no_agreement_claimed_for(&stdout, "python");
}

/// A stand-in port: the reference adapter behind a relay that answers any batch of loads
/// holding `ERROR_NAME` with `error`, and exits (a crash) on any batch holding `CRASH_NAME`.
const FAILING_RELAY: &str = r#"
import json, subprocess, sys
ref = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
for line in sys.stdin:
    request = json.loads(line)
    load = request.get("load") or []
    if "crash-me" in load:
        sys.exit(3)
    if "refuse-me" in load:
        sys.stdout.write(json.dumps({"case": request["case"], "error": "<b>refused</b>"}) + "\n")
        sys.stdout.flush()
        continue
    ref.stdin.write(line.encode()); ref.stdin.flush()
    sys.stdout.write(ref.stdout.readline().decode()); sys.stdout.flush()
"#;

fn a_batch_that_crashes_or_answers_error_leaves_only_its_loads_not_compared() {
    let tmp = crate::common::tempdir();
    let tree = tmp.path().join("skills");
    generate(&tree, 60, 7).unwrap();
    // Each trigger's load alone is over the batch target (3/4 of the cap): a batch of its own.
    let body = "a line of body text\n".repeat(3_000);
    write_skill(&tree.join("crash-me"), "crash-me", &body);
    write_skill(&tree.join("refuse-me"), "refuse-me", &body);
    let relay = tmp.path().join("relay.py");
    std::fs::write(&relay, FAILING_RELAY).unwrap();
    let reports = tmp.path().join("reports");
    let adapter = format!(
        "failing=python3 {} {BIN} adapter --reference",
        relay.display()
    );
    let out = skill_conform(&[
        "corpus",
        tree.to_str().unwrap(),
        "--adapter",
        &adapter,
        "--line-cap",
        "65536",
        "--report-dir",
        reports.to_str().unwrap(),
        "--repo",
        repo().to_str().unwrap(),
    ]);
    let stdout = stdout_of(&out, 3);
    assert!(
        stdout.starts_with("# skill-conform corpus: failing: not compared: "),
        "{stdout}"
    );
    assert_no_agreement_claimed_for(&stdout, "failing");
    let report = read_json(&reports.join("corpus.json"));
    let loads = &report["ports"]["failing"]["loads"];
    assert_eq!(report["ports"]["failing"]["state"], "partial");
    let groups = loads["notCompared"].as_array().unwrap();
    let group = |why: &str| {
        groups
            .iter()
            .find(|g| g["why"]["why"] == why)
            .unwrap_or_else(|| panic!("no {why} group: {groups:#?}"))
    };
    let names = |g: &Value| -> Vec<String> {
        g["names"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_owned())
            .collect()
    };
    let refused = group("error-reply");
    assert_eq!(refused["why"]["message"], "<b>refused</b>");
    assert_eq!(names(refused), ["refuse-me"]);
    let crashed = group("fault");
    assert_eq!(crashed["why"]["fault"]["kind"], "exited", "{crashed:#}");
    assert_eq!(names(crashed), ["crash-me"]);
    // Every other load was compared (the session restarted the crashed adapter), and agrees.
    assert_eq!(loads["count"].as_u64().unwrap() + 2, report["loadCount"]);
    assert_eq!(loads["differences"], serde_json::json!([]));
    // The untrusted message is escaped in the page.
    let page = std::fs::read_to_string(reports.join("corpus.html")).unwrap();
    assert!(!page.contains("<b>refused"));
}

crate::tests![
    a_mutant_disagrees_in_place_and_the_tree_is_unchanged,
    the_reference_agrees_with_itself_and_unavailable_ports_are_listed,
    a_port_that_fails_the_smoke_pair_is_broken_not_a_disagreement,
    a_missing_folder_is_a_one_line_usage_error,
    gen_corpus_is_seeded_and_refuses_a_non_empty_dir,
    loads_come_in_batches_under_the_cap_and_a_load_alone_over_it_is_not_compared,
    a_line_cap_out_of_bounds_is_a_usage_error,
    a_skill_md_over_the_default_cap_is_not_compared_alone_and_the_rest_is,
    unreadable_folders_links_that_loop_and_names_not_utf8_are_warnings,
    a_named_port_that_is_unavailable_is_not_compared_and_exits_3,
    a_batch_that_crashes_or_answers_error_leaves_only_its_loads_not_compared,
];
