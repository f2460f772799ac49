//! The `skill` tool's output (`TN-TOOL-*`): the byte-exact skill block, its percent-encoded
//! `file://` base, and the not-found text.

use std::path::{Path, PathBuf};

use crate::mutant::{Config, Mutant};

/// Percent-encodes every byte of `text`'s UTF-8 form except `A-Z a-z 0-9 - . _ ~ /`, with
/// upper-case hex.
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &byte in text.as_bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The `file://` URL of a skill directory.
pub fn base_url(config: &Config, dir: &Path) -> String {
    let text = dir.to_string_lossy();
    if config.is(Mutant::NoPercentEncoding) {
        format!("file://{text}")
    } else {
        format!("file://{}", percent_encode(&text))
    }
}

/// The skill block for a directory skill; `files` is `None` when the sample is switched off.
pub fn skill_block(
    config: &Config,
    name: &str,
    body: &str,
    dir: &Path,
    files: Option<&[PathBuf]>,
) -> String {
    let mut lines: Vec<String> = vec![
        format!("<skill_content name=\"{name}\">"),
        format!("# Skill: {name}"),
        String::new(),
        body.to_owned(),
        String::new(),
        format!("Base directory for this skill: {}", base_url(config, dir)),
        "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory."
            .to_owned(),
    ];
    if let Some(files) = files {
        lines.push("Note: file list is sampled.".to_owned());
        lines.push(String::new());
        lines.push("<skill_files>".to_owned());
        lines.push(
            files
                .iter()
                .map(|f| format!("<file>{}</file>", f.to_string_lossy()))
                .collect::<Vec<_>>()
                .join("\n"),
        );
        lines.push("</skill_files>".to_owned());
    }
    lines.push("</skill_content>".to_owned());
    lines.join("\n")
}

/// The not-found text; `available` is already in code-point order.
pub fn not_found(config: &Config, name: &str, available: &[&str]) -> String {
    let list = if available.is_empty() {
        "none".to_owned()
    } else {
        available.join(", ")
    };
    let label = if config.is(Mutant::AvailableShort) {
        "Available:"
    } else {
        "Available skills:"
    };
    format!("Skill \"{name}\" not found. {label} {list}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_everything_but_unreserved_and_slash() {
        assert_eq!(
            percent_encode("/s/my skill (v2) é#?%"),
            "/s/my%20skill%20%28v2%29%20%C3%A9%23%3F%25"
        );
        assert_eq!(
            percent_encode("/t/a+b&c=d;e@f,g$h!i*j'k~l"),
            "/t/a%2Bb%26c%3Dd%3Be%40f%2Cg%24h%21i%2Aj%27k~l"
        );
        assert_eq!(percent_encode("/A-z_0.9~/x"), "/A-z_0.9~/x");
    }

    #[test]
    fn block_is_byte_exact_with_and_without_files() {
        let c = Config::default();
        let dir = Path::new("/r/x");
        assert_eq!(
            skill_block(&c, "x", "", dir, Some(&[])),
            "<skill_content name=\"x\">\n# Skill: x\n\n\n\nBase directory for this skill: file:///r/x\n\
             Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.\n\
             Note: file list is sampled.\n\n<skill_files>\n\n</skill_files>\n</skill_content>"
        );
        assert_eq!(
            skill_block(&c, "x", "B", dir, None),
            "<skill_content name=\"x\">\n# Skill: x\n\nB\n\nBase directory for this skill: file:///r/x\n\
             Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.\n\
             </skill_content>"
        );
        let files = [PathBuf::from("/r/x/a"), PathBuf::from("/r/x/b")];
        assert!(skill_block(&c, "x", "B", dir, Some(&files))
            .ends_with("<skill_files>\n<file>/r/x/a</file>\n<file>/r/x/b</file>\n</skill_files>\n</skill_content>"));
    }

    #[test]
    fn not_found_lists_or_says_none() {
        let c = Config::default();
        assert_eq!(
            not_found(&c, "q", &["a", "b"]),
            "Skill \"q\" not found. Available skills: a, b"
        );
        assert_eq!(
            not_found(&c, "q", &[]),
            "Skill \"q\" not found. Available skills: none"
        );
    }
}
