//! The `<available_skills>` catalogue of the Agent Skills client guide: one `<skill>` element
//! per skill with its name, description and `SKILL.md` location, two-space indented, XML text
//! escaping (`&`, `<`, `>`), no trailing newline; no skills give the empty string (the guide
//! says to leave the catalogue out rather than show it empty).

use super::mutant::{AsConfig, AsMutant};

/// One catalogue entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub location: &'a str,
}

/// The catalogue for `entries`, in the order given.
pub fn available_skills(config: &AsConfig, entries: &[Entry<'_>]) -> String {
    if entries.is_empty() {
        return String::new();
    }
    let escape = |text: &str| {
        if config.is(AsMutant::PromptUnescaped) {
            text.to_owned()
        } else {
            escape_text(text)
        }
    };
    let mut out = String::from("<available_skills>\n");
    for entry in entries {
        out.push_str("  <skill>\n");
        out.push_str(&format!("    <name>{}</name>\n", escape(entry.name)));
        out.push_str(&format!(
            "    <description>{}</description>\n",
            escape(entry.description)
        ));
        out.push_str(&format!(
            "    <location>{}</location>\n",
            escape(entry.location)
        ));
        out.push_str("  </skill>\n");
    }
    out.push_str("</available_skills>");
    out
}

/// XML text escaping: `&`, `<` and `>`.
pub fn escape_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_entries_give_the_empty_string() {
        assert_eq!(available_skills(&AsConfig::default(), &[]), "");
    }

    #[test]
    fn text_is_escaped_and_indented() {
        let entry = Entry {
            name: "a",
            description: "x < y & z > w",
            location: "/r/a/SKILL.md",
        };
        assert_eq!(
            available_skills(&AsConfig::default(), &[entry]),
            "<available_skills>\n  <skill>\n    <name>a</name>\n    <description>x &lt; y &amp; z &gt; w</description>\n    <location>/r/a/SKILL.md</location>\n  </skill>\n</available_skills>"
        );
    }
}
