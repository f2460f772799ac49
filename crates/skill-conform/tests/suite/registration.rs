//! The suite's harness runs only what a module's `crate::tests![…]` lists (main.rs). A test
//! function left out of that list is dead code, which clippy's `-D warnings` refuses; a
//! `#[test]` attribute would be compiled out without a word under `harness = false`, so none
//! may appear here.

fn no_test_attribute_is_compiled_out() {
    let mut found = Vec::new();
    for (path, text) in crate::common::rust_sources("tests/suite") {
        for (number, line) in text.lines().enumerate() {
            if line.trim_start().starts_with(concat!("#[", "test]")) {
                found.push(format!("{}:{}", path.display(), number + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "#[test] runs nothing here; list the function in its module's crate::tests![…]: {found:?}"
    );
}

crate::tests![no_test_attribute_is_compiled_out];
