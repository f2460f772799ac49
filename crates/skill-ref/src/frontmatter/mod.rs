//! Reading one `SKILL.md` (`TN-READ-*`, `TN-YAML-*`, `TN-RESC-*`): BOM, the fence, "YAML first, then the rescue", the
//! merge, trimming, and the skip reason.

pub mod rescue;
pub mod yaml;

use crate::mutant::{Config, Mutant};
use crate::output::SkipReason;

use self::rescue::Rescued;
use self::yaml::{Field, Yaml};

/// What a `SKILL.md` turned out to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    /// A skill: its name, optional description, and body (trimmed).
    Skill {
        name: String,
        description: Option<String>,
        body: String,
    },
    /// Not a skill, with the reason and a human-readable detail (never compared).
    Rejected {
        reason: SkipReason,
        detail: Option<String>,
    },
}

/// Splits a text into frontmatter block and body by the fence rule `TN-READ-1`, the regex
/// `^---\r?\n(.*?)\r?\n---\r?\n?(.*)$` (dot-all) every regex port uses. `None`: no frontmatter.
pub fn split_fence(text: &str) -> Option<(&str, &str)> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    // The block ends at the first line break followed by `---`; a CR before that LF belongs to
    // the line break, not to the block.
    let lf = rest.find("\n---")?;
    let block_end = if lf > 0 && rest.as_bytes()[lf - 1] == b'\r' {
        lf - 1
    } else {
        lf
    };
    let after_dashes = &rest[lf + 4..];
    let after_cr = after_dashes.strip_prefix('\r').unwrap_or(after_dashes);
    let body = after_cr.strip_prefix('\n').unwrap_or(after_cr);
    Some((&rest[..block_end], body))
}

/// Parses the bytes of a `SKILL.md`.
pub fn parse(config: &Config, bytes: &[u8]) -> Parsed {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            return Parsed::Rejected {
                reason: SkipReason::Unreadable,
                detail: Some(format!(
                    "invalid UTF-8 at byte offset {}",
                    error.valid_up_to()
                )),
            }
        }
    };
    let text = if config.is(Mutant::NoBomStrip) {
        text
    } else {
        text.strip_prefix('\u{FEFF}').unwrap_or(text)
    };
    let Some((block, body)) = split_fence(text) else {
        let reason = if config.is(Mutant::MalformedForNoFence) {
            SkipReason::MalformedFrontmatter
        } else {
            SkipReason::MissingName
        };
        return Parsed::Rejected {
            reason,
            detail: Some(
                "no frontmatter: the file does not open with a `---` fence that closes".into(),
            ),
        };
    };
    let (name, description, yaml) = read_fields(config, block);
    let Some(name) = name else {
        let (reason, detail) = match yaml {
            Yaml::Failed(message) => (SkipReason::MalformedFrontmatter, Some(message)),
            Yaml::NotMapping if config.is(Mutant::MalformedForNonMapping) => (
                SkipReason::MalformedFrontmatter,
                Some("frontmatter is not a mapping".into()),
            ),
            Yaml::NotMapping => (
                SkipReason::MissingName,
                Some("frontmatter is not a mapping".into()),
            ),
            Yaml::Mapping { .. } => (SkipReason::MissingName, None),
        };
        return Parsed::Rejected { reason, detail };
    };
    let body = if config.is(Mutant::CrlfBodyNormalised) {
        body.replace("\r\n", "\n")
    } else {
        body.to_owned()
    };
    let body = if config.is(Mutant::NoTrim) {
        body
    } else {
        body.trim().to_owned()
    };
    Parsed::Skill {
        name,
        description,
        body,
    }
}

/// YAML first, then — only on one of its three triggers — the rescue; then the merge (`TN-RESC-1`, `TN-RESC-4`, `TN-YAML-5`).
fn read_fields(config: &Config, block: &str) -> (Option<String>, Option<String>, Yaml) {
    let yaml = yaml::parse(config, block);
    let (yaml_name, yaml_description) = match &yaml {
        Yaml::Mapping { name, description } => (name.clone(), description.clone()),
        Yaml::Failed(_) | Yaml::NotMapping => (Field::Absent, Field::Absent),
    };
    let triggered = match &yaml {
        Yaml::Failed(_) | Yaml::NotMapping => true,
        Yaml::Mapping { name, description } => {
            *name == Field::Structural || *description == Field::Structural
        }
    };
    let from_yaml = |field: Field| match field {
        Field::Text(text) if config.is(Mutant::NoTrim) => Some(text),
        Field::Text(text) => Some(text.trim().to_owned()),
        Field::Absent | Field::Structural => None,
    };
    let mut name = from_yaml(yaml_name);
    let mut description = from_yaml(yaml_description);
    if config.is(Mutant::RescueFirst) {
        let Rescued {
            name: rescued_name,
            description: rescued_description,
        } = rescue::rescue(config, block);
        name = rescued_name.or(name);
        description = rescued_description.or(description);
    } else if triggered {
        let rescued = rescue::rescue(config, block);
        // The rescue fills only what YAML did not give as a scalar.
        name = name.or(rescued.name);
        description = description.or(rescued.description);
    } else if config.is(Mutant::KeepHashTail) {
        if let Some(line) = rescue::rescue(config, block).description {
            if line.contains(" #") {
                description = Some(line);
            }
        }
    }
    let present = |value: Option<String>| value.filter(|v| !v.is_empty());
    (present(name), present(description), yaml)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fence_rule_matches_the_port_regex() {
        assert_eq!(
            split_fence("---\nname: x\n---\nbody"),
            Some(("name: x", "body"))
        );
        assert_eq!(
            split_fence("---\r\nname: x\r\n---\r\nbody\r\n"),
            Some(("name: x", "body\r\n"))
        );
        assert_eq!(split_fence("---\n\n---"), Some(("", "")));
        assert_eq!(
            split_fence("---\nname: x\n----\nbody"),
            Some(("name: x", "-\nbody"))
        );
        assert_eq!(
            split_fence("---\nname: x\n---   \nbody"),
            Some(("name: x", "   \nbody"))
        );
        assert_eq!(
            split_fence("---\n---\nname: adj\n---\nbody"),
            Some(("---\nname: adj", "body"))
        );
        assert_eq!(split_fence("---\nname: x\n  ---\nbody"), None);
        assert_eq!(split_fence("--- \nname: x\n---\n"), None);
        assert_eq!(split_fence("\n---\nname: x\n---\n"), None);
        assert_eq!(split_fence("---\rname: x\r---\rbody"), None);
        assert_eq!(split_fence("---\nname: x\n"), None);
    }

    fn skill(text: &str) -> Parsed {
        parse(&Config::default(), text.as_bytes())
    }

    #[test]
    fn reason_is_malformed_only_when_yaml_failed_and_no_name_was_rescued() {
        let rejected = |reason| Parsed::Rejected {
            reason,
            detail: None,
        };
        let reason_of = |p: Parsed| match p {
            Parsed::Rejected { reason, .. } => rejected(reason),
            other => other,
        };
        assert_eq!(
            reason_of(skill("---\n  name: x\ndescription: a: b\n---\n")),
            rejected(SkipReason::MalformedFrontmatter)
        );
        assert_eq!(
            reason_of(skill("---\n\n---\n")),
            rejected(SkipReason::MissingName)
        );
        assert_eq!(
            reason_of(skill("---\nname: [a]\n---\n")),
            rejected(SkipReason::MissingName)
        );
        assert_eq!(
            reason_of(skill("no fence")),
            rejected(SkipReason::MissingName)
        );
        assert_eq!(
            reason_of(skill("---\nname: ''\n---\n")),
            rejected(SkipReason::MissingName)
        );
    }

    #[test]
    fn yaml_scalars_survive_a_rescue_and_the_rescue_fills_the_rest() {
        assert_eq!(
            skill("---\nname: foo # c\ndescription: [a, b]\n---\nbody"),
            Parsed::Skill {
                name: "foo".into(),
                description: None,
                body: "body".into()
            }
        );
        assert_eq!(
            skill("---\nname: [a]\nname2: x\n---\n"),
            Parsed::Rejected {
                reason: SkipReason::MissingName,
                detail: None
            }
        );
    }

    #[test]
    fn invalid_utf8_is_unreadable_with_the_offset() {
        assert_eq!(
            parse(&Config::default(), b"---\nname: x\xE9\n---\n"),
            Parsed::Rejected {
                reason: SkipReason::Unreadable,
                detail: Some("invalid UTF-8 at byte offset 11".into())
            }
        );
    }

    #[test]
    fn bom_is_removed_and_body_keeps_crlf_but_is_trimmed() {
        assert_eq!(
            skill("\u{FEFF}---\r\nname: x\r\n---\r\n\r\n l1\r\nl2 \r\n"),
            Parsed::Skill {
                name: "x".into(),
                description: None,
                body: "l1\r\nl2".into()
            }
        );
    }
}
