//! The reference SKILL.md loader: toolnexus's skill-loader contract in code.
//!
//! Every golden of skill-conform comes from this crate, so it follows `CONTRACT.md` (beside
//! this crate) rule for rule; [`rules`] is the registry of those rules, parsed from that file.
//! Each part of the contract maps to a module:
//!
//! | contract | rules | module |
//! |---|---|---|
//! | 1 inputs and outputs | `TN-IN-*` | [`Options`], [`SampleLimit`], [`Filter`], [`output`], [`roots`] |
//! | 2 discovery, order, first wins | `TN-DISC-*` | [`walk`], [`inventory`], [`order`] |
//! | 3 reading and the fence | `TN-READ-*` | [`frontmatter`] |
//! | 4 YAML first | `TN-YAML-*` | [`frontmatter::yaml`] |
//! | 5 the rescue | `TN-RESC-*` | [`frontmatter::rescue`] |
//! | 6 the skill tool | `TN-TOOL-*` | [`skill_block`], [`tool_declaration`] |
//! | 7 the `<skill_files>` sample | `TN-SAMP-*` | [`files_sample`] |
//! | 8 the prompt | `TN-PROMPT-*` | [`prompt`] |
//!
//! What the harness compares (normalisation, ordering of the inventory) lives in skill-conform;
//! [`canonical`] writes the JSON it compares.
//!
//! The loader reads the tree and nothing else: it prints nothing and returns its warnings
//! ([`Source::warnings`]) as data. [`mutant`] holds deliberately wrong variants used to prove
//! that the fixtures catch each rule being broken.
//!
//! [`agentskills`] is a second, separate contract: the Agent Skills specification's verdict, rule
//! codes and `<available_skills>` prompt (`AGENTSKILLS.md`), with its own mutant list.
//!
//! ```no_run
//! use skill_ref::{Options, Source};
//! let source = Source::load(&["skills".into()], &Options::default()).unwrap();
//! println!("{}", source.prompt());
//! ```

pub mod agentskills;
pub mod canonical;
pub mod files_sample;
pub mod frontmatter;
pub mod inventory;
pub mod mutant;
pub mod order;
pub mod output;
pub mod prompt;
pub mod roots;
pub mod rules;
pub mod skill_block;
pub mod walk;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

pub use mutant::{Config, Mutant};
pub use output::{Inventory, Load, Output, SkillEntry, Skip, SkipReason, ToolDeclaration};

use inventory::{Discovery, Skill};
use walk::Walker;

/// The contract revision this loader implements; goldens record it in `goldens/VERSION`.
pub const CONTRACT_REVISION: &str = "toolnexus-issue93-adr0028-r1";

/// The YAML library the reference parses front matter with (`TN-YAML-1`) and the version
/// `Cargo.lock` pins (a unit test checks that they agree): the reference's hello
/// names it, as every port's hello names its own.
pub const YAML_LIBRARY: (&str, &str) = ("serde_yaml_ng", "0.10.0");

/// The `skill` tool's description (`TN-TOOL-6`, three paragraphs).
pub const SKILL_TOOL_DESCRIPTION: &str = "Load a specialized skill when the task at hand matches one of the skills listed in the system prompt.\n\nUse this tool to inject the skill's instructions and resources into current conversation. The output may contain detailed workflow guidance as well as references to scripts, files, etc in the same directory as the skill.\n\nThe skill name must match one of the skills listed in your system prompt.";

/// How many files the sample lists (`TN-IN-3`, `TN-IN-4`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SampleLimit {
    /// `0`: the default cap of ten.
    #[default]
    Default,
    /// `n > 0`: at most `n`.
    Cap(usize),
    /// `-1`: no `Note:` line and no `<skill_files>` block.
    Omit,
}

/// A sample limit other than -1, 0 or a positive number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid sample limit {0}: use 0 (default 10), a positive cap, or -1 (no file list)")]
pub struct InvalidSampleLimit(pub i64);

impl TryFrom<i64> for SampleLimit {
    type Error = InvalidSampleLimit;
    fn try_from(value: i64) -> Result<Self, Self::Error> {
        match value {
            0 => Ok(SampleLimit::Default),
            -1 => Ok(SampleLimit::Omit),
            n if n > 0 => Ok(SampleLimit::Cap(usize::try_from(n).unwrap_or(usize::MAX))),
            n => Err(InvalidSampleLimit(n)),
        }
    }
}

impl SampleLimit {
    /// The cap, or `None` when the block is omitted.
    pub fn cap(self) -> Option<usize> {
        match self {
            SampleLimit::Default => Some(10),
            SampleLimit::Cap(n) => Some(n),
            SampleLimit::Omit => None,
        }
    }
}

/// The filter: name → keep (`TN-IN-5`). Empty keeps all; any `true` makes an allowlist of the
/// true names; only `false` entries make a drop-list.
pub type Filter = BTreeMap<String, bool>;

/// The caller's options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub sample_limit: SampleLimit,
    pub filter: Filter,
}

/// A loaded skill source: the inventory, the filtered skills, the tool and the prompt.
#[derive(Debug)]
pub struct Source {
    config: Config,
    walker: Walker,
    discovery: Discovery,
    /// Indices into `discovery.skills` of the skills the filter keeps, in discovery order.
    kept: Vec<usize>,
    by_name: HashMap<String, usize>,
    sample_limit: SampleLimit,
    warnings: Vec<String>,
}

impl Source {
    /// Loads `roots` (relative ones against the current directory) with the correct loader.
    pub fn load(roots: &[PathBuf], options: &Options) -> std::io::Result<Source> {
        let cwd = std::env::current_dir()?;
        Ok(Source::load_with(Config::default(), roots, options, &cwd))
    }

    /// Loads `roots` with `config` (the correct loader or a mutant), resolving against `cwd`.
    pub fn load_with(config: Config, roots: &[PathBuf], options: &Options, cwd: &Path) -> Source {
        let roots: Vec<PathBuf> = roots
            .iter()
            .map(|r| roots::normalize_root(r, cwd))
            .collect();
        let walker = Walker::new(config);
        let discovery = inventory::discover(&config, &walker, &roots);
        let mut warnings: Vec<String> = discovery
            .missing_roots
            .iter()
            .map(|r| format!("skills dir not found: {}", r.display()))
            .collect();
        warnings.extend(discovery.duplicates.iter().map(|(name, location)| {
            format!("duplicate skill name \"{name}\" ({location}) — keeping first")
        }));
        let known: HashSet<&str> = discovery
            .skills
            .iter()
            .map(|s| s.entry.name.as_str())
            .collect();
        for name in options.filter.keys() {
            if !known.contains(name.as_str()) {
                warnings.push(format!("filter names unknown skill \"{name}\""));
            }
        }
        let allowlist = options.filter.values().any(|&keep| keep);
        let kept: Vec<usize> = (0..discovery.skills.len())
            .filter(|&i| {
                let name = &discovery.skills[i].entry.name;
                match options.filter.get(name) {
                    _ if options.filter.is_empty() => true,
                    Some(&keep) if allowlist => keep,
                    None if allowlist => false,
                    Some(&keep) => keep,
                    None => true,
                }
            })
            .collect();
        let by_name = kept
            .iter()
            .map(|&i| (discovery.skills[i].entry.name.clone(), i))
            .collect();
        let sample_limit =
            if config.is(Mutant::SampleLimitIgnored) && options.sample_limit == SampleLimit::Omit {
                SampleLimit::Default
            } else {
                options.sample_limit
            };
        Source {
            config,
            walker,
            discovery,
            kept,
            by_name,
            sample_limit,
            warnings,
        }
    }

    /// The unfiltered inventory.
    pub fn inventory(&self) -> Inventory {
        let mut inventory = self.discovery.inventory();
        if self.config.is(Mutant::FilterInventory) {
            inventory.skills = self.kept_skills().map(|s| s.entry.clone()).collect();
        }
        if self.config.is(Mutant::EmptyForAbsentDescription) {
            for skill in &mut inventory.skills {
                skill.description.get_or_insert_with(String::new);
            }
        }
        inventory
    }

    /// What the loader warned about: missing roots, duplicates, unknown filter names.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// What the walks so far could not read (sorted by path; see [`walk::WalkProblem`]). Loads
    /// walk skill directories for their sample, so ask after the loads for the whole picture.
    pub fn walk_problems(&self) -> Vec<walk::WalkProblem> {
        self.walker.problems()
    }

    fn kept_skills(&self) -> impl Iterator<Item = &Skill> {
        self.kept.iter().map(|&i| &self.discovery.skills[i])
    }

    /// The filtered skill names in code-point order.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = if self.config.is(Mutant::NotFoundUnfiltered) {
            self.discovery
                .skills
                .iter()
                .map(|s| s.entry.name.as_str())
                .collect()
        } else {
            self.kept_skills().map(|s| s.entry.name.as_str()).collect()
        };
        names.sort_by(|a, b| order::compare(&self.config, a, b));
        names
    }

    /// Calls the `skill` tool with `name`.
    pub fn execute(&self, name: &str) -> Load {
        let key = if self.config.is(Mutant::NameAsPath) {
            mutant::name_as_path(name)
        } else {
            name.to_owned()
        };
        let Some(&index) = self.by_name.get(&key) else {
            return Load {
                name: name.to_owned(),
                is_error: true,
                output: skill_block::not_found(&self.config, name, &self.names()),
            };
        };
        let skill = &self.discovery.skills[index];
        let files = self
            .sample_limit
            .cap()
            .map(|cap| files_sample::sample(&self.config, &self.walker, &skill.dir, cap));
        Load {
            name: name.to_owned(),
            is_error: false,
            output: skill_block::skill_block(
                &self.config,
                &skill.entry.name,
                &skill.body,
                &skill.dir,
                files.as_deref(),
            ),
        }
    }

    /// The prompt: described skills after the filter, in name order.
    pub fn prompt(&self) -> String {
        let empty_for_absent = self.config.is(Mutant::EmptyForAbsentDescription);
        let mut described: Vec<(&str, &str)> = self
            .kept_skills()
            .filter_map(|s| {
                let description = match &s.entry.description {
                    Some(d) => d.as_str(),
                    None if empty_for_absent => "",
                    None => return None,
                };
                Some((s.entry.name.as_str(), description))
            })
            .collect();
        if !self.config.is(Mutant::PromptDiscoveryOrder) {
            described.sort_by(|a, b| order::compare(&self.config, a.0, b.0));
        }
        prompt::prompt(described)
    }

    /// Every accepted name (unfiltered) in code-point order: the default load list's head.
    pub fn accepted_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .discovery
            .skills
            .iter()
            .map(|s| s.entry.name.clone())
            .collect();
        names.sort();
        names
    }

    /// Runs one case: inventory, every load in `load` order, prompt, and the declaration if asked.
    pub fn output(&self, load: &[String], tool: bool) -> Output {
        Output {
            inventory: self.inventory(),
            loads: load.iter().map(|name| self.execute(name)).collect(),
            prompt: self.prompt(),
            tool: tool.then(tool_declaration),
        }
    }
}

/// The `skill` tool's declaration (`TN-TOOL-6`).
pub fn tool_declaration() -> ToolDeclaration {
    ToolDeclaration {
        name: "skill".to_owned(),
        description: SKILL_TOOL_DESCRIPTION.to_owned(),
        input_schema: serde_json::json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The name of the skill to load"}
            },
            "required": ["name"],
            "additionalProperties": false
        }),
    }
}

#[cfg(test)]
mod yaml_library_tests {
    /// A `cargo update` that moves serde_yaml_ng fails here until [`super::YAML_LIBRARY`]
    /// (what the reference's hello reports) says the same.
    #[test]
    fn the_reported_yaml_library_is_the_locked_one() {
        let lock = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.lock");
        let lock: toml::Value = toml::from_str(&std::fs::read_to_string(lock).unwrap()).unwrap();
        let (name, version) = super::YAML_LIBRARY;
        let locked: Vec<&str> = lock["package"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|package| package["name"].as_str() == Some(name))
            .filter_map(|package| package["version"].as_str())
            .collect();
        assert_eq!(
            locked,
            [version],
            "Cargo.lock's {name} (hint: update skill_ref::YAML_LIBRARY)"
        );
    }
}
