// The conversion table of adapter.mjs (skills-ref messages -> rule codes), fed with messages the
// library was seen to return. Needs no install: `node --test adapters/skills-ref-js/`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { convert } from "./adapter.mjs";

const SEEN = {
  "Missing required file: SKILL.md": "AS-FILE-MISSING",
  "SKILL.md must start with YAML frontmatter (---)": "AS-FENCE-MISSING",
  "SKILL.md frontmatter not properly closed with ---": "AS-FENCE-UNCLOSED",
  "Invalid YAML in frontmatter: YAMLException: unexpected end of the stream within a flow collection (4:1)\n\n 1 | \n 2 | name: invalid\n 3 | description: [unterminated\n 4 | \n-----^": "AS-YAML-INVALID",
  "Invalid YAML in frontmatter: ParseError: SKILL.md frontmatter must be a YAML mapping": "AS-YAML-NOT-MAPPING",
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
  "Description exceeds 1024 character limit (2048 chars)": "AS-DESCRIPTION-TOO-LONG",
  "Compatibility exceeds 500 character limit (501 chars)": "AS-COMPATIBILITY-TOO-LONG",
};

test("each seen message has its code", () => {
  for (const [message, code] of Object.entries(SEEN)) {
    assert.deepEqual(convert([message]), { violations: [code], unknownFields: [] }, message);
  }
});

test("unknown fields are listed sorted", () => {
  const message = "Unexpected fields in frontmatter: author, version. Only allowed-tools, compatibility, description, license, metadata, name are allowed.";
  assert.deepEqual(convert([message]), { violations: ["AS-FIELD-UNKNOWN"], unknownFields: ["author", "version"] });
});

test("an unknown message is an error, not a guess", () => {
  assert.throws(() => convert(["Something new went wrong"]), /unmapped message/);
});
