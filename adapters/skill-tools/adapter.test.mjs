// The conversion table of adapter.mjs (@skill-tools/core diagnostics -> rule codes), fed with
// diagnostics the library was seen to return. Needs no install: `node --test adapters/skill-tools/`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { convert } from "./adapter.mjs";

const error = (ruleId, message) => ({ ruleId, severity: "error", message });
const SEEN = [
  [error("file-readable", "Cannot read file: ENOENT: no such file or directory, open '/r/x/SKILL.md'"), "AS-FILE-MISSING"],
  [error("frontmatter-valid-yaml", "Invalid YAML frontmatter: unexpected end of the stream within a flow collection at line 4, column 1:\n    \n    ^"), "AS-YAML-INVALID"],
  [error("frontmatter-required", "SKILL.md must have YAML frontmatter between --- delimiters"), "AS-FENCE-MISSING"],
  [error("name-required", 'Frontmatter must contain a "name" field (required by spec)'), "AS-NAME-MISSING"],
  [error("name-type", 'Frontmatter "name" field must be a string'), "AS-NAME-TYPE"],
  [error("name-format", 'Skill name "Upper-case" is invalid. Must be 1-64 chars, lowercase letters, numbers, and hyphens only. Must not start or end with a hyphen'), "AS-NAME-FORMAT"],
  [error("name-format", 'Skill name "double--hyphen" contains consecutive hyphens (--), which is not allowed'), "AS-NAME-HYPHEN-DOUBLE"],
  [error("description-required", 'Frontmatter must contain a "description" field (required by spec)'), "AS-DESCRIPTION-MISSING"],
  [error("description-length", "Description exceeds max length (1025 chars). Must be at most 1,024 characters per spec"), "AS-DESCRIPTION-TOO-LONG"],
  [error("compatibility-length", "Compatibility field exceeds max length (501 chars). Must be at most 500 characters per spec"), "AS-COMPATIBILITY-TOO-LONG"],
  [error("license-type", 'Frontmatter "license" field must be a string'), "AS-LICENSE-TYPE"],
  [error("body-required", "SKILL.md must have markdown content after the frontmatter"), "AS-EXTRA:body-required"],
];

test("each seen error diagnostic has its code", () => {
  for (const [diagnostic, code] of SEEN) {
    assert.deepEqual(convert([diagnostic]), { violations: [code], warnings: [] }, diagnostic.message);
  }
});

test("warnings do not become violations but are listed", () => {
  const warning = { ruleId: "name-matches-directory", severity: "warning", message: 'Skill name "other-name" does not match directory name "folder"' };
  assert.deepEqual(convert([warning]), { violations: [], warnings: ["name-matches-directory"] });
});

test("an unknown error diagnostic is an error, not a guess", () => {
  assert.throws(() => convert([error("new-rule", "something new")]), /unmapped diagnostic/);
});
