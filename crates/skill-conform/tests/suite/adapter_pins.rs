//! One pin per port: where an adapter's manifest must carry the toolnexus version, it equals
//! `adapters/ports.toml`; every `setup.sh` sources the shared preamble and refuses to run
//! without the version argument (no default version hides anywhere).

use std::process::Command;

use crate::common::repo;

fn read(relative: &str) -> String {
    std::fs::read_to_string(repo().join(relative))
        .unwrap_or_else(|e| panic!("cannot read {relative}: {e}"))
}

/// `[ports.<name>] version` from adapters/ports.toml, for every port, sorted by name.
fn pinned_versions() -> Vec<(String, String)> {
    let ports: toml::Table = read("adapters/ports.toml")
        .parse()
        .expect("ports.toml parses");
    let ports = ports["ports"].as_table().expect("[ports] is a table");
    ports
        .iter()
        .map(|(name, port)| {
            let version = port["version"].as_str().expect("version is a string");
            (name.clone(), version.to_owned())
        })
        .collect()
}

/// The text between `before` and the next `after` in `text`, the first time `before` occurs.
fn between<'a>(text: &'a str, before: &str, after: &str) -> Option<&'a str> {
    let start = text.find(before)? + before.len();
    let len = text[start..].find(after)?;
    Some(&text[start..start + len])
}

/// The toolnexus version a port's manifest carries, or `None` for a port whose adapter has no
/// manifest that must name one (then ports.toml is the only pin).
fn manifest_version(port: &str) -> Option<(&'static str, String)> {
    let (file, found) = match port {
        "python" => {
            let file = "adapters/python/pyproject.toml";
            let doc: toml::Table = read(file).parse().expect("pyproject.toml parses");
            let deps = doc["project"]["dependencies"]
                .as_array()
                .expect("dependencies");
            let pin = deps
                .iter()
                .filter_map(|d| d.as_str()?.strip_prefix("toolnexus=="))
                .next()
                .map(str::to_owned);
            (file, pin)
        }
        "js" => {
            let file = "adapters/js/package.json";
            let doc: serde_json::Value = serde_json::from_str(&read(file)).expect("JSON");
            let pin = doc["dependencies"]["toolnexus"].as_str().map(str::to_owned);
            (file, pin)
        }
        "golang" => {
            let file = "adapters/golang/go.mod";
            let pin = between(
                &read(file),
                "require github.com/muthuishere/toolnexus/golang v",
                "\n",
            )
            .map(|v| v.trim().to_owned());
            (file, pin)
        }
        "java" => {
            let file = "adapters/java/pom.xml";
            let pin = between(&read(file), "<toolnexus.version>", "<").map(str::to_owned);
            (file, pin)
        }
        "csharp" => {
            let file = "adapters/csharp/Adapter.csproj";
            let pin = between(&read(file), "== ''\">", "</ToolnexusVersion>").map(str::to_owned);
            (file, pin)
        }
        "clojure" => {
            let file = "adapters/clojure/deps.edn";
            let code: String = read(file)
                .lines()
                .filter(|line| !line.trim_start().starts_with(';'))
                .collect();
            let pin = between(
                &code,
                "net.clojars.muthuishere/toolnexus {:mvn/version \"",
                "\"",
            )
            .map(str::to_owned);
            (file, pin)
        }
        _ => return None,
    };
    Some((
        file,
        found.unwrap_or_else(|| panic!("{file} names no toolnexus version")),
    ))
}

fn every_manifest_pin_equals_ports_toml() {
    let mut checked = Vec::new();
    for (port, pinned) in pinned_versions() {
        if let Some((file, version)) = manifest_version(&port) {
            assert_eq!(
                version, pinned,
                "{file} pins toolnexus {version}, adapters/ports.toml pins {port} to {pinned} (hint: change both)"
            );
            checked.push(port);
        }
    }
    checked.sort();
    assert_eq!(
        checked,
        ["clojure", "csharp", "golang", "java", "js", "python"]
    );
}

/// How every setup.sh sources the shared preamble: its own folder without starting `dirname`
/// (the runner calls set-up on every run, and each process it starts is time).
const PREAMBLE: &str = "self=\"${BASH_SOURCE[0]}\" && [[ \"$self\" == */* ]] || self=\"./$self\"\n. \"${self%/*}/../lib/setup-common.sh\"\n";

fn every_setup_sources_the_preamble_and_the_runner_passes_the_version() {
    let ports: toml::Table = read("adapters/ports.toml").parse().unwrap();
    for (port, _) in pinned_versions() {
        let setup = read(&format!("adapters/{port}/setup.sh"));
        assert!(
            setup.contains(&format!("PORT={port}\n{PREAMBLE}setup_args \"$@\"")),
            "adapters/{port}/setup.sh does not open with the shared preamble"
        );
        assert!(
            !setup.contains("default_version"),
            "adapters/{port}/setup.sh has a default version"
        );
        let command = ports["ports"][&port]["setup"].as_array().unwrap();
        let args: Vec<&str> = command.iter().filter_map(|a| a.as_str()).collect();
        assert_eq!(
            args.last(),
            Some(&"{version}"),
            "ports.toml: {port}'s setup must end in {{version}}"
        );
    }
}

/// Runs `bash adapters/<port>/setup.sh ARGS…`; returns (exit code, stdout, stderr).
fn setup(port: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new("bash")
        .arg(repo().join(format!("adapters/{port}/setup.sh")))
        .args(args)
        .output()
        .expect("bash runs");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("UTF-8");
    (out.status.code(), text(out.stdout), text(out.stderr))
}

fn every_setup_refuses_to_run_without_a_version_naming_ports_toml() {
    for (port, _) in pinned_versions() {
        let (code, stdout, stderr) = setup(&port, &[]);
        assert_eq!(
            code,
            Some(1),
            "{port}: setup.sh without arguments must fail"
        );
        assert_eq!(stdout, "", "{port}");
        assert_eq!(
            stderr,
            format!("setup.sh ({port}): usage: setup.sh VERSION|PATH (got 0 arguments; the pinned version is in adapters/ports.toml)\n"),
        );
        let (code, _, stderr) = setup(&port, &["/no/such/folder"]);
        assert_eq!(code, Some(1));
        assert_eq!(
            stderr,
            format!("setup.sh ({port}): not a version and not a directory: /no/such/folder\n")
        );
    }
}

crate::tests![
    every_manifest_pin_equals_ports_toml,
    every_setup_sources_the_preamble_and_the_runner_passes_the_version,
    every_setup_refuses_to_run_without_a_version_naming_ports_toml,
];
