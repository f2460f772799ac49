//! Deliberately wrong variants of the reference, compiled into every build.
//!
//! A fixture set is only as good as the bugs it catches. Each [`Mutant`] switches on exactly one
//! wrong behaviour that a real port has shown (or could plausibly show); `skill-conform mutants`
//! runs every case under every mutant and fails unless each mutant is caught ("killed") by at
//! least one case — by a *pinned* case when the mutant breaks a pinned rule. The correct loader
//! is `Config::default()`, which has no mutant.

use std::fmt;
use std::str::FromStr;

/// Whether a mutant breaks a pinned rule or a proposal; decides which cases must kill it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleKind {
    Pinned,
    Proposal,
}

macro_rules! mutants {
    ($( $variant:ident = $name:literal, $kind:ident, $rule:literal, $what:literal; )*) => {
        /// One deliberate bug.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Mutant { $( $variant, )* }

        impl Mutant {
            /// Every mutant, in declaration order.
            pub const ALL: &'static [Mutant] = &[ $( Mutant::$variant, )* ];

            /// The kebab-case name used on the command line.
            pub fn name(self) -> &'static str {
                match self { $( Mutant::$variant => $name, )* }
            }

            /// Whether the rule it breaks is pinned or a proposal.
            pub fn kind(self) -> RuleKind {
                match self { $( Mutant::$variant => RuleKind::$kind, )* }
            }

            /// The contract section (or toolnexus addendum) it breaks.
            pub fn rule(self) -> &'static str {
                match self { $( Mutant::$variant => $rule, )* }
            }

            /// What the mutant does wrong, in one line.
            pub fn what(self) -> &'static str {
                match self { $( Mutant::$variant => $what, )* }
            }
        }
    };
}

mutants! {
    KeepHashTail = "keep-hash-tail", Pinned, "§4",
        "a description line containing ` #` keeps the comment tail (the rescued whole line)";
    RescueFirst = "rescue-first", Pinned, "§4.4",
        "runs the line-wise rescue before YAML and prefers its values";
    RescueAnyOpener = "rescue-any-opener", Pinned, "§4.5",
        "the rescue accepts values opening with `| > & * [ { !`";
    RefusedUsesKey = "refused-uses-key", Pinned, "§4.5",
        "a value the rescue refuses still uses up its key";
    RescueKeepsQuotes = "rescue-keeps-quotes", Pinned, "§4.5",
        "the rescue does not strip one pair of outer quotes";
    LastDuplicateWins = "last-duplicate-wins", Pinned, "§2",
        "the last candidate with a name wins instead of the first";
    NoDepthRule = "no-depth-rule", Pinned, "§2 A15",
        "candidates are ordered by relative path only, without depth first";
    Utf16Order = "utf16-order", Pinned, "§2 A1c",
        "paths and names compare by UTF-16 code units instead of code points";
    CaseFoldedOrder = "case-folded-order", Pinned, "§2 A1c",
        "paths and names compare case-insensitively";
    NodeModulesWalked = "node-modules-walked", Pinned, "§2",
        "directories named `node_modules` are walked";
    GitDirWalked = "git-dir-walked", Pinned, "§2",
        "directories named `.git` are walked";
    SkillMdCaseInsensitive = "skill-md-case-insensitive", Pinned, "§2",
        "`skill.md` and `Skill.md` are candidates too";
    PerDirectorySampleOrder = "per-directory-sample-order", Pinned, "§6 A25",
        "the sample lists each directory's files before descending (walk order, not one global sort)";
    CapBeforeSort = "cap-before-sort", Pinned, "§6 A24",
        "the sample is capped during the walk, then sorted";
    SampleSkipsDotfiles = "sample-skips-dotfiles", Pinned, "§6",
        "the sample leaves out files whose name starts with `.`";
    SampleSkipsGitFile = "sample-skips-git-file", Pinned, "§6",
        "the sample leaves out a regular file named `.git`";
    SampleListsSkillMd = "sample-lists-skill-md", Pinned, "§6",
        "the sample includes nested `SKILL.md` files";
    NoTrim = "no-trim", Pinned, "§4.7 §5",
        "names, descriptions and bodies are not trimmed";
    AvailableShort = "available-short", Pinned, "§5",
        "the not-found text says `Available:` instead of `Available skills:`";
    NotFoundUnfiltered = "not-found-unfiltered", Pinned, "§5",
        "the not-found list names every loaded skill, ignoring the filter";
    EmptyForAbsentDescription = "empty-for-absent-description", Pinned, "§7",
        "an absent description becomes `\"\"`, so undescribed skills enter the prompt";
    PromptDiscoveryOrder = "prompt-discovery-order", Pinned, "§7 A22",
        "the prompt lists skills in discovery order instead of name order";
    FilterInventory = "filter-inventory", Pinned, "§1",
        "the filter is applied to the inventory as well";
    SampleLimitIgnored = "sample-limit-ignored", Pinned, "§1",
        "`sampleLimit` -1 still emits the sample block";
    MalformedForNoFence = "malformed-for-no-fence", Pinned, "§3",
        "a file without a fence is `malformed-frontmatter` instead of `missing-name`";
    NoBomStrip = "no-bom-strip", Proposal, "§3",
        "a leading UTF-8 BOM is kept, so the fence is not found";
    ReverseDirectoryReads = "reverse-directory-reads", Proposal, "§2",
        "directory entries are read in reverse code-point order (the alias that wins changes)";
    NoPercentEncoding = "no-percent-encoding", Proposal, "§5",
        "the `file://` base is written raw, without percent-encoding";
    NullIsString = "null-is-string", Proposal, "§4.2",
        "a plain `null` or `~` value is the string as written, not absent";
    MalformedForNonMapping = "malformed-for-non-mapping", Proposal, "§4.8",
        "a frontmatter that parses to a non-mapping is `malformed-frontmatter`";
    CrlfBodyNormalised = "crlf-body-normalised", Proposal, "§3",
        "CRLF line breaks in the body become LF";
}

impl fmt::Display for Mutant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown mutant name; the message lists the valid ones.
#[derive(Debug, thiserror::Error)]
#[error("unknown mutant `{0}` (valid: {valid})", valid = Mutant::ALL.iter().map(|m| m.name()).collect::<Vec<_>>().join(", "))]
pub struct UnknownMutant(pub String);

impl FromStr for Mutant {
    type Err = UnknownMutant;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Mutant::ALL
            .iter()
            .copied()
            .find(|m| m.name() == s)
            .ok_or_else(|| UnknownMutant(s.to_owned()))
    }
}

/// How the loader behaves: the contract, or the contract with one mutant switched on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Config {
    pub mutant: Option<Mutant>,
}

impl Config {
    /// The loader with `mutant` switched on.
    pub fn mutated(mutant: Mutant) -> Self {
        Config {
            mutant: Some(mutant),
        }
    }

    /// True when `mutant` is the one switched on.
    #[inline]
    pub fn is(&self, mutant: Mutant) -> bool {
        self.mutant == Some(mutant)
    }
}
