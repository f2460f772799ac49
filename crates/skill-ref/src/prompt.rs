//! The prompt (`TN-PROMPT-1`): the described skills after the filter, in name order.

/// The line used when no loaded skill has a description.
pub const NO_SKILLS: &str = "No skills are currently available.";

/// The two fixed lines before the list.
pub const PREAMBLE: &str =
    "Skills provide specialized instructions and workflows for specific tasks.\n\
Use the skill tool to load a skill when a task matches its description.";

/// Builds the prompt from `(name, description)` pairs already in the order to print.
pub fn prompt<'a>(described: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut text = String::new();
    for (name, description) in described {
        if text.is_empty() {
            text.push_str(PREAMBLE);
            text.push_str("\n\n## Available Skills");
        }
        text.push_str(&format!("\n- **{name}**: {description}"));
    }
    if text.is_empty() {
        NO_SKILLS.to_owned()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn none_or_preamble_then_one_line_each_without_trailing_newline() {
        assert_eq!(prompt([]), NO_SKILLS);
        assert_eq!(
            prompt([("a", "x"), ("b", "")]),
            "Skills provide specialized instructions and workflows for specific tasks.\n\
             Use the skill tool to load a skill when a task matches its description.\n\n\
             ## Available Skills\n- **a**: x\n- **b**: "
        );
    }
}
