#!/usr/bin/env python3
"""skill-conform adapter (profile `agentskills`) for the Agent Skills reference library in Python:
PyPI `skills-ref` (import `skills_ref`), and, with `--port skills-ref-rs`, its Rust/PyO3 port
PyPI `skills-ref-rs` (import `skills_ref_rs`), which has the same API and the same messages.

Speaks adapters/PROTOCOL.md, section "Profiles". Calls the library's API only:
`validate(dir)` -> list of messages (the verdict and the violations), `read_properties(dir)` (the
properties; it raises for a file it refuses, then `properties` is null) and `to_prompt(dirs)`.

Conversions (everything the adapter changes between the library and the wire):

  MESSAGES below    each message of `validate` becomes one rule code; the first pattern that
                    matches wins. A message no pattern matches is NOT dropped or guessed: the
                    case gets an error reply starting `adapter: unmapped message:`.
  unknownFields     parsed from the "Unexpected fields in frontmatter: a, b." message.
  properties        read_properties' fields as the library holds them (`allowed_tools` is sent
                    as `allowed-tools`); values are not re-typed. An empty `metadata` ({}, the
                    library's default for an absent field) is sent as null, the profile's absent.
  verdict           `valid` exactly when `validate` returned no message.
  promptError       sent instead of `prompt` when `to_prompt` raised (it raises for a skill whose
                    properties it refuses); the skill reports of the case still stand.
"""

import json
import os
import re
import sys
from pathlib import Path

# (pattern matched with re.match against one message, rule code)
MESSAGES = [
    (r"Missing required file: SKILL\.md", "AS-FILE-MISSING"),
    (r"Failed to read .*: stream did not contain valid UTF-8", "AS-FILE-ENCODING"),
    (r"SKILL\.md must start with YAML frontmatter", "AS-FENCE-MISSING"),
    (r"SKILL\.md frontmatter not properly closed", "AS-FENCE-UNCLOSED"),
    (r"Invalid YAML in frontmatter: .*must be a YAML mapping", "AS-YAML-NOT-MAPPING"),
    (r"Invalid YAML in frontmatter", "AS-YAML-INVALID"),
    (r"SKILL\.md frontmatter must be a YAML mapping", "AS-YAML-NOT-MAPPING"),
    (r"Unexpected fields in frontmatter", "AS-FIELD-UNKNOWN"),
    (r"Missing required field in frontmatter: name$", "AS-NAME-MISSING"),
    (r"Field 'name' must be a non-empty string", "AS-NAME-EMPTY"),
    (r"Skill name '.*' exceeds \d+ character limit", "AS-NAME-TOO-LONG"),
    (r"Skill name '.*' must be lowercase", "AS-NAME-CHARSET"),
    (r"Skill name '.*' contains invalid characters", "AS-NAME-CHARSET"),
    (r"Skill name cannot start or end with a hyphen", "AS-NAME-HYPHEN-EDGE"),
    (r"Skill name cannot contain consecutive hyphens", "AS-NAME-HYPHEN-DOUBLE"),
    (r"Directory name '.*' must match skill name", "AS-NAME-DIR-MISMATCH"),
    (r"Missing required field in frontmatter: description$", "AS-DESCRIPTION-MISSING"),
    (r"Field 'description' must be a non-empty string", "AS-DESCRIPTION-EMPTY"),
    (r"Description exceeds \d+ character limit", "AS-DESCRIPTION-TOO-LONG"),
    (r"Field 'compatibility' must be a string", "AS-COMPATIBILITY-TYPE"),
    (r"Compatibility exceeds \d+ character limit", "AS-COMPATIBILITY-TOO-LONG"),
]

UNKNOWN_FIELDS = re.compile(r"Unexpected fields in frontmatter: (.*?)\. Only ", re.S)

CAPABILITIES = ["validate", "unknown-fields", "properties", "prompt"]


class Unmapped(Exception):
    """A library message the conversion table does not cover."""


def convert(messages):
    """Messages of `validate` -> (sorted unique rule codes, sorted unknown field names)."""
    codes, unknown = set(), set()
    for message in messages:
        code = next((c for p, c in MESSAGES if re.match(p, message, re.S)), None)
        if code is None:
            raise Unmapped(message)
        codes.add(code)
        found = UNKNOWN_FIELDS.match(message)
        if found:
            unknown.update(f for f in found.group(1).split(", ") if f)
    return sorted(codes), sorted(unknown)


def properties_of(props):
    """The wire `properties` of a SkillProperties (attributes as the library holds them)."""
    return {
        "name": getattr(props, "name", None),
        "description": getattr(props, "description", None),
        "license": getattr(props, "license", None),
        "compatibility": getattr(props, "compatibility", None),
        "metadata": getattr(props, "metadata", None) or None,
        "allowed-tools": getattr(props, "allowed_tools", None),
    }


def check(lib, path):
    """One skill directory: the protocol's skill report, without `dir`."""
    violations, unknown = convert(lib.validate(Path(path)))
    try:
        properties = properties_of(lib.read_properties(Path(path)))
    except lib.SkillError:
        properties = None
    return {
        "verdict": "invalid" if violations else "valid",
        "violations": violations,
        "unknownFields": unknown,
        "properties": properties,
    }


def run(lib, request):
    root = request["roots"][0]
    skills = [dict(dir=d, **check(lib, os.path.join(root, d))) for d in request["skills"]]
    reply = {"case": request["case"], "skills": skills}
    try:
        reply["prompt"] = lib.to_prompt([Path(os.path.join(root, d)) for d in request["prompt"]])
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - the prompt part failed, the reports stand
        reply["promptError"] = f"{type(exc).__name__}: {exc}"
    return reply


def hello(lib, module, port, request):
    import importlib.metadata as md
    import platform

    if request.get("protocol") != 1:
        return {"error": f"hello: protocol {request.get('protocol')!r} not spoken (1 is)"}
    dist = {"skills_ref": "skills-ref", "skills_ref_rs": "skills-ref-rs"}[module]
    libraries = {}
    for name in ("strictyaml", "ruamel.yaml"):
        try:
            libraries[name] = md.version(name)
        except md.PackageNotFoundError:
            pass
    reply = {
        "protocol": 1,
        "port": port,
        "library": dist,
        "version": md.version(dist),
        "runtime": f"{platform.python_implementation()} {platform.python_version()}",
        "profiles": {"agentskills": CAPABILITIES},
    }
    if libraries:
        reply["libraries"] = libraries
    return reply


def serve(module, port):
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # library output goes to stderr, never to the reply stream
    try:
        lib = __import__(module)
    except BaseException as exc:  # noqa: BLE001 - reported in hello
        lib, load_error = None, f"cannot load {module}: {type(exc).__name__}: {exc}"
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as exc:
            reply = {"error": f"not JSON: {exc}"}
        else:
            reply = answer(lib, module, port, request, None if lib else load_error)
        if reply is None:
            break
        replies.write(json.dumps(reply, ensure_ascii=False, default=repr) + "\n")
        replies.flush()


def answer(lib, module, port, request, load_error):
    """The reply to one request; None for `bye`."""
    if not isinstance(request, dict):
        return {"error": "request is not an object"}
    cmd = request.get("cmd")
    if cmd == "bye":
        return None
    if load_error:
        return {"error": load_error}
    if cmd == "hello":
        return hello(lib, module, port, request)
    if cmd != "run":
        return {"error": f"unknown cmd {cmd!r}"}
    if request.get("profile") != "agentskills":
        return {"error": f"run: profile {request.get('profile')!r} not spoken (agentskills is)"}
    try:
        return run(lib, request)
    except Unmapped as exc:
        return {"case": request.get("case"), "error": f"adapter: unmapped message: {exc}"}
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - one bad case never stops the adapter
        return {"case": request.get("case"), "error": f"{type(exc).__name__}: {exc}"}


if __name__ == "__main__":
    port = "skills-ref-py"
    if sys.argv[1:3] == ["--port", "skills-ref-rs"]:
        port = "skills-ref-rs"
    serve({"skills-ref-py": "skills_ref", "skills-ref-rs": "skills_ref_rs"}[port], port)
