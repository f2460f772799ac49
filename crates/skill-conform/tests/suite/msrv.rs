//! The toolchain the README and `rust-version` state is the one the lock really needs: the
//! highest `rust-version` over every locked package, as `cargo metadata` reports it.

use std::path::Path;
use std::process::Command;

/// `1.89` or `1.89.0` as a comparable triple.
fn version(text: &str) -> (u64, u64, u64) {
    let mut parts = text.split('.').map(|part| part.parse::<u64>().unwrap_or(0));
    let mut next = || parts.next().unwrap_or(0);
    (next(), next(), next())
}

fn rust_version_is_the_highest_any_locked_package_needs() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--manifest-path",
        ])
        .arg(repo.join("Cargo.toml"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (needed, by) = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|package| {
            let rust = package["rust_version"].as_str()?;
            Some((version(rust), package["name"].as_str()?.to_owned()))
        })
        .max()
        .expect("some package states a rust-version");
    let manifest: toml::Table = std::fs::read_to_string(repo.join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let stated = manifest["workspace"]["package"]["rust-version"]
        .as_str()
        .expect("the workspace states rust-version");
    assert_eq!(
        version(stated),
        needed,
        "rust-version = {stated}, but `{by}` needs {needed:?}"
    );
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    let short = format!("{}.{}", needed.0, needed.1);
    assert!(
        readme.contains(&format!("Rust toolchain ({short}+)")),
        "README states Rust {short}+"
    );
}

crate::tests![rust_version_is_the_highest_any_locked_package_needs,];
