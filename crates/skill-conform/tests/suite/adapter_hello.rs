//! hello's optional `libraries` field (adapters/PROTOCOL.md): the python and js adapters report
//! the version of the YAML library that decides verdicts, read from what is installed. Each runs
//! against a stand-in toolnexus written here (no network); the toolchain must be on PATH.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::repo;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Sends hello then bye to `command`; returns the one reply line, parsed.
fn hello(command: &mut Command) -> serde_json::Value {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the adapter starts");
    let requests = "{\"cmd\":\"hello\",\"protocol\":1}\n{\"cmd\":\"bye\"}\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(requests.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "one reply line: {text}");
    serde_json::from_str(&text).unwrap()
}

fn python_hello_reports_the_installed_pyyaml() {
    let dir = crate::common::tempdir();
    let site = dir.path();
    write(
        &site.join("toolnexus/__init__.py"),
        "__version__ = '9.9.9'\ndef list_skills(*a, **k): pass\ndef load_skills(*a, **k): pass\n",
    );
    // A PyYAML distribution as pip leaves it: only its metadata matters to hello.
    write(
        &site.join("PyYAML-6.0.4.dist-info/METADATA"),
        "Metadata-Version: 2.1\nName: PyYAML\nVersion: 6.0.4\n",
    );
    let reply = hello(
        Command::new("python3")
            .arg(repo().join("adapters/python/adapter.py"))
            .env("PYTHONPATH", site),
    );
    assert_eq!(reply["version"], "9.9.9", "{reply}");
    assert_eq!(reply["libraries"], serde_json::json!({"PyYAML": "6.0.4"}));
}

fn js_hello_reports_the_yaml_package_node_would_resolve() {
    let dir = crate::common::tempdir();
    // npm's layout: the package, and `yaml` hoisted beside it.
    let modules = dir.path().join("node_modules");
    let pkg = modules.join("toolnexus");
    write(
        &pkg.join("package.json"),
        r#"{"name":"toolnexus","version":"9.9.9","type":"module"}"#,
    );
    write(
        &pkg.join("dist/skill.js"),
        "export function listSkills() {}\nexport function loadSkills() {}\n",
    );
    write(
        &modules.join("yaml/package.json"),
        r#"{"name":"yaml","version":"2.9.0"}"#,
    );
    let reply = hello(
        Command::new("node")
            .arg(repo().join("adapters/js/adapter.mjs"))
            .arg(&pkg),
    );
    assert_eq!(reply["version"], "9.9.9", "{reply}");
    assert_eq!(reply["libraries"], serde_json::json!({"yaml": "2.9.0"}));
}

crate::tests![
    python_hello_reports_the_installed_pyyaml,
    js_hello_reports_the_yaml_package_node_would_resolve,
];
