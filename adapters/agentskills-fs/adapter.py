#!/usr/bin/env python3
"""skill-conform adapter (profile `agentskills`) for PyPI `agentskills-core` + `agentskills-fs`
(Python >= 3.12). Speaks adapters/PROTOCOL.md, section "Profiles".

Calls the libraries' API only, per case with a fresh `LocalFileSystemSkillProvider(root)`:
`validate_skill(Skill(dir, provider))` -> messages (verdict and violations),
`provider.get_metadata(dir)` (properties) and, for the prompt, `SkillRegistry.register([...])` of
the requested skills then `get_skills_catalog(format="xml")`. Capabilities: `validate`,
`properties`, `prompt`; NOT `unknown-fields` (the library only logs unknown keys), so the reply
carries no `unknownFields`.

Conversions (everything the adapter changes between the library and the wire):

  MESSAGES      each message (after its "Skill '<id>': " prefix) becomes one rule code, the first
                pattern that matches wins. The library's one combined message for characters and
                edge hyphens becomes the umbrella code AS-NAME-FORMAT; an error with no profile
                rule becomes `AS-EXTRA:<what>`. A message no pattern matches makes the case an
                error reply starting `adapter: unmapped message:`.
  verdict       `valid` exactly when validate_skill returned no message.
  properties    get_metadata's six fields as held (values are not re-typed; a value JSON cannot
                hold is sent as its Python repr); null when get_metadata raised
                (validate_skill's messages carry the cause).
  promptError   sent instead of `prompt` when registering or the catalogue raised (registration
                of a batch is all-or-nothing); the skill reports still stand.
"""

import asyncio
import json
import os
import re
import sys

MESSAGES = [
    (r"failed to read body — .*SKILL\.md not found", "AS-FILE-MISSING"),
    (r"failed to read body — .*codec can't decode", "AS-FILE-ENCODING"),
    (r"failed to read metadata — .*SKILL\.md not found", "AS-FILE-MISSING"),
    (r"failed to read metadata — .*codec can't decode", "AS-FILE-ENCODING"),
    (r"failed to read metadata — ", "AS-EXTRA:metadata-error"),
    (r"body is empty", "AS-EXTRA:body-empty"),
    (r"metadata missing required 'name' field", "AS-NAME-MISSING"),
    (r"name exceeds \d+ characters", "AS-NAME-TOO-LONG"),
    (r"name contains consecutive hyphens", "AS-NAME-HYPHEN-DOUBLE"),
    (r"name must be lowercase alphanumeric and hyphens", "AS-NAME-FORMAT"),
    (r"metadata name '.*' does not match skill_id", "AS-NAME-DIR-MISMATCH"),
    (r"metadata missing required 'description' field", "AS-DESCRIPTION-MISSING"),
    (r"description exceeds \d+ characters", "AS-DESCRIPTION-TOO-LONG"),
    (r"field 'license' must be", "AS-LICENSE-TYPE"),
    (r"field 'compatibility' must be", "AS-COMPATIBILITY-TYPE"),
    (r"field 'metadata' must be", "AS-METADATA-TYPE"),
    (r"field 'allowed-tools' must be", "AS-ALLOWED-TOOLS-TYPE"),
    (r"field '(when_to_use|when_not_to_use)'", "AS-EXTRA:selection-fields"),
    (r".*(when_to_use|when_not_to_use)", "AS-EXTRA:selection-fields"),
    (r"version (must be|'.*' is not valid semver)", "AS-EXTRA:version"),
]

PREFIX = re.compile(r"Skill '.*?': ", re.S)
CAPABILITIES = ["validate", "properties", "prompt"]
FIELDS = ["name", "description", "license", "compatibility", "metadata", "allowed-tools"]


class Unmapped(Exception):
    """A library message the conversion table does not cover."""


def convert(messages):
    """Messages of validate_skill -> sorted unique rule codes."""
    codes = set()
    for message in messages:
        text = PREFIX.sub("", message, count=1)
        code = next((c for p, c in MESSAGES if re.match(p, text, re.S)), None)
        if code is None:
            raise Unmapped(message)
        codes.add(code)
    return sorted(codes)


async def check(core, provider, skill_id):
    violations = convert(await core.validate_skill(core.Skill(skill_id, provider)))
    try:
        metadata = await provider.get_metadata(skill_id)
        properties = {f: metadata.get(f) for f in FIELDS} if isinstance(metadata, dict) else None
    except Exception:  # noqa: BLE001 - e.g. UnicodeDecodeError; validate_skill reports the cause
        properties = None
    return {
        "dir": skill_id,
        "verdict": "invalid" if violations else "valid",
        "violations": violations,
        "properties": properties,
    }


async def run(core, fs, request):
    from pathlib import Path

    provider = fs.LocalFileSystemSkillProvider(Path(request["roots"][0]))
    skills = [await check(core, provider, d) for d in request["skills"]]
    reply = {"case": request["case"], "skills": skills}
    try:
        registry = core.SkillRegistry()
        if request["prompt"]:
            await registry.register([(d, provider) for d in request["prompt"]])
        reply["prompt"] = await registry.get_skills_catalog(format="xml")
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - the prompt part failed, the reports stand
        reply["promptError"] = f"{type(exc).__name__}: {exc}"
    return reply


def hello(request):
    import importlib.metadata as md
    import platform

    if request.get("protocol") != 1:
        return {"error": f"hello: protocol {request.get('protocol')!r} not spoken (1 is)"}
    return {
        "protocol": 1,
        "port": "agentskills-fs",
        "library": "agentskills-fs",
        "version": md.version("agentskills-fs"),
        "runtime": f"{platform.python_implementation()} {platform.python_version()}",
        "libraries": {"PyYAML": md.version("PyYAML"), "agentskills-core": md.version("agentskills-core")},
        "profiles": {"agentskills": CAPABILITIES},
    }


def answer(libs, request):
    """The reply to one request; None for `bye`."""
    if not isinstance(request, dict):
        return {"error": "request is not an object"}
    cmd = request.get("cmd")
    if cmd == "bye":
        return None
    if isinstance(libs, str):
        return {"error": libs}
    if cmd == "hello":
        return hello(request)
    if cmd != "run":
        return {"error": f"unknown cmd {cmd!r}"}
    if request.get("profile") != "agentskills":
        return {"error": f"run: profile {request.get('profile')!r} not spoken (agentskills is)"}
    try:
        return asyncio.run(run(*libs, request))
    except Unmapped as exc:
        return {"case": request.get("case"), "error": f"adapter: unmapped message: {exc}"}
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - one bad case never stops the adapter
        return {"case": request.get("case"), "error": f"{type(exc).__name__}: {exc}"}


def serve():
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # library output goes to stderr, never to the reply stream
    try:
        import agentskills_core
        import agentskills_fs

        libs = (agentskills_core, agentskills_fs)
    except BaseException as exc:  # noqa: BLE001 - reported in hello
        libs = f"cannot load agentskills-fs: {type(exc).__name__}: {exc}"
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = answer(libs, json.loads(line))
        except ValueError as exc:
            reply = {"error": f"not JSON: {exc}"}
        if reply is None:
            break
        replies.write(json.dumps(reply, ensure_ascii=False, default=repr) + "\n")
        replies.flush()


if __name__ == "__main__":
    serve()
