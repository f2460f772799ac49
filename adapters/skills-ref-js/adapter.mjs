// skill-conform adapter (profile `agentskills`) for npm `skills-ref`, the TypeScript port of the
// Agent Skills reference library. Usage: node adapters/skills-ref-js/adapter.mjs PREFIX, where
// PREFIX is what setup.sh printed (its node_modules holds skills-ref).
//
// Calls the library's API only: validate(dir) -> messages (verdict and violations),
// readProperties(dir) (properties; it throws for a file it refuses, then `properties` is null),
// toPrompt(dirs).
//
// Conversions (everything the adapter changes between the library and the wire):
//   MESSAGES      each message of validate() becomes one rule code, first matching row wins; a
//                 message no row matches makes the case an error reply `adapter: unmapped message`.
//                 js-yaml wraps its own "must be a YAML mapping" error in "Invalid YAML in
//                 frontmatter: ParseError: ...", so that row comes before the generic one.
//   unknownFields parsed from "Unexpected fields in frontmatter: a, b. Only ...".
//   properties    readProperties' fields as held (allowedTools is sent as `allowed-tools`); an
//                 empty metadata object (the library's default when absent) is sent as null.
//   verdict       `valid` exactly when validate() returned no message.
//   promptError   sent instead of `prompt` when toPrompt() threw; the reports still stand.

import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";
import { convertWith, serve } from "../lib/agentskills-serve.mjs";

export const MESSAGES = [
  [/^Missing required file: SKILL\.md/, "AS-FILE-MISSING"],
  [/^SKILL\.md must start with YAML frontmatter/, "AS-FENCE-MISSING"],
  [/^SKILL\.md frontmatter not properly closed/, "AS-FENCE-UNCLOSED"],
  [/^Invalid YAML in frontmatter: .*must be a YAML mapping/s, "AS-YAML-NOT-MAPPING"],
  [/^Invalid YAML in frontmatter/, "AS-YAML-INVALID"],
  [/^SKILL\.md frontmatter must be a YAML mapping/, "AS-YAML-NOT-MAPPING"],
  [/^Unexpected fields in frontmatter/, "AS-FIELD-UNKNOWN"],
  [/^Missing required field in frontmatter: name$/, "AS-NAME-MISSING"],
  [/^Field 'name' must be a non-empty string/, "AS-NAME-EMPTY"],
  [/^Skill name '.*' exceeds \d+ character limit/s, "AS-NAME-TOO-LONG"],
  [/^Skill name '.*' must be lowercase/s, "AS-NAME-CHARSET"],
  [/^Skill name '.*' contains invalid characters/s, "AS-NAME-CHARSET"],
  [/^Skill name cannot start or end with a hyphen/, "AS-NAME-HYPHEN-EDGE"],
  [/^Skill name cannot contain consecutive hyphens/, "AS-NAME-HYPHEN-DOUBLE"],
  [/^Directory name '.*' must match skill name/s, "AS-NAME-DIR-MISMATCH"],
  [/^Missing required field in frontmatter: description$/, "AS-DESCRIPTION-MISSING"],
  [/^Field 'description' must be a non-empty string/, "AS-DESCRIPTION-EMPTY"],
  [/^Description exceeds \d+ character limit/, "AS-DESCRIPTION-TOO-LONG"],
  [/^Field 'compatibility' must be a string/, "AS-COMPATIBILITY-TYPE"],
  [/^Compatibility exceeds \d+ character limit/, "AS-COMPATIBILITY-TOO-LONG"],
];

const UNKNOWN_FIELDS = /^Unexpected fields in frontmatter: (.*?)\. Only /s;

/** validate() messages -> { violations, unknownFields }, both sorted, unique. Throws on a gap. */
export function convert(messages) {
  const codes = new Set();
  const unknown = new Set();
  for (const message of messages) {
    const code = convertWith(MESSAGES, message);
    if (code === null) throw new Error(`adapter: unmapped message: ${message}`);
    codes.add(code);
    const found = UNKNOWN_FIELDS.exec(message);
    if (found) for (const f of found[1].split(", ")) if (f) unknown.add(f);
  }
  const byCodePoint = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  return { violations: [...codes].sort(byCodePoint), unknownFields: [...unknown].sort(byCodePoint) };
}

function propertiesOf(p) {
  return {
    name: p.name ?? null,
    description: p.description ?? null,
    license: p.license ?? null,
    compatibility: p.compatibility ?? null,
    metadata: p.metadata && Object.keys(p.metadata).length ? p.metadata : null,
    "allowed-tools": p.allowedTools ?? null,
  };
}

async function main(prefix) {
  const pkg = join(prefix, "node_modules", "skills-ref");
  const lib = await import(pathToFileURL(join(pkg, "dist", "index.js")).href);
  const version = (p) => JSON.parse(readFileSync(join(p, "package.json"), "utf8")).version;
  const yamlDir = [join(pkg, "node_modules", "js-yaml"), join(prefix, "node_modules", "js-yaml")];
  const yamlVersion = yamlDir.map((d) => { try { return version(d); } catch { return null; } }).find(Boolean);
  await serve({
    hello: async () => ({
      protocol: 1, port: "skills-ref-js", library: "skills-ref", version: version(pkg),
      runtime: `Node ${process.versions.node}`, libraries: yamlVersion ? { "js-yaml": yamlVersion } : undefined,
      profiles: { agentskills: ["validate", "unknown-fields", "properties", "prompt"] },
    }),
    run: async (request) => {
      const root = request.roots[0];
      const skills = [];
      for (const dir of request.skills) {
        const path = join(root, dir);
        const converted = convert(await lib.validate(path));
        let properties = null;
        try { properties = propertiesOf(await lib.readProperties(path)); } catch (e) { if (!(e instanceof lib.SkillError)) throw e; }
        skills.push({ dir, verdict: converted.violations.length ? "invalid" : "valid", ...converted, properties });
      }
      const reply = { case: request.case, skills };
      try { reply.prompt = await lib.toPrompt(request.prompt.map((d) => join(root, d))); } catch (e) { reply.promptError = `${e.name}: ${e.message}`; }
      return reply;
    },
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv[2]);
