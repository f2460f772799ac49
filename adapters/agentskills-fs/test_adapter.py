"""The conversion table of adapter.py (agentskills-core validate_skill messages -> rule codes),
fed with messages the library was seen to return. Needs no library (any Python 3):
`python3 -m unittest discover -s adapters/agentskills-fs`."""

import unittest

import adapter

SEEN = {
    "Skill 'x': failed to read body — SKILL.md not found for skill 'x'": "AS-FILE-MISSING",
    "Skill 'x': failed to read body — 'utf-8' codec can't decode byte 0xff in position 40": "AS-FILE-ENCODING",
    "Skill 'x': failed to read metadata — object of type 'int' has no len()": "AS-EXTRA:metadata-error",
    "Skill 'x': body is empty": "AS-EXTRA:body-empty",
    "Skill 'x': metadata missing required 'name' field": "AS-NAME-MISSING",
    "Skill 'x': name exceeds 64 characters": "AS-NAME-TOO-LONG",
    "Skill 'x': name contains consecutive hyphens": "AS-NAME-HYPHEN-DOUBLE",
    "Skill 'x': name must be lowercase alphanumeric and hyphens, must not start or end with a hyphen": "AS-NAME-FORMAT",
    "Skill 'folder': metadata name 'other-name' does not match skill_id 'folder'": "AS-NAME-DIR-MISMATCH",
    "Skill 'x': metadata missing required 'description' field": "AS-DESCRIPTION-MISSING",
    "Skill 'x': description exceeds 1024 characters": "AS-DESCRIPTION-TOO-LONG",
    "Skill 'x': field 'license' must be str, got bool": "AS-LICENSE-TYPE",
    "Skill 'x': field 'compatibility' must be dict, got str": "AS-COMPATIBILITY-TYPE",
    "Skill 'x': field 'metadata' must be dict, got list": "AS-METADATA-TYPE",
    "Skill 'x': field 'allowed-tools' must be list, got str": "AS-ALLOWED-TOOLS-TYPE",
    "Skill 'unknown': version must be a quoted string, got int (2). Unquoted YAML reads 1.0 as a "
    "number and 2024-01-15 as a date — write version: \"1.0.0\"": "AS-EXTRA:version",
}


class ConversionTable(unittest.TestCase):
    def test_each_seen_message_has_its_code(self):
        for message, code in SEEN.items():
            with self.subTest(message=message):
                self.assertEqual(adapter.convert([message]), [code])

    def test_an_id_that_looks_like_a_rule_does_not_decide_the_code(self):
        message = "Skill 'name exceeds 64 characters': body is empty"
        self.assertEqual(adapter.convert([message]), ["AS-EXTRA:body-empty"])

    def test_an_unknown_message_is_an_error_not_a_guess(self):
        with self.assertRaises(adapter.Unmapped):
            adapter.convert(["Skill 'x': something new"])


if __name__ == "__main__":
    unittest.main()
