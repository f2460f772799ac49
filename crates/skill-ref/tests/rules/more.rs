//! Rule checks for the rules that have no check of their own in `rules.rs`: mostly the
//! proposals (aliases across parents, names that look like paths, scalars as written, merge
//! keys, nesting depth). Each is listed in `rules.rs`'s check table with its ids.

use super::*;

/// Where each skill of `tree` under root `r` was found.
fn locations(c: &Config, t: &Tree) -> Vec<(String, String)> {
    names_and_locations(c, t, &["r"])
}

pub fn in4_other_negative_limits_are_refused(_: &Config) -> Result<(), String> {
    ensure_eq!(SampleLimit::try_from(-2).is_err(), true);
    ensure_eq!(SampleLimit::try_from(i64::MIN).is_err(), true);
    ensure_eq!(SampleLimit::try_from(-1), Ok(SampleLimit::Omit));
    Ok(())
}

pub fn disc1_file_links_are_followed_and_broken_links_ignored(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.file("r/commands/story.md", "---\nname: story\n---\nBody.\n")
        .link("r/agents/story/SKILL.md", "../../commands/story.md")
        .link("r/gone/SKILL.md", "../nowhere/SKILL.md");
    ensure_eq!(
        locations(c, &t),
        vec![pair("story", "r/agents/story/SKILL.md")]
    );
    ensure_eq!(skips(c, &t, &["r"]).len(), 0);
    Ok(())
}

pub fn disc7_aliases_across_parents_and_depths(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.skill("r/team/skills/x", "x")
        .link("r/.codex/skills/x", "../../team/skills/x");
    ensure_eq!(
        locations(c, &t),
        vec![pair("x", "r/team/skills/x/SKILL.md")]
    );
    ensure_eq!(skips(c, &t, &["r"]).len(), 0);
    let t = Tree::new();
    t.skill("r/pdf-official", "pdf")
        .link("r/pdf", "pdf-official");
    ensure_eq!(locations(c, &t), vec![pair("pdf", "r/pdf/SKILL.md")]);
    let t = Tree::new();
    t.skill("r/a/x", "x").link("r/z/deep/x", "../../a/x");
    ensure_eq!(locations(c, &t), vec![pair("x", "r/z/deep/x/SKILL.md")]);
    let t = Tree::new();
    t.skill("r/z/x", "x").link("r/a/deep/x", "../../z/x");
    ensure_eq!(locations(c, &t), vec![pair("x", "r/z/x/SKILL.md")]);
    Ok(())
}

pub fn disc8_a_root_walked_again_gives_duplicates(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.skill("r/a", "a");
    ensure_eq!(
        skips(c, &t, &["r", "r"]),
        vec![("r/a/SKILL.md".to_string(), SkipReason::DuplicateName)]
    );
    ensure_eq!(
        skips(c, &t, &["r", "r/a"]),
        vec![("r/a/SKILL.md".to_string(), SkipReason::DuplicateName)]
    );
    Ok(())
}

pub fn yaml2_scalars_are_read_as_written(c: &Config) -> Result<(), String> {
    for text in [
        "1.50",
        "true",
        "yes",
        "Off",
        "0x1F",
        "1e3",
        "-0.0",
        ".inf",
        "2024-01-01",
    ] {
        ensure_eq!(
            description(c, &format!("name: x\ndescription: {text}")),
            Ok(Some(text.to_string()))
        );
    }
    ensure_eq!(
        description(c, "name: x\ndescription: 12345678901234567890"),
        Ok(Some("12345678901234567890".to_string()))
    );
    ensure_eq!(
        description(c, "name: x\ndescription: !!str 012"),
        Ok(Some("012".to_string()))
    );
    ensure_eq!(
        one_file(c, b"---\nname: 012\n---\n").map(|o| o.0),
        Ok(Some("012".to_string()))
    );
    Ok(())
}

pub fn yaml4_duplicate_keys_are_an_error(c: &Config) -> Result<(), String> {
    ensure_eq!(
        description(c, "name: x\ndescription: first # c\ndescription: second"),
        Ok(Some("first # c".to_string()))
    );
    ensure_eq!(
        description(c, "name: x\ndescription: d # c\nmeta:\n  k: 1\n  k: 2"),
        Ok(Some("d # c".to_string()))
    );
    Ok(())
}

pub fn yaml7_extra_keys_ignored_errors_anywhere_rescue(c: &Config) -> Result<(), String> {
    ensure_eq!(
        description(c, "name: x\ndescription: d # c\nmeta: {a: [1, {b: 2}]}"),
        Ok(Some("d".to_string()))
    );
    ensure_eq!(
        description(c, "name: x\ndescription: d # c\nmeta: *nowhere"),
        Ok(Some("d # c".to_string()))
    );
    Ok(())
}

pub fn yaml8_merge_key_is_an_ordinary_key(c: &Config) -> Result<(), String> {
    ensure_eq!(
        description(c, "base: &b\n  name: m\n  description: d\n<<: *b").err(),
        Some(SkipReason::MissingName)
    );
    ensure_eq!(
        description(c, "name: x\nbase: &b {description: d}\n<<: *b"),
        Ok(None)
    );
    Ok(())
}

/// A block with `meta` nested `levels` collections deep below the top mapping.
fn nested(levels: usize) -> String {
    format!(
        "name: x\ndescription: d # tail\nmeta: {}{}",
        "[".repeat(levels),
        "]".repeat(levels)
    )
}

pub fn yaml9_nesting_beyond_128_levels_is_an_error(c: &Config) -> Result<(), String> {
    ensure_eq!(description(c, &nested(127)), Ok(Some("d".to_string())));
    ensure_eq!(
        description(c, &nested(128)),
        Ok(Some("d # tail".to_string()))
    );
    Ok(())
}

pub fn resc3_rescue_lines_split_on_lf_only(c: &Config) -> Result<(), String> {
    ensure_eq!(
        description(c, "name: x\ndescription: a: b\u{2028}c\u{85}d"),
        Ok(Some("a: b\u{2028}c\u{85}d".to_string()))
    );
    ensure_eq!(
        one_file(c, b"---\r\nname: x\r\ndescription: a: b\r\n---\r\n").map(|o| o.1),
        Ok(Some("a: b".to_string()))
    );
    Ok(())
}

pub fn resc4_yaml_scalars_are_kept_beside_the_rescue(c: &Config) -> Result<(), String> {
    ensure_eq!(
        one_file(c, b"---\nname: x # c\ndescription: [a, b]\n---\n").map(|o| (o.0, o.1)),
        Ok((Some("x".to_string()), None))
    );
    ensure_eq!(
        one_file(c, b"---\nname: 'it''s'\ndescription: [a]\n---\n").map(|o| o.0),
        Ok(Some("it's".to_string()))
    );
    Ok(())
}

pub fn tool2_body_trimmed_of_unicode_white_space(c: &Config) -> Result<(), String> {
    ensure_eq!(
        one_file(
            c,
            "---\nname: x\n---\n\u{a0}\u{3000} Body.\u{85}\n".as_bytes()
        )
        .map(|o| o.2),
        Ok("Body.".to_string())
    );
    Ok(())
}

pub fn tool5_name_written_raw(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.file("r/q/SKILL.md", "---\nname: 'a\"b<c>'\n---\nBody.\n");
    let out = output(c, &t, &["r"], &options(-1, &[]), &[]);
    ensure_eq!(
        out.loads[0].output.lines().take(2).collect::<Vec<_>>(),
        vec!["<skill_content name=\"a\"b<c>\">", "# Skill: a\"b<c>"]
    );
    Ok(())
}

pub fn tool6_declaration(_: &Config) -> Result<(), String> {
    let declaration = skill_ref::tool_declaration();
    ensure_eq!(declaration.name, "skill");
    ensure_eq!(declaration.description.split("\n\n").count(), 3);
    ensure_eq!(
        declaration.input_schema["required"],
        serde_json::json!(["name"])
    );
    ensure_eq!(
        declaration.input_schema["additionalProperties"],
        serde_json::json!(false)
    );
    Ok(())
}

pub fn tool7_names_are_never_paths(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.skill("r/passwd", "passwd").skill("r/b", "b");
    let source = load(c, &t, &["r"], &options(-1, &[]));
    for name in [
        "../etc/passwd",
        "/etc/passwd",
        "a/../../b",
        "b\0",
        "%2e%2e%2fb",
    ] {
        let load = source.execute(name);
        ensure_eq!(
            (load.is_error, load.output),
            (
                true,
                format!("Skill \"{name}\" not found. Available skills: b, passwd")
            )
        );
    }
    ensure_eq!(source.execute("b").is_error, false);
    Ok(())
}

pub fn samp3_sample_walk_guards_aliases_and_its_own_directory(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.skill("r/s", "s")
        .file("r/s/docs/f.txt", "x")
        .link("r/s/adocs", "docs")
        .link("r/s/self", ".");
    let out = output(c, &t, &["r"], &options(0, &[]), &[]);
    let prefix = format!("{}/r/s/", t.path().display());
    let files: Vec<String> = out.loads[0]
        .output
        .lines()
        .filter_map(|l| l.strip_prefix("<file>")?.strip_suffix("</file>"))
        .map(|p| p.strip_prefix(&prefix).unwrap_or(p).to_owned())
        .collect();
    ensure_eq!(files, vec!["adocs/f.txt"]);
    Ok(())
}
