//! Checking one `SKILL.md` against the Agent Skills specification: the fence, the YAML mapping,
//! and each field's rules. Returns a [`Report`]; never fails.

use std::collections::BTreeMap;

use serde_yaml_ng::{Mapping, Value};

use super::mutant::{AsConfig, AsMutant};
use super::output::{Properties, Report};
use super::rule::Rule;

/// The six fields the specification defines.
pub const FIELDS: [&str; 6] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// The length limits, in characters (Unicode scalar values).
pub const NAME_MAX: usize = 64;
pub const DESCRIPTION_MAX: usize = 1024;
pub const COMPATIBILITY_MAX: usize = 500;

/// Splits off the frontmatter: the file starts with a line `---`, and the next line that is
/// exactly `---` (an LF or CRLF line end, or the end of the file) closes it.
pub fn split_fence<'t>(config: &AsConfig, text: &'t str) -> Result<&'t str, Rule> {
    let text = if config.is(AsMutant::FenceAfterBlankLine) {
        text.trim_start_matches(['\n', '\r'])
    } else {
        text
    };
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or(Rule::FenceMissing)?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n');
        let bare = bare.strip_suffix('\r').unwrap_or(bare);
        if bare == "---" {
            return Ok(&rest[..offset]);
        }
        offset += line.len();
    }
    Err(Rule::FenceUnclosed)
}

/// Checks the bytes of the `SKILL.md` found in a directory named `dir_name`.
pub fn check_bytes(config: &AsConfig, dir_name: &str, bytes: &[u8]) -> Report {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Report::unreadable(Rule::FileEncoding);
    };
    let block = match split_fence(config, text) {
        Ok(block) => block,
        Err(rule) => return Report::unreadable(rule),
    };
    let mapping = match serde_yaml_ng::from_str::<Value>(block) {
        Err(_) => return Report::unreadable(Rule::YamlInvalid),
        Ok(Value::Mapping(mapping)) => mapping,
        Ok(_) => return Report::unreadable(Rule::YamlNotMapping),
    };
    check_mapping(config, dir_name, &mapping)
}

/// Checks a frontmatter mapping field by field.
pub fn check_mapping(config: &AsConfig, dir_name: &str, mapping: &Mapping) -> Report {
    let mut violations = Vec::new();
    let mut unknown = Vec::new();
    for key in mapping.keys() {
        let known = key.as_str().is_some_and(|k| FIELDS.contains(&k));
        if !known {
            unknown.push(key_text(key));
        }
    }
    if !unknown.is_empty() && !config.is(AsMutant::UnknownFieldsAllowed) {
        violations.push(Rule::FieldUnknown);
    }
    let field = |name: &str| mapping.get(name).filter(|v| !v.is_null());
    let name = string_field(field("name"), Rule::NameType, &mut violations);
    let description = string_field(field("description"), Rule::DescriptionType, &mut violations);
    let license = string_field(field("license"), Rule::LicenseType, &mut violations);
    let compatibility = string_field(
        field("compatibility"),
        Rule::CompatibilityType,
        &mut violations,
    );
    let allowed_tools = string_field(
        field("allowed-tools"),
        Rule::AllowedToolsType,
        &mut violations,
    );
    let metadata = metadata_field(config, field("metadata"), &mut violations);
    if field("name").is_none() {
        violations.push(Rule::NameMissing);
    }
    if field("description").is_none() && !config.is(AsMutant::DescriptionOptional) {
        violations.push(Rule::DescriptionMissing);
    }
    if let Some(name) = &name {
        violations.extend(name_rules(config, name, dir_name));
    }
    if let Some(description) = &description {
        violations.extend(description_rules(config, description));
    }
    if let Some(compatibility) = &compatibility {
        violations.extend(compatibility_rules(config, compatibility));
    }
    let properties = Properties {
        name,
        description,
        license,
        compatibility,
        metadata,
        allowed_tools,
    };
    Report::new(Some(properties), violations, unknown)
}

/// A key as text: a string as it is, any other YAML value as YAML writes it.
fn key_text(key: &Value) -> String {
    match key.as_str() {
        Some(text) => text.to_owned(),
        None => serde_yaml_ng::to_string(key)
            .map(|s| s.trim_end().to_owned())
            .unwrap_or_default(),
    }
}

/// A present value that must be a string: the string, or `None` and `wrong_type`.
fn string_field(value: Option<&Value>, wrong_type: Rule, out: &mut Vec<Rule>) -> Option<String> {
    let value = value?;
    match value.as_str() {
        Some(text) => Some(text.to_owned()),
        None => {
            out.push(wrong_type);
            None
        }
    }
}

/// `metadata`: a mapping of strings to strings, or `None` and `AS-METADATA-TYPE`.
fn metadata_field(
    config: &AsConfig,
    value: Option<&Value>,
    out: &mut Vec<Rule>,
) -> Option<BTreeMap<String, String>> {
    let Some(Value::Mapping(mapping)) = value else {
        if value.is_some() {
            out.push(Rule::MetadataType);
        }
        return None;
    };
    let mut metadata = BTreeMap::new();
    for (key, value) in mapping {
        let nested = matches!(value, Value::Mapping(_) | Value::Sequence(_));
        match (key.as_str(), value.as_str()) {
            (Some(k), Some(v)) => {
                metadata.insert(k.to_owned(), v.to_owned());
            }
            _ if nested && config.is(AsMutant::MetadataNestedAllowed) => {}
            _ => {
                out.push(Rule::MetadataType);
                return None;
            }
        }
    }
    Some(metadata)
}

/// The rules of `name` once it is a string.
fn name_rules(config: &AsConfig, name: &str, dir_name: &str) -> Vec<Rule> {
    let mut out = Vec::new();
    if name.is_empty() && !config.is(AsMutant::EmptyNameAllowed) {
        out.push(Rule::NameEmpty);
    }
    let limit = NAME_MAX + usize::from(config.is(AsMutant::NameLimit65));
    if name.chars().count() > limit {
        out.push(Rule::NameTooLong);
    }
    let allowed = |c: char| {
        c.is_ascii_lowercase()
            || c.is_ascii_digit()
            || c == '-'
            || (c.is_ascii_uppercase() && config.is(AsMutant::NameUppercaseAllowed))
    };
    if !name.chars().all(allowed) {
        out.push(Rule::NameCharset);
    }
    if (name.starts_with('-') || name.ends_with('-')) && !config.is(AsMutant::NameHyphenEdgeAllowed)
    {
        out.push(Rule::NameHyphenEdge);
    }
    if name.contains("--") && !config.is(AsMutant::NameDoubleHyphenAllowed) {
        out.push(Rule::NameHyphenDouble);
    }
    // An empty name is its own fault; comparing it with the directory would only repeat it.
    if !name.is_empty() && name != dir_name && !config.is(AsMutant::NameDirIgnored) {
        out.push(Rule::NameDirMismatch);
    }
    out
}

/// The rules of `description` once it is a string.
fn description_rules(config: &AsConfig, description: &str) -> Vec<Rule> {
    let mut out = Vec::new();
    if description.is_empty() && !config.is(AsMutant::EmptyDescriptionAllowed) {
        out.push(Rule::DescriptionEmpty);
    }
    let limit = DESCRIPTION_MAX + usize::from(config.is(AsMutant::DescriptionLimit1025));
    let length = if config.is(AsMutant::DescriptionLengthInBytes) {
        description.len()
    } else {
        description.chars().count()
    };
    if length > limit {
        out.push(Rule::DescriptionTooLong);
    }
    out
}

/// The rules of `compatibility` once it is a string.
fn compatibility_rules(config: &AsConfig, compatibility: &str) -> Vec<Rule> {
    let mut out = Vec::new();
    if compatibility.is_empty() && !config.is(AsMutant::EmptyCompatibilityAllowed) {
        out.push(Rule::CompatibilityEmpty);
    }
    let limit = COMPATIBILITY_MAX + usize::from(config.is(AsMutant::CompatibilityLimit501));
    if compatibility.chars().count() > limit {
        out.push(Rule::CompatibilityTooLong);
    }
    out
}
