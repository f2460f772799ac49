//! The Agent Skills profile's rule codes: one stable `AS-` code per way a `SKILL.md` breaks the
//! specification. Adapters translate each implementation's messages into these codes; the
//! messages themselves are never compared.

use serde::{Deserialize, Serialize};

macro_rules! rules {
    ($( $variant:ident = $code:literal, $what:literal; )*) => {
        /// One violation of the Agent Skills specification (see `AGENTSKILLS.md`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        pub enum Rule { $( #[serde(rename = $code)] $variant, )* }

        impl Rule {
            /// Every rule, in code order.
            pub const ALL: &'static [Rule] = &[ $( Rule::$variant, )* ];

            /// The stable code on the wire, e.g. `AS-NAME-CHARSET`.
            pub fn code(self) -> &'static str {
                match self { $( Rule::$variant => $code, )* }
            }

            /// What the rule requires, in one line.
            pub fn what(self) -> &'static str {
                match self { $( Rule::$variant => $what, )* }
            }
        }
    };
}

rules! {
    FileMissing = "AS-FILE-MISSING", "the skill directory holds a file named exactly `SKILL.md`";
    FileEncoding = "AS-FILE-ENCODING", "`SKILL.md` is UTF-8";
    FenceMissing = "AS-FENCE-MISSING", "the file starts with a `---` line";
    FenceUnclosed = "AS-FENCE-UNCLOSED", "a later line that is exactly `---` closes the frontmatter";
    YamlInvalid = "AS-YAML-INVALID", "the frontmatter is well-formed YAML";
    YamlNotMapping = "AS-YAML-NOT-MAPPING", "the frontmatter is a YAML mapping";
    FieldUnknown = "AS-FIELD-UNKNOWN", "only the six fields of the specification appear";
    NameMissing = "AS-NAME-MISSING", "`name` is present and not null";
    NameType = "AS-NAME-TYPE", "`name` is a string";
    NameEmpty = "AS-NAME-EMPTY", "`name` has at least one character";
    NameTooLong = "AS-NAME-TOO-LONG", "`name` has at most 64 characters";
    NameCharset = "AS-NAME-CHARSET", "`name` holds only `a-z`, `0-9` and `-`";
    NameHyphenEdge = "AS-NAME-HYPHEN-EDGE", "`name` neither starts nor ends with `-`";
    NameHyphenDouble = "AS-NAME-HYPHEN-DOUBLE", "`name` holds no `--`";
    NameDirMismatch = "AS-NAME-DIR-MISMATCH", "`name` equals the skill directory's name";
    DescriptionMissing = "AS-DESCRIPTION-MISSING", "`description` is present and not null";
    DescriptionType = "AS-DESCRIPTION-TYPE", "`description` is a string";
    DescriptionEmpty = "AS-DESCRIPTION-EMPTY", "`description` has at least one character";
    DescriptionTooLong = "AS-DESCRIPTION-TOO-LONG", "`description` has at most 1024 characters";
    LicenseType = "AS-LICENSE-TYPE", "`license`, when present, is a string";
    CompatibilityType = "AS-COMPATIBILITY-TYPE", "`compatibility`, when present, is a string";
    CompatibilityEmpty = "AS-COMPATIBILITY-EMPTY", "`compatibility`, when present, has at least one character";
    CompatibilityTooLong = "AS-COMPATIBILITY-TOO-LONG", "`compatibility` has at most 500 characters";
    MetadataType = "AS-METADATA-TYPE", "`metadata`, when present, maps strings to strings";
    AllowedToolsType = "AS-ALLOWED-TOOLS-TYPE", "`allowed-tools`, when present, is a (space-separated) string";
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}
