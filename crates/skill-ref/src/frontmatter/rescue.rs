//! The guarded line-wise rescue (`TN-RESC-2`, `TN-RESC-3`): what a file YAML refuses can still give a
//! `name` and a `description`, read line by line the way every toolnexus port reads them.

use crate::mutant::{Config, Mutant};

/// What the rescue recovered; each key is the first *accepted* value for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rescued {
    pub name: Option<String>,
    pub description: Option<String>,
}

/// The openers that make the rescue refuse a value: block scalars, anchors, aliases, flow
/// collections and tags, whose meaning a line-wise reader cannot know.
const REFUSED_OPENERS: [char; 7] = ['|', '>', '&', '*', '[', '{', '!'];

/// Runs the rescue over a frontmatter block.
pub fn rescue(config: &Config, block: &str) -> Rescued {
    let mut rescued = Rescued::default();
    // Whether a key has been used up; with the correct loader only an accepted value does that.
    let mut name_taken = false;
    let mut description_taken = false;
    for raw_line in block.split('\n') {
        let line = raw_line.strip_suffix('\r').unwrap_or(raw_line);
        if line.is_empty() || line.starts_with([' ', '\t', '#']) {
            continue;
        }
        let Some((key, value)) = split_key(line) else {
            continue;
        };
        let slot = match key {
            "name" if !name_taken => (&mut rescued.name, &mut name_taken),
            "description" if !description_taken => {
                (&mut rescued.description, &mut description_taken)
            }
            _ => continue,
        };
        let (target, taken) = slot;
        match accept(config, value) {
            Some(accepted) => {
                *target = Some(accepted);
                *taken = true;
            }
            None if config.is(Mutant::RefusedUsesKey) => *taken = true,
            None => {}
        }
    }
    rescued
}

/// Matches `^([A-Za-z0-9_][A-Za-z0-9_.-]*):[ \t]*(.*)$` and returns the key and the raw value.
fn split_key(line: &str) -> Option<(&str, &str)> {
    let bytes = line.as_bytes();
    let first = *bytes.first()?;
    if !(first.is_ascii_alphanumeric() || first == b'_') {
        return None;
    }
    let key_len = bytes
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')))?;
    if bytes[key_len] != b':' {
        return None;
    }
    let value = line[key_len + 1..].trim_start_matches([' ', '\t']);
    Some((&line[..key_len], value))
}

/// Trims a value, refuses the openers the rescue cannot read, and strips one pair of quotes.
fn accept(config: &Config, value: &str) -> Option<String> {
    let value = value.trim();
    let refused = value.is_empty()
        || (value.starts_with(REFUSED_OPENERS) && !config.is(Mutant::RescueAnyOpener));
    if refused {
        return None;
    }
    if config.is(Mutant::RescueKeepsQuotes) {
        return Some(value.to_owned());
    }
    Some(strip_one_quote_pair(value).to_owned())
}

/// Strips one pair of matching outer `'` or `"`, without unescaping what is inside.
fn strip_one_quote_pair(value: &str) -> &str {
    for quote in ['\'', '"'] {
        if value.chars().count() > 1 && value.starts_with(quote) && value.ends_with(quote) {
            return &value[1..value.len() - 1];
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(block: &str) -> Rescued {
        rescue(&Config::default(), block)
    }

    #[test]
    fn takes_the_whole_rest_of_a_column_zero_line() {
        let r = run("name: x\ndescription: Use when: y # not a comment\n");
        assert_eq!(r.name.as_deref(), Some("x"));
        assert_eq!(
            r.description.as_deref(),
            Some("Use when: y # not a comment")
        );
    }

    #[test]
    fn skips_indented_tabbed_comment_and_empty_lines() {
        let r = run("  name: a\n\tname: b\n#name: c\n\nname: d\r\n");
        assert_eq!(r.name.as_deref(), Some("d"));
    }

    #[test]
    fn refused_value_does_not_use_up_the_key() {
        let r = run("description: [bad\ndescription: good: y\nname:\nname: second");
        assert_eq!(r.description.as_deref(), Some("good: y"));
        assert_eq!(r.name.as_deref(), Some("second"));
        let m = rescue(
            &Config::mutated(Mutant::RefusedUsesKey),
            "description: [bad\ndescription: ok",
        );
        assert_eq!(m.description, None);
    }

    #[test]
    fn refuses_every_opener_and_keeps_first_accepted() {
        for opener in REFUSED_OPENERS {
            let r = run(&format!("description: {opener}x\ndescription: fine"));
            assert_eq!(r.description.as_deref(), Some("fine"), "opener {opener}");
        }
        let r = run("name: first\nname: second");
        assert_eq!(r.name.as_deref(), Some("first"));
    }

    #[test]
    fn strips_one_pair_of_quotes_without_unescaping_or_retrimming() {
        assert_eq!(run("name: 'it''s'").name.as_deref(), Some("it''s"));
        assert_eq!(run("name: \"a\\nb\"").name.as_deref(), Some("a\\nb"));
        assert_eq!(run("name: ' padded '").name.as_deref(), Some(" padded "));
        assert_eq!(run("name: '").name.as_deref(), Some("'"));
        assert_eq!(run("name: 'mixed\"").name.as_deref(), Some("'mixed\""));
    }

    #[test]
    fn key_must_be_bare_at_column_zero_with_no_space_before_the_colon() {
        assert_eq!(run("name : x").name, None);
        assert_eq!(run("\"name\": x").name, None);
        assert_eq!(run("-name: x").name, None);
        assert_eq!(run("name:x").name.as_deref(), Some("x"));
        assert_eq!(run("name:\tx\t").name.as_deref(), Some("x"));
    }
}
