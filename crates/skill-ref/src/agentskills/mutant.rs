//! Deliberately wrong variants of the Agent Skills reference, kept apart from the toolnexus
//! mutants ([`crate::mutant`]) so that list is unchanged. Each [`AsMutant`] breaks exactly one
//! pinned rule; the profile's fixtures must catch every one (`tests/agentskills_fixtures.rs`).

use std::fmt;
use std::str::FromStr;

macro_rules! as_mutants {
    ($( $variant:ident = $name:literal, $rule:literal, $what:literal; )*) => {
        /// One deliberate bug in the Agent Skills reference.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum AsMutant { $( $variant, )* }

        impl AsMutant {
            /// Every mutant, in declaration order.
            pub const ALL: &'static [AsMutant] = &[ $( AsMutant::$variant, )* ];

            /// The kebab-case name used on the command line.
            pub fn name(self) -> &'static str {
                match self { $( AsMutant::$variant => $name, )* }
            }

            /// The rule code it breaks.
            pub fn rule(self) -> &'static str {
                match self { $( AsMutant::$variant => $rule, )* }
            }

            /// What the mutant does wrong, in one line.
            pub fn what(self) -> &'static str {
                match self { $( AsMutant::$variant => $what, )* }
            }
        }
    };
}

as_mutants! {
    FenceAfterBlankLine = "fence-after-blank-line", "AS-FENCE-MISSING",
        "leading blank lines before the opening `---` are skipped";
    UnknownFieldsAllowed = "unknown-fields-allowed", "AS-FIELD-UNKNOWN",
        "keys outside the six fields are not reported";
    NameUppercaseAllowed = "name-uppercase-allowed", "AS-NAME-CHARSET",
        "ASCII uppercase letters are accepted in `name`";
    NameLimit65 = "name-limit-65", "AS-NAME-TOO-LONG",
        "`name` may have 65 characters";
    NameHyphenEdgeAllowed = "name-hyphen-edge-allowed", "AS-NAME-HYPHEN-EDGE",
        "a leading or trailing hyphen is accepted";
    NameDoubleHyphenAllowed = "name-double-hyphen-allowed", "AS-NAME-HYPHEN-DOUBLE",
        "`--` is accepted in `name`";
    NameDirIgnored = "name-dir-ignored", "AS-NAME-DIR-MISMATCH",
        "`name` is not compared with the directory's name";
    EmptyNameAllowed = "empty-name-allowed", "AS-NAME-EMPTY",
        "an empty `name` is accepted";
    DescriptionLimit1025 = "description-limit-1025", "AS-DESCRIPTION-TOO-LONG",
        "`description` may have 1025 characters";
    DescriptionLengthInBytes = "description-length-in-bytes", "AS-DESCRIPTION-TOO-LONG",
        "`description`'s length is counted in UTF-8 bytes, not characters";
    DescriptionOptional = "description-optional", "AS-DESCRIPTION-MISSING",
        "a missing `description` is accepted";
    EmptyDescriptionAllowed = "empty-description-allowed", "AS-DESCRIPTION-EMPTY",
        "an empty `description` is accepted";
    CompatibilityLimit501 = "compatibility-limit-501", "AS-COMPATIBILITY-TOO-LONG",
        "`compatibility` may have 501 characters";
    EmptyCompatibilityAllowed = "empty-compatibility-allowed", "AS-COMPATIBILITY-EMPTY",
        "an empty `compatibility` is accepted";
    MetadataNestedAllowed = "metadata-nested-allowed", "AS-METADATA-TYPE",
        "a `metadata` value that is a mapping or list is accepted (and dropped)";
    PromptUnescaped = "prompt-unescaped", "prompt",
        "`<`, `>` and `&` are written raw into the prompt";
    PromptListsInvalid = "prompt-lists-invalid", "prompt",
        "invalid skills that have a name and a description enter the prompt";
}

impl fmt::Display for AsMutant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown mutant name; the message lists the valid ones.
#[derive(Debug, thiserror::Error)]
#[error("unknown agentskills mutant `{0}` (valid: {valid})", valid = AsMutant::ALL.iter().map(|m| m.name()).collect::<Vec<_>>().join(", "))]
pub struct UnknownAsMutant(pub String);

impl FromStr for AsMutant {
    type Err = UnknownAsMutant;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AsMutant::ALL
            .iter()
            .copied()
            .find(|m| m.name() == s)
            .ok_or_else(|| UnknownAsMutant(s.to_owned()))
    }
}

/// How the Agent Skills reference behaves: the specification, or it with one mutant on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AsConfig {
    pub mutant: Option<AsMutant>,
}

impl AsConfig {
    /// The reference with `mutant` switched on.
    pub fn mutated(mutant: AsMutant) -> Self {
        AsConfig {
            mutant: Some(mutant),
        }
    }

    /// True when `mutant` is the one switched on.
    #[inline]
    pub fn is(&self, mutant: AsMutant) -> bool {
        self.mutant == Some(mutant)
    }
}
