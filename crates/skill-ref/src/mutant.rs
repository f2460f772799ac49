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

            /// The ids of the `CONTRACT.md` rules it breaks, space-separated (see [`crate::rules`]).
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
    KeepHashTail = "keep-hash-tail", Pinned, "TN-YAML-1",
        "a description line containing ` #` keeps the comment tail (the rescued whole line)";
    RescueFirst = "rescue-first", Pinned, "TN-RESC-1",
        "runs the line-wise rescue before YAML and prefers its values";
    RescueAnyOpener = "rescue-any-opener", Pinned, "TN-RESC-2",
        "the rescue accepts values opening with `| > & * [ { !`";
    RefusedUsesKey = "refused-uses-key", Pinned, "TN-RESC-2",
        "a value the rescue refuses still uses up its key";
    RescueKeepsQuotes = "rescue-keeps-quotes", Pinned, "TN-RESC-2",
        "the rescue does not strip one pair of outer quotes";
    LastDuplicateWins = "last-duplicate-wins", Pinned, "TN-DISC-5",
        "the last candidate with a name wins instead of the first";
    NoDepthRule = "no-depth-rule", Pinned, "TN-DISC-4",
        "candidates are ordered by relative path only, without depth first";
    Utf16Order = "utf16-order", Pinned, "TN-DISC-4",
        "paths and names compare by UTF-16 code units instead of code points";
    CaseFoldedOrder = "case-folded-order", Pinned, "TN-DISC-4",
        "paths and names compare case-insensitively";
    NodeModulesWalked = "node-modules-walked", Pinned, "TN-DISC-2",
        "directories named `node_modules` are walked";
    GitDirWalked = "git-dir-walked", Pinned, "TN-DISC-2",
        "directories named `.git` are walked";
    SkillMdCaseInsensitive = "skill-md-case-insensitive", Pinned, "TN-DISC-3",
        "`skill.md` and `Skill.md` are candidates too";
    PerDirectorySampleOrder = "per-directory-sample-order", Pinned, "TN-SAMP-2",
        "the sample lists each directory's files before descending (walk order, not one global sort)";
    CapBeforeSort = "cap-before-sort", Pinned, "TN-SAMP-2",
        "the sample is capped during the walk, then sorted";
    SampleSkipsDotfiles = "sample-skips-dotfiles", Pinned, "TN-SAMP-1",
        "the sample leaves out files whose name starts with `.`";
    SampleSkipsGitFile = "sample-skips-git-file", Pinned, "TN-SAMP-1",
        "the sample leaves out a regular file named `.git`";
    SampleListsSkillMd = "sample-lists-skill-md", Pinned, "TN-SAMP-1",
        "the sample includes nested `SKILL.md` files";
    NoTrim = "no-trim", Pinned, "TN-YAML-5 TN-TOOL-2",
        "names, descriptions and bodies are not trimmed";
    AvailableShort = "available-short", Pinned, "TN-TOOL-4",
        "the not-found text says `Available:` instead of `Available skills:`";
    NotFoundUnfiltered = "not-found-unfiltered", Pinned, "TN-TOOL-4",
        "the not-found list names every loaded skill, ignoring the filter";
    EmptyForAbsentDescription = "empty-for-absent-description", Pinned, "TN-PROMPT-1",
        "an absent description becomes `\"\"`, so undescribed skills enter the prompt";
    PromptDiscoveryOrder = "prompt-discovery-order", Pinned, "TN-PROMPT-1",
        "the prompt lists skills in discovery order instead of name order";
    FilterInventory = "filter-inventory", Pinned, "TN-IN-5",
        "the filter is applied to the inventory as well";
    SampleLimitIgnored = "sample-limit-ignored", Pinned, "TN-IN-3",
        "`sampleLimit` -1 still emits the sample block";
    MalformedForNoFence = "malformed-for-no-fence", Pinned, "TN-READ-1",
        "a file without a fence is `malformed-frontmatter` instead of `missing-name`";
    NoBomStrip = "no-bom-strip", Proposal, "TN-READ-4",
        "a leading UTF-8 BOM is kept, so the fence is not found";
    ReverseDirectoryReads = "reverse-directory-reads", Proposal, "TN-DISC-7",
        "directory entries are read in reverse code-point order (the alias that wins changes)";
    NoPercentEncoding = "no-percent-encoding", Proposal, "TN-TOOL-3",
        "the `file://` base is written raw, without percent-encoding";
    NullIsString = "null-is-string", Proposal, "TN-YAML-3",
        "a plain `null` or `~` value is the string as written, not absent";
    MalformedForNonMapping = "malformed-for-non-mapping", Proposal, "TN-YAML-6",
        "a frontmatter that parses to a non-mapping is `malformed-frontmatter`";
    CrlfBodyNormalised = "crlf-body-normalised", Proposal, "TN-READ-5",
        "CRLF line breaks in the body become LF";
    FileLinksIgnored = "file-links-ignored", Pinned, "TN-DISC-1",
        "a symlink to a file is not followed, so a linked `SKILL.md` (or sample file) is not seen";
    MergeKeysApplied = "merge-keys-applied", Proposal, "TN-YAML-8",
        "`<<` merge keys are applied (YAML 1.1), so a name can arrive through a merge";
    BreadthFirstWalk = "breadth-first-walk", Proposal, "TN-DISC-7",
        "the walk reads directories first-in-first-out (breadth first), so another alias wins across parents";
    NameAsPath = "name-as-path", Proposal, "TN-TOOL-7",
        "the skill tool percent-decodes the name, cuts it at a NUL and looks up its last `/` segment";
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

/// What the `name-as-path` mutant looks up: the name percent-decoded, cut at the first NUL, and
/// reduced to its last `/`-separated segment (a port that treats the name as a path).
pub fn name_as_path(name: &str) -> String {
    let bytes = name.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                decoded.push(byte);
                i += 3;
            }
            (byte, _) => {
                decoded.push(byte);
                i += 1;
            }
        }
    }
    let text = String::from_utf8_lossy(&decoded);
    let text = text.split('\0').next().unwrap_or_default();
    text.rsplit('/').next().unwrap_or_default().to_owned()
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
