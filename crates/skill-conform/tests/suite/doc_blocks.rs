//! skill-conform's library is built with `doctest = false` (Cargo.toml): a Rust example in its
//! docs would never run. So every fenced block in its doc comments names a language rustdoc
//! does not run; a Rust example belongs in a test.

/// The info strings a doc block may open with: none of them is compiled by rustdoc.
const NOT_RUST: [&str; 7] = ["toml", "text", "sh", "json", "console", "yaml", "markdown"];

fn every_doc_block_is_one_rustdoc_would_not_run() {
    let mut rust_blocks = Vec::new();
    for (path, text) in crate::common::rust_sources("src") {
        let mut inside = false;
        for (number, line) in text.lines().enumerate() {
            let line = line.trim_start();
            let Some(doc) = line
                .strip_prefix("///")
                .or_else(|| line.strip_prefix("//!"))
            else {
                continue;
            };
            let Some(info) = doc.trim().strip_prefix("```") else {
                continue;
            };
            if !inside && !NOT_RUST.contains(&info.trim()) {
                rust_blocks.push(format!("{}:{}", path.display(), number + 1));
            }
            inside = !inside;
        }
    }
    assert!(
        rust_blocks.is_empty(),
        "doctests are off in this crate: name the block's language ({NOT_RUST:?}) or make it a test: {rust_blocks:?}"
    );
}

crate::tests![every_doc_block_is_one_rustdoc_would_not_run];
