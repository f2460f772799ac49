#!/usr/bin/env python3
"""skill-conform adapter for the Python port of toolnexus (protocol version 1).

Speaks the protocol in ../PROTOCOL.md: JSON Lines requests on stdin, one reply line per
request on stdout, free-form diagnostics on stderr. It calls only the *installed* toolnexus
package through its public API (``from toolnexus import list_skills, load_skills``); it
contains no toolnexus code. Run it with the interpreter of the venv that ``setup.sh``
prints, e.g. ``adapters/python/.cache/venv-0.21.0/bin/python adapters/python/adapter.py``.

CONVERSIONS — everything this adapter does to the port's values before they go on the wire.
Anything not listed is passed through as the port returned it (order, spelling, whitespace).

  1. ``SkillInfo.description is None``        → ``"description": null``.
  2. ``SkillSkip`` without a ``detail`` attribute (toolnexus ≤ 0.18.1 has none)
                                              → ``"detail": null``.
     A present ``detail`` is sent as is, including ``""`` (0.19+ uses ``""`` for "no parser
     message"); it is NOT turned into null.
  3. Field names: ``ToolResult.is_error`` → ``isError``, ``Tool.input_schema`` → ``inputSchema``
     (wire names only; values untouched). ``ToolResult.metadata``/``parts`` and
     ``SkillSource.skipped`` are not part of the protocol and are dropped.
  4. ``tool.execute`` is a coroutine in Python; the adapter awaits it on one event loop that
     lives as long as the process. ``loads[i].name`` echoes the requested name.
  5. An exception raised by the port (any ``BaseException`` except ``SystemExit`` and
     ``KeyboardInterrupt``; e.g. 0.21.0 raises ``UnicodeDecodeError`` on a SKILL.md that is not
     UTF-8) → ``{"case":…, "error":"<Type>: <message>"}`` (just ``<Type>`` when the message is
     empty). ``<Type>`` is the class name, prefixed by its module unless it is a builtin. The
     traceback goes to stderr.
  6. A reply that cannot be encoded (a string holding a lone surrogate, which is how Python
     represents a file name that is not valid UTF-8, or a value JSON cannot express) →
     ``{"case":…, "error":"adapter: cannot encode reply: …"}``. The ``adapter:`` prefix marks it
     as the adapter's limit, not the port's behaviour.

Inputs go to the port unchanged: ``roots`` as a ``list[str]`` (never a bare ``str``),
``filter`` as the ``dict[str, bool]`` received (``{}`` stays ``{}``), ``sampleLimit`` as the
``int`` received (0, n, -1 or anything else), each ``load`` name as ``{"name": n}``.

STREAMS. At start-up the adapter keeps a private duplicate of file descriptor 1 for protocol
replies and points fd 1 (and ``sys.stdout``) at stderr, so nothing the library prints — from
Python or from C — can reach the protocol stream. Likewise it keeps a private duplicate of
fd 0 and points fd 0 at /dev/null, so the library cannot consume requests.

Feature tests, not version checks, decide what an older port lacks (``detail``; a sync or
async ``execute``; ``prompt`` as a method or a string).
"""

from __future__ import annotations

import os
import sys

# --- streams: done before anything else is imported, so even import-time output is diverted.
_PROTO_OUT_FD = os.dup(1)  # dup'd fds are non-inheritable: child processes never see them
_PROTO_IN_FD = os.dup(0)
os.dup2(2, 1)
_devnull = os.open(os.devnull, os.O_RDONLY)
os.dup2(_devnull, 0)
os.close(_devnull)
sys.stdout = sys.stderr

import asyncio  # noqa: E402
import importlib.metadata  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import traceback  # noqa: E402
from typing import Any  # noqa: E402

PROTOCOL = 1
PORT = "python"
LIBRARY = "toolnexus"

_proto_out = open(_PROTO_OUT_FD, "wb", closefd=True)  # buffered; flushed after every reply
_proto_in = open(_PROTO_IN_FD, "rb", closefd=True)


class BadRequest(Exception):
    """The request line itself is wrong: the reply carries no case id."""


def send(obj: dict[str, Any]) -> None:
    line = json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8") + b"\n"
    _proto_out.write(line)
    _proto_out.flush()


def describe(exc: BaseException) -> str:
    cls = type(exc)
    name = cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    msg = str(exc)
    return f"{name}: {msg}" if msg else name


def log(msg: str) -> None:
    sys.stderr.write(f"[adapter-python] {msg}\n")
    sys.stderr.flush()


# --- the library, imported on first use (hello or run) so an import failure is a reply.

_lib: Any = None


def library() -> Any:
    global _lib
    if _lib is None:
        import toolnexus  # noqa: PLC0415

        if not (hasattr(toolnexus, "list_skills") and hasattr(toolnexus, "load_skills")):
            raise ImportError("toolnexus has no list_skills/load_skills")
        _lib = toolnexus
    return _lib


def library_version() -> str:
    try:
        return importlib.metadata.version(LIBRARY)
    except importlib.metadata.PackageNotFoundError:
        return str(getattr(library(), "__version__", "unknown"))


def verdict_libraries() -> dict[str, str]:
    """hello's `libraries`: the versions of what decides verdicts, the YAML library first."""
    found = {}
    for dist in ("PyYAML",):
        try:
            found[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            found[dist] = "not installed"
    return found


# --- requests

def field(req: dict[str, Any], key: str, kind: type, what: str) -> Any:
    if key not in req:
        raise BadRequest(f"run: missing field {key!r}")
    value = req[key]
    # bool is an int subclass in Python; keep the two apart.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BadRequest(f"run: field {key!r} must be {what}, got {json.dumps(value, ensure_ascii=False)[:80]}")
    return value


def parse_run(req: dict[str, Any]) -> dict[str, Any]:
    case = field(req, "case", str, "a string")
    roots = field(req, "roots", list, "an array of strings")
    if not all(isinstance(r, str) for r in roots):
        raise BadRequest("run: field 'roots' must be an array of strings")
    sample_limit = field(req, "sampleLimit", int, "an integer")
    flt = field(req, "filter", dict, "an object of booleans")
    if not all(isinstance(v, bool) for v in flt.values()):
        raise BadRequest("run: field 'filter' must map names to booleans")
    load = field(req, "load", list, "an array of strings")
    if not all(isinstance(n, str) for n in load):
        raise BadRequest("run: field 'load' must be an array of strings")
    tool = field(req, "tool", bool, "a boolean")
    return {"case": case, "roots": roots, "sampleLimit": sample_limit, "filter": flt, "load": load, "tool": tool}


_MISSING = object()


def skill_entry(info: Any) -> dict[str, Any]:
    return {"name": info.name, "description": info.description, "location": info.location}


def skip_entry(skip: Any) -> dict[str, Any]:
    detail = getattr(skip, "detail", _MISSING)
    return {
        "location": skip.location,
        "reason": skip.reason,
        "detail": None if detail is _MISSING else detail,
    }


def run_case(run: dict[str, Any], loop: asyncio.Runner) -> dict[str, Any]:
    tn = library()
    roots = list(run["roots"])

    inv = tn.list_skills(roots)
    inventory = {
        "skills": [skill_entry(s) for s in inv.skills],
        "skipped": [skip_entry(s) for s in inv.skipped],
    }

    src = tn.load_skills(roots, filter=dict(run["filter"]), sample_limit=run["sampleLimit"])

    loads = []
    for name in run["load"]:
        result = src.tool.execute({"name": name})
        if inspect.isawaitable(result):
            result = loop.run(_await(result))
        loads.append({"name": name, "isError": result.is_error, "output": result.output})

    prompt = src.prompt() if callable(src.prompt) else src.prompt

    reply: dict[str, Any] = {"case": run["case"], "inventory": inventory, "loads": loads, "prompt": prompt}
    if run["tool"]:
        t = src.tool
        reply["tool"] = {"name": t.name, "description": t.description, "inputSchema": t.input_schema}
    return reply


async def _await(awaitable: Any) -> Any:
    return await awaitable


def handle(line: bytes, loop: asyncio.Runner) -> bool:
    """Answer one request line. Returns False when the adapter should exit."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        send({"error": f"request is not UTF-8: {e}"})
        return True
    if not text.strip():
        return True  # blank lines are not requests; nothing to answer
    try:
        req = json.loads(text)
    except ValueError as e:
        send({"error": f"request is not JSON: {e}"})
        return True
    if not isinstance(req, dict):
        send({"error": "request is not a JSON object"})
        return True

    cmd = req.get("cmd")
    if cmd == "bye":
        return False
    if cmd == "hello":
        proto = req.get("protocol")
        if proto != PROTOCOL or isinstance(proto, bool):
            send({"error": f"unsupported protocol {json.dumps(proto)}; this adapter speaks {PROTOCOL}"})
            return True
        try:
            version = library_version()
            library()
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException as e:  # noqa: BLE001
            traceback.print_exc()
            send({"error": f"cannot load {LIBRARY}: {describe(e)}"})
            return True
        send({
            "protocol": PROTOCOL,
            "port": PORT,
            "library": LIBRARY,
            "version": version,
            "runtime": f"{platform.python_implementation()} {platform.python_version()}",
            "libraries": verdict_libraries(),
        })
        return True
    if cmd != "run":
        send({"error": f"unknown cmd {json.dumps(cmd, ensure_ascii=False)}"})
        return True

    try:
        run = parse_run(req)
    except BadRequest as e:
        send({"error": str(e)})
        return True

    case = run["case"]
    try:
        reply = run_case(run, loop)
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as e:  # noqa: BLE001 — every port failure is an outcome, not a crash
        log(f"case {case}: the port raised")
        traceback.print_exc()
        reply = {"case": case, "error": describe(e)}
    finally:
        sys.stdout.flush()

    try:
        send(reply)
    except (TypeError, ValueError) as e:  # includes UnicodeEncodeError
        log(f"case {case}: reply not encodable")
        traceback.print_exc()
        send({"case": case, "error": f"adapter: cannot encode reply: {describe(e)}"})
    return True


def main() -> int:
    with asyncio.Runner() as loop:
        while True:
            line = _proto_in.readline()
            if not line:
                return 0  # EOF: the runner is gone or done
            if not handle(line, loop):
                return 0


if __name__ == "__main__":
    sys.exit(main())
