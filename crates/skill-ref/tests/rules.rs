//! One check per contract rule, citing the rule ids of `CONTRACT.md` it checks. Each check runs against the correct
//! loader (it must pass) and against the mutants that break its rule (it must fail): the
//! mutation habit, kept as a test so a check that stops discriminating is noticed.

use crate::common;

use common::{load, options, output, rel, Tree};
use skill_ref::{Config, Mutant, SampleLimit, SkipReason};

type Check = fn(&Config) -> Result<(), String>;

/// One rule check: the `CONTRACT.md` ids it checks (the id-coverage test reads these), the
/// check, and the mutants that must make it fail.
struct RuleCheck {
    rules: &'static [&'static str],
    check: Check,
    mutants: &'static [Mutant],
}

macro_rules! ensure_eq {
    ($actual:expr, $expected:expr) => {{
        let (actual, expected) = (&$actual, &$expected);
        if actual != expected {
            return Err(format!(
                "{}:{}: {} = {:?}, expected {:?}",
                file!(),
                line!(),
                stringify!($actual),
                actual,
                expected
            ));
        }
    }};
}

fn names_and_locations(config: &Config, tree: &Tree, roots: &[&str]) -> Vec<(String, String)> {
    load(config, tree, roots, &options(0, &[]))
        .inventory()
        .skills
        .into_iter()
        .map(|s| (s.name, rel(tree, &s.location)))
        .collect()
}

fn skips(config: &Config, tree: &Tree, roots: &[&str]) -> Vec<(String, SkipReason)> {
    load(config, tree, roots, &options(0, &[]))
        .inventory()
        .skipped
        .into_iter()
        .map(|s| (rel(tree, &s.location), s.reason))
        .collect()
}

mod more;

fn pair(a: &str, b: &str) -> (String, String) {
    (a.to_owned(), b.to_owned())
}

// TN-IN -----------------------------------------------------------------------------------------

fn s1_roots_are_absolutised_and_normalised_without_resolving_links(
    c: &Config,
) -> Result<(), String> {
    let t = Tree::new();
    t.skill("real/a", "a").link("alias", "real");
    let source = skill_ref::Source::load_with(
        *c,
        &["./alias/../alias/.".into()],
        &options(0, &[]),
        &t.path(),
    );
    let location = &source.inventory().skills[0].location;
    ensure_eq!(
        *location,
        format!("{}/alias/a/SKILL.md", t.path().display())
    );
    Ok(())
}

fn s1_a_missing_root_warns_and_skips_nothing(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.skill("skills/a", "a");
    let source = load(c, &t, &["missing", "skills"], &options(0, &[]));
    ensure_eq!(source.inventory().skills.len(), 1);
    ensure_eq!(source.inventory().skipped.len(), 0);
    ensure_eq!(
        source
            .warnings()
            .iter()
            .filter(|w| w.contains("not found"))
            .count(),
        1
    );
    Ok(())
}

fn s1_sample_limit_zero_n_and_minus_one(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.skill("s/a", "a");
    for i in 0..12 {
        t.file(&format!("s/a/f{i:02}.txt"), "x");
    }
    let count = |limit: i64| {
        let out = output(c, &t, &["s"], &options(limit, &[]), &[]);
        let text = &out.loads[0].output;
        (
            text.matches("<file>").count(),
            text.contains("<skill_files>"),
            text.contains("Note: file list is sampled."),
        )
    };
    ensure_eq!(count(0), (10, true, true));
    ensure_eq!(count(3), (3, true, true));
    ensure_eq!(count(30), (12, true, true));
    ensure_eq!(count(-1), (0, false, false));
    ensure_eq!(SampleLimit::try_from(-2).is_err(), true);
    Ok(())
}

fn s1_filter_allowlist_droplist_unknown_and_unfiltered_inventory(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.skill("s/a", "a").skill("s/b", "b").skill("s/c", "c");
    let loaded = |filter: &[(&str, bool)]| {
        let source = load(c, &t, &["s"], &options(0, filter));
        let inventory: Vec<String> = source
            .inventory()
            .skills
            .into_iter()
            .map(|s| s.name)
            .collect();
        (
            inventory,
            source
                .names()
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>(),
            source.execute("zzz").output,
        )
    };
    let all = vec!["a".to_string(), "b".into(), "c".into()];
    let (inventory, names, not_found) = loaded(&[("a", true), ("b", false), ("ghost", true)]);
    ensure_eq!(inventory, all);
    ensure_eq!(names, vec!["a".to_string()]);
    ensure_eq!(not_found, "Skill \"zzz\" not found. Available skills: a");
    let (_, names, _) = loaded(&[("b", false)]);
    ensure_eq!(names, vec!["a".to_string(), "c".into()]);
    let (_, names, _) = loaded(&[("ghost", false)]);
    ensure_eq!(names, all);
    let (_, _, not_found) = loaded(&[("ghost", true)]);
    ensure_eq!(not_found, "Skill \"zzz\" not found. Available skills: none");
    Ok(())
}

fn s1_skip_reasons_are_spelled_exactly(_: &Config) -> Result<(), String> {
    let spelled: Vec<String> = [
        SkipReason::MissingName,
        SkipReason::MalformedFrontmatter,
        SkipReason::DuplicateName,
        SkipReason::Unreadable,
    ]
    .iter()
    .map(|r| {
        serde_json::to_value(r)
            .unwrap()
            .as_str()
            .unwrap()
            .to_owned()
    })
    .collect();
    ensure_eq!(
        spelled,
        vec![
            "missing-name",
            "malformed-frontmatter",
            "duplicate-name",
            "unreadable"
        ]
    );
    Ok(())
}

// TN-DISC ---------------------------------------------------------------------------------------

fn s2_depth_beats_code_point(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.skill("r/xlsx", "xlsx").skill("r/synced/u1/xlsx", "xlsx");
    ensure_eq!(
        names_and_locations(c, &t, &["r"]),
        vec![pair("xlsx", "r/xlsx/SKILL.md")]
    );
    Ok(())
}

fn s2_code_points_not_utf16_not_locale_not_case_folded(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.skill("r/a\u{1F600}", "emoji")
        .skill("r/a\u{E000}", "emoji");
    t.skill("r/ß-sz", "sz").skill("r/z-sz", "sz");
    t.skill("r/a-case", "case").skill("r/B-case", "case");
    let won: Vec<(String, String)> = names_and_locations(c, &t, &["r"]);
    ensure_eq!(
        won,
        vec![
            pair("case", "r/B-case/SKILL.md"),
            pair("emoji", "r/a\u{E000}/SKILL.md"),
            pair("sz", "r/z-sz/SKILL.md"),
        ]
    );
    Ok(())
}

fn s2_node_modules_and_git_directories_are_not_walked(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.skill("r/ok", "ok")
        .skill("r/node_modules/pkg", "nm")
        .skill("r/deep/.git/hooks", "git");
    t.skill("r/deep/node_modules", "nm2");
    let names: Vec<String> = names_and_locations(c, &t, &["r"])
        .into_iter()
        .map(|p| p.0)
        .collect();
    ensure_eq!(names, vec!["ok".to_string()]);
    Ok(())
}

fn s2_only_exact_skill_md_is_a_candidate(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.skill("r/ok", "ok");
    t.file("r/lower/skill.md", "---\nname: lower\n---\n");
    t.file("r/title/Skill.md", "---\nname: title\n---\n");
    ensure_eq!(names_and_locations(c, &t, &["r"]).len(), 1);
    Ok(())
}

fn s2_first_wins_and_later_copies_are_duplicate_skips_in_candidate_order(
    c: &Config,
) -> Result<(), String> {
    let t = Tree::new();
    t.skill("r/a", "same")
        .file("r/b/SKILL.md", "no frontmatter")
        .skill("r/c", "same");
    ensure_eq!(
        names_and_locations(c, &t, &["r"]),
        vec![pair("same", "r/a/SKILL.md")]
    );
    ensure_eq!(
        skips(c, &t, &["r"]),
        vec![
            ("r/b/SKILL.md".to_string(), SkipReason::MissingName),
            ("r/c/SKILL.md".to_string(), SkipReason::DuplicateName)
        ]
    );
    Ok(())
}

fn s2_roots_in_caller_order(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.skill("one/x", "x").skill("two/x", "x");
    ensure_eq!(
        names_and_locations(c, &t, &["two", "one"]),
        vec![pair("x", "two/x/SKILL.md")]
    );
    ensure_eq!(
        names_and_locations(c, &t, &["one", "two"]),
        vec![pair("x", "one/x/SKILL.md")]
    );
    Ok(())
}

fn s2_cycle_guard_walks_a_link_to_the_root_once(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.skill("r", "top")
        .skill("r/a", "a")
        .link("r/a/loop", "..")
        .link("r/self", ".");
    ensure_eq!(
        skips(c, &t, &["r"]),
        vec![("r/self/SKILL.md".to_string(), SkipReason::DuplicateName)]
    );
    let t = Tree::new();
    t.skill("r", "top").skill("r/a", "a").link("r/a/loop", "..");
    ensure_eq!(
        skips(c, &t, &["r"]),
        vec![("r/a/loop/SKILL.md".to_string(), SkipReason::DuplicateName)]
    );
    Ok(())
}

fn s2_of_two_aliases_the_one_registered_first_is_walked(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.skill("r/real", "real")
        .link("r/0alias", "real")
        .link("r/zalias", "real");
    t.link("r/broken", "nowhere");
    ensure_eq!(
        names_and_locations(c, &t, &["r"]),
        vec![pair("real", "r/0alias/SKILL.md")]
    );
    ensure_eq!(skips(c, &t, &["r"]).len(), 0);
    Ok(())
}

// TN-READ ---------------------------------------------------------------------------------------

fn one_file(
    c: &Config,
    bytes: &[u8],
) -> Result<(Option<String>, Option<String>, String), SkipReason> {
    let t = Tree::new();
    t.file("r/x/SKILL.md", bytes);
    let out = output(c, &t, &["r"], &options(-1, &[]), &[]);
    match out.inventory.skipped.first() {
        Some(skip) => Err(skip.reason),
        None => {
            let s = &out.inventory.skills[0];
            let body = out.loads[0]
                .output
                .split("\n\n")
                .nth(1)
                .unwrap_or("")
                .to_owned();
            Ok((Some(s.name.clone()), s.description.clone(), body))
        }
    }
}

fn s3_fence_and_missing_name_without_one(c: &Config) -> Result<(), String> {
    ensure_eq!(
        one_file(c, b"# just markdown\n").err(),
        Some(SkipReason::MissingName)
    );
    ensure_eq!(
        one_file(c, b"---\nname: x\nno close\n").err(),
        Some(SkipReason::MissingName)
    );
    ensure_eq!(
        one_file(c, b"---\rname: x\rdescription: y\r---\rbody\r").err(),
        Some(SkipReason::MissingName)
    );
    ensure_eq!(
        one_file(c, b"---\nname: x\n----\nbody").ok().map(|o| o.2),
        Some("-\nbody".to_string())
    );
    Ok(())
}

fn s3_bom_is_removed(c: &Config) -> Result<(), String> {
    ensure_eq!(
        one_file(c, "\u{FEFF}---\nname: x\n---\nb".as_bytes())
            .ok()
            .map(|o| o.0),
        Some(Some("x".into()))
    );
    Ok(())
}

fn s3_body_keeps_crlf(c: &Config) -> Result<(), String> {
    ensure_eq!(
        one_file(c, b"---\r\nname: x\r\n---\r\nl1\r\nl2\r\n")
            .ok()
            .map(|o| o.2),
        Some("l1\r\nl2".to_string())
    );
    Ok(())
}

fn s3_invalid_utf8_and_io_errors_are_unreadable(c: &Config) -> Result<(), String> {
    ensure_eq!(
        one_file(c, b"---\nname: x\ndescription: caf\xE9\n---\n").err(),
        Some(SkipReason::Unreadable)
    );
    let t = Tree::new();
    t.skill("r/ok", "ok")
        .link("r/mem/SKILL.md", "/proc/self/mem");
    if std::fs::read(t.path().join("r/mem/SKILL.md")).is_err() {
        ensure_eq!(
            skips(c, &t, &["r"]),
            vec![("r/mem/SKILL.md".to_string(), SkipReason::Unreadable)]
        );
    }
    Ok(())
}

// TN-YAML, TN-RESC----------------------------------------------------------------------------------

fn description(c: &Config, frontmatter: &str) -> Result<Option<String>, SkipReason> {
    one_file(c, format!("---\n{frontmatter}\n---\nbody").as_bytes()).map(|o| o.1)
}

fn s4_yaml_first_comment_tail_is_dropped(c: &Config) -> Result<(), String> {
    ensure_eq!(
        description(c, "name: x\ndescription: Handles docs #tag Trigger on: pdf"),
        Ok(Some("Handles docs".to_string()))
    );
    Ok(())
}

fn s4_yaml_first_escapes_apply(c: &Config) -> Result<(), String> {
    ensure_eq!(
        description(c, "name: x\ndescription: \"Use when: a \\\"b\\\"\""),
        Ok(Some("Use when: a \"b\"".to_string()))
    );
    Ok(())
}

fn s4_rescue_takes_the_rest_of_the_line(c: &Config) -> Result<(), String> {
    ensure_eq!(
        description(c, "name: x\ndescription: Use when: a PDF arrives"),
        Ok(Some("Use when: a PDF arrives".to_string()))
    );
    Ok(())
}

fn s4_rescue_refuses_openers(c: &Config) -> Result<(), String> {
    ensure_eq!(
        description(c, "name: x\ndescription: [unterminated, flow"),
        Ok(None)
    );
    ensure_eq!(
        description(c, "name: x\ndescription: {open: brace"),
        Ok(None)
    );
    Ok(())
}

fn s4_refused_value_does_not_use_up_the_key(c: &Config) -> Result<(), String> {
    ensure_eq!(
        description(c, "name: x\ndescription: [bad\ndescription: good: y"),
        Ok(Some("good: y".to_string()))
    );
    Ok(())
}

fn s4_rescue_strips_one_quote_pair(c: &Config) -> Result<(), String> {
    ensure_eq!(
        description(c, "name: x\ndescription: 'Use when: y'\nbad: [x"),
        Ok(Some("Use when: y".to_string()))
    );
    Ok(())
}

fn s4_plain_null_is_absent(c: &Config) -> Result<(), String> {
    ensure_eq!(description(c, "name: x\ndescription: null"), Ok(None));
    ensure_eq!(description(c, "name: x\ndescription: ~"), Ok(None));
    ensure_eq!(
        description(c, "name: x\ndescription: 'null'"),
        Ok(Some("null".to_string()))
    );
    Ok(())
}

fn s4_reasons_malformed_only_when_yaml_failed(c: &Config) -> Result<(), String> {
    ensure_eq!(
        description(c, "  indented: x\nbad: [x").err(),
        Some(SkipReason::MalformedFrontmatter)
    );
    ensure_eq!(
        description(c, "just a scalar").err(),
        Some(SkipReason::MissingName)
    );
    ensure_eq!(description(c, "").err(), Some(SkipReason::MissingName));
    ensure_eq!(
        description(c, "name: ''").err(),
        Some(SkipReason::MissingName)
    );
    Ok(())
}

fn s4_values_are_trimmed(c: &Config) -> Result<(), String> {
    ensure_eq!(
        description(c, "name: x\ndescription: |\n  two\n  lines\n"),
        Ok(Some("two\nlines".to_string()))
    );
    ensure_eq!(
        description(c, "name: x\ndescription: \"\u{3000}wide\u{a0} \""),
        Ok(Some("wide".to_string()))
    );
    Ok(())
}

// TN-TOOL ---------------------------------------------------------------------------------------

fn s5_block_is_byte_exact_with_percent_encoded_base(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.file("r/my skill é/SKILL.md", "---\nname: x\n---\n\n  Body.  \n")
        .file("r/my skill é/a.txt", "");
    let out = output(c, &t, &["r"], &options(0, &[]), &["nope"]);
    let dir = format!("{}/r/my skill é", t.path().display());
    let encoded = format!("{}/r/my%20skill%20%C3%A9", t.path().display());
    ensure_eq!(
        out.loads[0].output,
        format!(
            "<skill_content name=\"x\">\n# Skill: x\n\nBody.\n\nBase directory for this skill: file://{encoded}\n\
             Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.\n\
             Note: file list is sampled.\n\n<skill_files>\n<file>{dir}/a.txt</file>\n</skill_files>\n</skill_content>"
        )
    );
    ensure_eq!(out.loads[0].is_error, false);
    ensure_eq!(
        out.loads[1].output,
        "Skill \"nope\" not found. Available skills: x"
    );
    ensure_eq!(out.loads[1].is_error, true);
    Ok(())
}

// TN-SAMP ---------------------------------------------------------------------------------------

fn sample(c: &Config, files: &[&str], limit: i64) -> Vec<String> {
    let t = Tree::new();
    t.skill("r/s", "s");
    for f in files {
        t.file(&format!("r/s/{f}"), "x");
    }
    let out = output(c, &t, &["r"], &options(limit, &[]), &[]);
    let prefix = format!("{}/r/s/", t.path().display());
    out.loads[0]
        .output
        .lines()
        .filter_map(|l| l.strip_prefix("<file>")?.strip_suffix("</file>"))
        .map(|p| p.strip_prefix(&prefix).unwrap_or(p).to_owned())
        .collect()
}

fn s6_one_global_sort_by_relative_path(c: &Config) -> Result<(), String> {
    ensure_eq!(
        sample(c, &["z-root.txt", "alpha/f.txt", "a-root.txt"], 0),
        vec!["a-root.txt", "alpha/f.txt", "z-root.txt"]
    );
    ensure_eq!(
        sample(c, &["alpha/f.txt", "alpha-b.txt"], 0),
        vec!["alpha-b.txt", "alpha/f.txt"]
    );
    Ok(())
}

fn s6_cap_after_sort(c: &Config) -> Result<(), String> {
    ensure_eq!(
        sample(c, &["mß.txt", "n.txt", "a-dir/zz.txt"], 2),
        vec!["a-dir/zz.txt", "mß.txt"]
    );
    Ok(())
}

fn s6_dotfiles_git_file_nested_skills(c: &Config) -> Result<(), String> {
    let t_files = [
        ".hidden",
        ".git",
        "sub/.git/config",
        "node_modules/m.js",
        "nested/SKILL.md",
        "nested/n.txt",
    ];
    ensure_eq!(
        sample(c, &t_files, 0),
        vec![".git", ".hidden", "nested/n.txt"]
    );
    Ok(())
}

// TN-PROMPT -------------------------------------------------------------------------------------

fn s7_prompt_lists_described_skills_in_name_order(c: &Config) -> Result<(), String> {
    let t = Tree::new();
    t.skill("r/b", "b")
        .skill("r/a", "a")
        .file("r/c/SKILL.md", "---\nname: c\n---\n");
    t.file(
        "r/0/SKILL.md",
        "---\nname: z-first\ndescription: found first\n---\n",
    );
    let out = output(c, &t, &["r"], &options(0, &[]), &[]);
    ensure_eq!(
        out.prompt,
        "Skills provide specialized instructions and workflows for specific tasks.\n\
         Use the skill tool to load a skill when a task matches its description.\n\n\
         ## Available Skills\n- **a**: a at r/a\n- **b**: b at r/b\n- **z-first**: found first"
    );
    let none = Tree::new();
    none.file("r/c/SKILL.md", "---\nname: c\n---\n");
    ensure_eq!(
        output(c, &none, &["r"], &options(0, &[]), &[]).prompt,
        "No skills are currently available."
    );
    Ok(())
}

/// Every check, the contract rules it checks, and the mutants that must make it fail.
const CHECKS: &[RuleCheck] = &[
    RuleCheck {
        rules: &["TN-IN-1"],
        check: s1_roots_are_absolutised_and_normalised_without_resolving_links,
        mutants: &[],
    },
    RuleCheck {
        rules: &["TN-IN-2"],
        check: s1_a_missing_root_warns_and_skips_nothing,
        mutants: &[],
    },
    RuleCheck {
        rules: &["TN-IN-3"],
        check: s1_sample_limit_zero_n_and_minus_one,
        mutants: &[Mutant::SampleLimitIgnored],
    },
    RuleCheck {
        rules: &["TN-IN-5", "TN-TOOL-4"],
        check: s1_filter_allowlist_droplist_unknown_and_unfiltered_inventory,
        mutants: &[Mutant::FilterInventory, Mutant::NotFoundUnfiltered],
    },
    RuleCheck {
        rules: &["TN-IN-6"],
        check: s1_skip_reasons_are_spelled_exactly,
        mutants: &[],
    },
    RuleCheck {
        rules: &["TN-DISC-4"],
        check: s2_depth_beats_code_point,
        mutants: &[Mutant::NoDepthRule],
    },
    RuleCheck {
        rules: &["TN-DISC-4"],
        check: s2_code_points_not_utf16_not_locale_not_case_folded,
        mutants: &[Mutant::Utf16Order, Mutant::CaseFoldedOrder],
    },
    RuleCheck {
        rules: &["TN-DISC-2"],
        check: s2_node_modules_and_git_directories_are_not_walked,
        mutants: &[Mutant::NodeModulesWalked, Mutant::GitDirWalked],
    },
    RuleCheck {
        rules: &["TN-DISC-3"],
        check: s2_only_exact_skill_md_is_a_candidate,
        mutants: &[Mutant::SkillMdCaseInsensitive],
    },
    RuleCheck {
        rules: &["TN-DISC-5"],
        check: s2_first_wins_and_later_copies_are_duplicate_skips_in_candidate_order,
        mutants: &[Mutant::LastDuplicateWins],
    },
    RuleCheck {
        rules: &["TN-DISC-4"],
        check: s2_roots_in_caller_order,
        mutants: &[Mutant::LastDuplicateWins],
    },
    RuleCheck {
        rules: &["TN-DISC-6"],
        check: s2_cycle_guard_walks_a_link_to_the_root_once,
        mutants: &[],
    },
    RuleCheck {
        rules: &["TN-DISC-1", "TN-DISC-7"],
        check: s2_of_two_aliases_the_one_registered_first_is_walked,
        mutants: &[Mutant::ReverseDirectoryReads],
    },
    RuleCheck {
        rules: &["TN-READ-1"],
        check: s3_fence_and_missing_name_without_one,
        mutants: &[Mutant::MalformedForNoFence],
    },
    RuleCheck {
        rules: &["TN-READ-4"],
        check: s3_bom_is_removed,
        mutants: &[Mutant::NoBomStrip],
    },
    RuleCheck {
        rules: &["TN-READ-5"],
        check: s3_body_keeps_crlf,
        mutants: &[Mutant::CrlfBodyNormalised],
    },
    RuleCheck {
        rules: &["TN-READ-2", "TN-READ-3"],
        check: s3_invalid_utf8_and_io_errors_are_unreadable,
        mutants: &[],
    },
    RuleCheck {
        rules: &["TN-YAML-1", "TN-RESC-1"],
        check: s4_yaml_first_comment_tail_is_dropped,
        mutants: &[Mutant::KeepHashTail, Mutant::RescueFirst],
    },
    RuleCheck {
        rules: &["TN-YAML-1", "TN-RESC-1"],
        check: s4_yaml_first_escapes_apply,
        mutants: &[Mutant::RescueFirst],
    },
    RuleCheck {
        rules: &["TN-RESC-2"],
        check: s4_rescue_takes_the_rest_of_the_line,
        mutants: &[],
    },
    RuleCheck {
        rules: &["TN-RESC-2"],
        check: s4_rescue_refuses_openers,
        mutants: &[Mutant::RescueAnyOpener],
    },
    RuleCheck {
        rules: &["TN-RESC-2"],
        check: s4_refused_value_does_not_use_up_the_key,
        mutants: &[Mutant::RefusedUsesKey],
    },
    RuleCheck {
        rules: &["TN-RESC-2"],
        check: s4_rescue_strips_one_quote_pair,
        mutants: &[Mutant::RescueKeepsQuotes],
    },
    RuleCheck {
        rules: &["TN-YAML-3"],
        check: s4_plain_null_is_absent,
        mutants: &[Mutant::NullIsString],
    },
    RuleCheck {
        rules: &["TN-YAML-6"],
        check: s4_reasons_malformed_only_when_yaml_failed,
        mutants: &[Mutant::MalformedForNonMapping],
    },
    RuleCheck {
        rules: &["TN-YAML-5"],
        check: s4_values_are_trimmed,
        mutants: &[Mutant::NoTrim],
    },
    RuleCheck {
        rules: &["TN-TOOL-1", "TN-TOOL-3", "TN-TOOL-4"],
        check: s5_block_is_byte_exact_with_percent_encoded_base,
        mutants: &[
            Mutant::NoPercentEncoding,
            Mutant::AvailableShort,
            Mutant::NoTrim,
        ],
    },
    RuleCheck {
        rules: &["TN-SAMP-2"],
        check: s6_one_global_sort_by_relative_path,
        mutants: &[Mutant::PerDirectorySampleOrder],
    },
    RuleCheck {
        rules: &["TN-SAMP-2"],
        check: s6_cap_after_sort,
        mutants: &[Mutant::CapBeforeSort],
    },
    RuleCheck {
        rules: &["TN-SAMP-1"],
        check: s6_dotfiles_git_file_nested_skills,
        mutants: &[
            Mutant::SampleSkipsDotfiles,
            Mutant::SampleSkipsGitFile,
            Mutant::SampleListsSkillMd,
        ],
    },
    RuleCheck {
        rules: &["TN-PROMPT-1"],
        check: s7_prompt_lists_described_skills_in_name_order,
        mutants: &[
            Mutant::EmptyForAbsentDescription,
            Mutant::PromptDiscoveryOrder,
        ],
    },
    RuleCheck {
        rules: &["TN-IN-4"],
        check: more::in4_other_negative_limits_are_refused,
        mutants: &[],
    },
    RuleCheck {
        rules: &["TN-DISC-1", "TN-DISC-3"],
        check: more::disc1_file_links_are_followed_and_broken_links_ignored,
        mutants: &[Mutant::FileLinksIgnored],
    },
    RuleCheck {
        rules: &["TN-DISC-7"],
        check: more::disc7_aliases_across_parents_and_depths,
        mutants: &[Mutant::BreadthFirstWalk],
    },
    RuleCheck {
        rules: &["TN-DISC-8"],
        check: more::disc8_a_root_walked_again_gives_duplicates,
        mutants: &[],
    },
    RuleCheck {
        rules: &["TN-YAML-2"],
        check: more::yaml2_scalars_are_read_as_written,
        mutants: &[],
    },
    RuleCheck {
        rules: &["TN-YAML-4"],
        check: more::yaml4_duplicate_keys_are_an_error,
        mutants: &[],
    },
    RuleCheck {
        rules: &["TN-YAML-7"],
        check: more::yaml7_extra_keys_ignored_errors_anywhere_rescue,
        mutants: &[Mutant::RescueFirst],
    },
    RuleCheck {
        rules: &["TN-YAML-8"],
        check: more::yaml8_merge_key_is_an_ordinary_key,
        mutants: &[Mutant::MergeKeysApplied],
    },
    RuleCheck {
        rules: &["TN-YAML-9"],
        check: more::yaml9_nesting_beyond_128_levels_is_an_error,
        mutants: &[],
    },
    RuleCheck {
        rules: &["TN-RESC-3"],
        check: more::resc3_rescue_lines_split_on_lf_only,
        mutants: &[],
    },
    RuleCheck {
        rules: &["TN-RESC-4"],
        check: more::resc4_yaml_scalars_are_kept_beside_the_rescue,
        mutants: &[Mutant::RescueFirst],
    },
    RuleCheck {
        rules: &["TN-TOOL-2"],
        check: more::tool2_body_trimmed_of_unicode_white_space,
        mutants: &[Mutant::NoTrim],
    },
    RuleCheck {
        rules: &["TN-TOOL-5"],
        check: more::tool5_name_written_raw,
        mutants: &[],
    },
    RuleCheck {
        rules: &["TN-TOOL-6"],
        check: more::tool6_declaration,
        mutants: &[],
    },
    RuleCheck {
        rules: &["TN-TOOL-7"],
        check: more::tool7_names_are_never_paths,
        mutants: &[Mutant::NameAsPath],
    },
    RuleCheck {
        rules: &["TN-SAMP-3"],
        check: more::samp3_sample_walk_guards_aliases_and_its_own_directory,
        mutants: &[Mutant::ReverseDirectoryReads],
    },
];

#[test]
fn every_rule_holds_for_the_reference() {
    let failures: Vec<String> = CHECKS
        .iter()
        .filter_map(|c| {
            (c.check)(&Config::default())
                .err()
                .map(|e| format!("{:?}: {e}", c.rules))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_check_fails_under_the_mutants_of_its_rule() {
    let survivors: Vec<String> = CHECKS
        .iter()
        .flat_map(|c| {
            c.mutants
                .iter()
                .filter(|m| (c.check)(&Config::mutated(**m)).is_ok())
                .map(move |m| format!("{:?} did not notice mutant {m}", c.rules))
        })
        .collect();
    assert!(survivors.is_empty(), "{}", survivors.join("\n"));
}

#[test]
fn every_mutant_is_caught_by_some_rule_check() {
    let uncaught: Vec<&str> = Mutant::ALL
        .iter()
        .filter(|m| !CHECKS.iter().any(|c| c.mutants.contains(m)))
        .map(|m| m.name())
        .collect();
    assert!(
        uncaught.is_empty(),
        "mutants no rule check names: {uncaught:?}"
    );
}
