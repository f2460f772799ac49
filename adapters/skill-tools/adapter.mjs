// skill-conform adapter (profile `agentskills`) for npm `@skill-tools/core`. Usage:
// node adapters/skill-tools/adapter.mjs PREFIX, where PREFIX is what setup.sh printed.
//
// Calls the library's API only: parseSkill(<dir>/SKILL.md) -> { ok, skill, diagnostics }.
// Capabilities (hello): `validate` and `properties`. NOT offered, and said so in hello: `prompt`
// (the package has no <available_skills> function) and `unknown-fields` (it keeps unknown keys
// without reporting them), so the reply carries neither `prompt` nor `unknownFields`.
//
// Conversions (everything the adapter changes between the library and the wire):
//   verdict      `valid` exactly when parseSkill's `ok` is true (warnings do not make it invalid).
//   DIAGNOSTICS  each diagnostic of severity `error` becomes one rule code by its ruleId (and,
//                where one ruleId has several messages, its message), first matching row wins.
//                `name-format`'s combined message (length, characters and edge hyphens in one
//                regular expression) becomes the umbrella code AS-NAME-FORMAT; an error with no
//                profile rule (body-required, file-reference-exists) becomes `AS-EXTRA:<ruleId>`.
//                An error no row matches makes the case an error reply `adapter: unmapped`.
//   warnings     the ruleIds of `warning`/`info` diagnostics, sorted (reported, never compared).
//   properties   skill.metadata's six fields as held; null when `ok` is false (no skill).

import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";
import { serve } from "../lib/agentskills-serve.mjs";

// [ruleId, message pattern or null, rule code]
export const DIAGNOSTICS = [
  ["file-readable", /ENOENT/, "AS-FILE-MISSING"],
  ["file-not-empty", null, "AS-FENCE-MISSING"],
  ["frontmatter-valid-yaml", null, "AS-YAML-INVALID"],
  ["frontmatter-required", null, "AS-FENCE-MISSING"],
  ["name-type", null, "AS-NAME-TYPE"],
  ["name-required", null, "AS-NAME-MISSING"],
  ["name-format", /contains consecutive hyphens/, "AS-NAME-HYPHEN-DOUBLE"],
  ["name-format", /is invalid\. Must be 1-64 chars/, "AS-NAME-FORMAT"],
  ["description-type", null, "AS-DESCRIPTION-TYPE"],
  ["description-required", null, "AS-DESCRIPTION-MISSING"],
  ["description-length", /exceeds max length/, "AS-DESCRIPTION-TOO-LONG"],
  ["compatibility-type", null, "AS-COMPATIBILITY-TYPE"],
  ["compatibility-length", null, "AS-COMPATIBILITY-TOO-LONG"],
  ["license-type", null, "AS-LICENSE-TYPE"],
  ["body-required", null, "AS-EXTRA:body-required"],
  ["file-reference-exists", null, "AS-EXTRA:file-reference-exists"],
];

const byCodePoint = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/** Diagnostics -> { violations, warnings }, both sorted and unique. Throws on a gap. */
export function convert(diagnostics) {
  const codes = new Set();
  const warnings = new Set();
  for (const d of diagnostics) {
    if (d.severity !== "error") {
      warnings.add(d.ruleId);
      continue;
    }
    const row = DIAGNOSTICS.find(([id, pattern]) => id === d.ruleId && (!pattern || pattern.test(d.message)));
    if (!row) throw new Error(`adapter: unmapped diagnostic ${d.ruleId}: ${d.message}`);
    codes.add(row[2]);
  }
  return { violations: [...codes].sort(byCodePoint), warnings: [...warnings].sort(byCodePoint) };
}

function propertiesOf(m) {
  return {
    name: m.name ?? null,
    description: m.description ?? null,
    license: m.license ?? null,
    compatibility: m.compatibility ?? null,
    metadata: m.metadata ?? null,
    "allowed-tools": m["allowed-tools"] ?? null,
  };
}

async function main(prefix) {
  const pkg = join(prefix, "node_modules", "@skill-tools", "core");
  const lib = await import(pathToFileURL(join(pkg, "dist", "index.js")).href);
  const version = (p) => { try { return JSON.parse(readFileSync(join(p, "package.json"), "utf8")).version; } catch { return undefined; } };
  await serve({
    hello: async () => ({
      protocol: 1, port: "skill-tools", library: "@skill-tools/core", version: version(pkg),
      runtime: `Node ${process.versions.node}`,
      libraries: { "gray-matter": version(join(prefix, "node_modules", "gray-matter")), "js-yaml": version(join(prefix, "node_modules", "js-yaml")) },
      profiles: { agentskills: ["validate", "properties"] },
    }),
    run: async (request) => {
      const root = request.roots[0];
      const skills = [];
      for (const dir of request.skills) {
        const result = await lib.parseSkill(join(root, dir, "SKILL.md"));
        const { violations, warnings } = convert(result.diagnostics);
        skills.push({
          dir, verdict: result.ok ? "valid" : "invalid", violations, warnings,
          properties: result.ok ? propertiesOf(result.skill.metadata) : null,
        });
      }
      return { case: request.case, skills };
    },
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv[2]);
