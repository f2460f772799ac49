"""The conversion table of adapter.py (skills-ref and skills-ref-rs messages -> rule codes),
fed with messages the libraries were seen to return. Needs neither library:
`python3 -m unittest discover -s adapters/skills-ref-py`."""

import unittest

import adapter

SEEN = {
    "Missing required file: SKILL.md": "AS-FILE-MISSING",
    "Failed to read /r/x/SKILL.md: stream did not contain valid UTF-8": "AS-FILE-ENCODING",
    "SKILL.md must start with YAML frontmatter (---)": "AS-FENCE-MISSING",
    "SKILL.md frontmatter not properly closed with ---": "AS-FENCE-UNCLOSED",
    "Invalid YAML in frontmatter: while scanning\n  in line 2": "AS-YAML-INVALID",
    "SKILL.md frontmatter must be a YAML mapping": "AS-YAML-NOT-MAPPING",
    "Missing required field in frontmatter: name": "AS-NAME-MISSING",
    "Field 'name' must be a non-empty string": "AS-NAME-EMPTY",
    "Skill name 'aaab' exceeds 64 character limit (65 chars)": "AS-NAME-TOO-LONG",
    "Skill name 'Upper-case' must be lowercase": "AS-NAME-CHARSET",
    "Skill name 'snake_case' contains invalid characters. Only letters, digits, and hyphens are allowed.": "AS-NAME-CHARSET",
    "Skill name cannot start or end with a hyphen": "AS-NAME-HYPHEN-EDGE",
    "Skill name cannot contain consecutive hyphens": "AS-NAME-HYPHEN-DOUBLE",
    "Directory name 'folder' must match skill name 'other-name'": "AS-NAME-DIR-MISMATCH",
    "Missing required field in frontmatter: description": "AS-DESCRIPTION-MISSING",
    "Field 'description' must be a non-empty string": "AS-DESCRIPTION-EMPTY",
    "Description exceeds 1024 character limit (1025 chars)": "AS-DESCRIPTION-TOO-LONG",
    "Compatibility exceeds 500 character limit (501 chars)": "AS-COMPATIBILITY-TOO-LONG",
    "Field 'compatibility' must be a string": "AS-COMPATIBILITY-TYPE",
}


class ConversionTable(unittest.TestCase):
    def test_each_seen_message_has_its_code(self):
        for message, code in SEEN.items():
            with self.subTest(message=message):
                self.assertEqual(adapter.convert([message]), ([code], []))

    def test_unknown_fields_are_listed_sorted(self):
        message = ("Unexpected fields in frontmatter: author, version. Only ['allowed-tools', "
                   "'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.")
        self.assertEqual(adapter.convert([message]), (["AS-FIELD-UNKNOWN"], ["author", "version"]))

    def test_codes_are_sorted_and_unique(self):
        messages = ["Skill name 'A_' must be lowercase",
                    "Skill name 'A_' contains invalid characters. Only letters, digits, and hyphens are allowed.",
                    "Skill name cannot start or end with a hyphen"]
        self.assertEqual(adapter.convert(messages), (["AS-NAME-CHARSET", "AS-NAME-HYPHEN-EDGE"], []))

    def test_an_unknown_message_is_an_error_not_a_guess(self):
        with self.assertRaises(adapter.Unmapped):
            adapter.convert(["Something new went wrong"])


if __name__ == "__main__":
    unittest.main()
