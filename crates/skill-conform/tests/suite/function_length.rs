//! No function in `src/` is longer than 80 lines, tests included: a function runs from its
//! `fn` line to the first later line that is its indentation followed by `}`.

use std::path::Path;

const LIMIT: usize = 80;

/// `(file, line, name, length)` of every function over [`LIMIT`] lines in `text`.
fn long_functions(file: &str, text: &str) -> Vec<(String, usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let indent = &line[..line.len() - line.trim_start().len()];
        let rest = line.trim_start();
        let rest = rest.strip_prefix("pub(crate) ").unwrap_or(rest);
        let rest = rest.strip_prefix("pub(super) ").unwrap_or(rest);
        let rest = rest.strip_prefix("pub ").unwrap_or(rest);
        let Some(signature) = rest.strip_prefix("fn ") else {
            continue;
        };
        if line.trim_end().ends_with(';') || line.trim_end().ends_with('}') {
            continue;
        }
        let close = format!("{indent}}}");
        let end = (start + 1..lines.len()).find(|&i| lines[i] == close);
        let length = end.map_or(0, |end| end - start + 1);
        if length > LIMIT {
            let name = signature.split(['(', '<']).next().unwrap_or("").to_owned();
            found.push((file.to_owned(), start + 1, name, length));
        }
    }
    found
}

fn no_function_in_src_is_longer_than_80_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut long = Vec::new();
    for (path, text) in crate::common::rust_sources("src") {
        let name = path.strip_prefix(&src).unwrap().display().to_string();
        long.extend(long_functions(&name, &text));
    }
    assert!(long.is_empty(), "functions over {LIMIT} lines: {long:#?}");
}

fn the_check_sees_a_long_function() {
    let body = "    x();\n".repeat(LIMIT);
    let text = format!("mod m {{\n    fn long() {{\n{body}    }}\n}}\nfn short() {{}}\n");
    let found = long_functions("f.rs", &text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].2.as_str(), found[0].3), ("long", LIMIT + 2));
}

crate::tests![
    no_function_in_src_is_longer_than_80_lines,
    the_check_sees_a_long_function,
];
