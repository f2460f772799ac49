#!/usr/bin/env node
// skill-conform adapter for the JavaScript port of toolnexus (protocol version 1).
//
// Speaks ../PROTOCOL.md: JSON Lines requests on stdin, one reply line per request on stdout,
// free-form diagnostics on stderr. It calls only an installed toolnexus package through its
// public API (listSkills / loadSkills) and contains no toolnexus code.
//
//   node adapters/js/adapter.mjs PKGDIR
//
// PKGDIR is the toolnexus package folder (the one holding its package.json and dist/), as
// printed by setup.sh on its last stdout line. Without an argument, $TOOLNEXUS_JS_PKG is used.
// The adapter imports PKGDIR/dist/skill.js when it exists (that module needs only `yaml`, so
// the MCP SDK is never loaded), else the package's main entry (PKGDIR/dist/index.js).
//
// CONVERSIONS: everything this adapter does to the port's values before they go on the wire.
// Anything not listed is passed through as the port returned it (order, spelling, whitespace).
//
//   1. SkillInfo.description === undefined (the port leaves the key out when there is none)
//                                             → "description": null. null stays null; "" stays "".
//   2. A SkillSkip without a `detail` key (every JS release read so far; newer ones may set it
//      on malformed/unreadable only) or with detail === undefined → "detail": null. A present
//      detail is sent as is, including "".
//   3. tool.execute returns a Promise; it is awaited. ToolResult.metadata and Tool.source are not
//      part of the protocol and are dropped. isError / inputSchema already carry the wire names.
//      loads[i].name echoes the requested name.
//   4. src.prompt is called when it is a function, sent as is when it is a string (feature test).
//   5. Anything thrown or rejected by the port (Error or not) → {"case":…,"error":"<name>: <message>"}
//      where <name> is err.name (e.g. TypeError, YAMLParseError); a non-Error value is String()ed.
//      The stack goes to stderr.
//   6. A reply holding a lone UTF-16 surrogate (which JSON.stringify would escape as \udXXX,
//      and the protocol forbids) or a value JSON cannot express (BigInt, a cycle)
//      → {"case":…,"error":"adapter: cannot encode reply: …"}.
//
// Inputs go to the port unchanged: {dirs: roots (always an array, never a bare string),
// filter: the object received ({} stays {}), sampleLimit: the number received (0, n, -1 or
// anything else)}; listSkills gets {dirs: roots} only; each load name goes as {name: n}.
//
// STREAMS. Before the library is imported, process.stdout.write and console.log/info/debug/
// dir/table are pointed at stderr, so nothing the library prints from JavaScript can reach the
// protocol stream (the port itself warns with console.warn, which is stderr already). Replies
// are written synchronously with fs.writeSync: when fd 1 is a pipe (as under the runner), to a
// fresh open of /proc/self/fd/1, a blocking file description of the same pipe; otherwise (a
// file, a tty, or no /proc) to fd 1 itself. Writes retry on EAGAIN. Node cannot re-point fd 1 without a
// native addon, so a native module or a child process writing to fd 1 directly would still
// reach stdout; the toolnexus skill loader does neither.

import fs from "node:fs"
import path from "node:path"
import readline from "node:readline"
import { pathToFileURL } from "node:url"

const PROTOCOL = 1
const PORT = "js"
const LIBRARY = "toolnexus"

// --- streams: before anything imports the library.
// When fd 1 is a pipe, re-open it through /proc: the new file description is blocking even after
// Node makes fd 1's own description non-blocking (it does so once process.stdout is touched).
// A regular file or a tty keeps fd 1 itself, so the file offset stays shared with the parent.
let replyFd = 1
try {
  if (fs.fstatSync(1).isFIFO()) replyFd = fs.openSync("/proc/self/fd/1", "w")
} catch {
  replyFd = 1
}
const toStderr = (...args) => {
  process.stderr.write(args.map((a) => (typeof a === "string" ? a : inspectSafe(a))).join(" ") + "\n")
}
function inspectSafe(v) {
  try {
    return typeof v === "object" ? JSON.stringify(v) : String(v)
  } catch {
    return String(v)
  }
}
process.stdout.write = (chunk, encoding, cb) => process.stderr.write(chunk, encoding, cb)
for (const m of ["log", "info", "debug", "dir", "table", "trace"]) console[m] = toStderr

function writeAll(fd, buf) {
  let off = 0
  while (off < buf.length) {
    try {
      off += fs.writeSync(fd, buf, off, buf.length - off)
    } catch (e) {
      if (e && e.code === "EAGAIN") {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5) // 5 ms, then retry
        continue
      }
      throw e
    }
  }
}

function send(obj) {
  writeAll(replyFd, Buffer.from(JSON.stringify(obj) + "\n", "utf8"))
}

function log(msg) {
  process.stderr.write(`[adapter-js] ${msg}\n`)
}

function describe(err) {
  if (err instanceof Error || (err && typeof err === "object" && "message" in err)) {
    const name = err.name || (err.constructor && err.constructor.name) || "Error"
    const msg = String(err.message ?? "")
    return msg ? `${name}: ${msg}` : name
  }
  return String(err)
}

// --- the library, loaded at hello (or the first run) so a failure is a reply.
const pkgDir = process.argv[2] || process.env.TOOLNEXUS_JS_PKG || ""
let lib = null
let libVersion = null

async function library() {
  if (lib) return lib
  if (!pkgDir) throw new Error("no toolnexus package folder: pass it as the first argument (setup.sh prints it)")
  const pkgJson = path.join(pkgDir, "package.json")
  const meta = JSON.parse(fs.readFileSync(pkgJson, "utf8"))
  let entry = path.join(pkgDir, "dist", "skill.js")
  if (!fs.existsSync(entry)) {
    const main = (meta.exports && meta.exports["."] && meta.exports["."].import) || meta.main || "./dist/index.js"
    entry = path.join(pkgDir, main)
  }
  const mod = await import(pathToFileURL(entry).href)
  if (typeof mod.listSkills !== "function" || typeof mod.loadSkills !== "function") {
    throw new Error(`${entry} exports no listSkills/loadSkills`)
  }
  libVersion = String(meta.version)
  lib = mod
  return lib
}

// hello's `libraries`: the versions of what decides verdicts, the YAML library first. Found the
// way Node resolves `yaml` from the toolnexus package: its node_modules, then its ancestors'.
function verdictLibraries() {
  const found = {}
  for (const name of ["yaml"]) {
    found[name] = "not installed"
    for (let dir = pkgDir; ; dir = path.dirname(dir)) {
      const meta = path.join(dir, "node_modules", name, "package.json")
      if (fs.existsSync(meta)) {
        found[name] = String(JSON.parse(fs.readFileSync(meta, "utf8")).version)
        break
      }
      if (path.dirname(dir) === dir) break
    }
  }
  return found
}

// --- requests
class BadRequest extends Error {}

function field(req, key, kind, what) {
  if (!(key in req)) throw new BadRequest(`run: missing field '${key}'`)
  const v = req[key]
  const ok =
    kind === "string" ? typeof v === "string"
    : kind === "integer" ? Number.isInteger(v)
    : kind === "boolean" ? typeof v === "boolean"
    : kind === "array" ? Array.isArray(v)
    : kind === "object" ? v !== null && typeof v === "object" && !Array.isArray(v)
    : false
  if (!ok) throw new BadRequest(`run: field '${key}' must be ${what}, got ${String(JSON.stringify(v)).slice(0, 80)}`)
  return v
}

function parseRun(req) {
  const run = {
    case: field(req, "case", "string", "a string"),
    roots: field(req, "roots", "array", "an array of strings"),
    sampleLimit: field(req, "sampleLimit", "integer", "an integer"),
    filter: field(req, "filter", "object", "an object of booleans"),
    load: field(req, "load", "array", "an array of strings"),
    tool: field(req, "tool", "boolean", "a boolean"),
  }
  if (!run.roots.every((r) => typeof r === "string")) throw new BadRequest("run: field 'roots' must be an array of strings")
  if (!Object.values(run.filter).every((v) => typeof v === "boolean")) throw new BadRequest("run: field 'filter' must be an object of booleans")
  if (!run.load.every((n) => typeof n === "string")) throw new BadRequest("run: field 'load' must be an array of strings")
  return run
}

const orNull = (v) => (v === undefined ? null : v)

async function runCase(run) {
  const { listSkills, loadSkills } = await library()

  const inv = listSkills({ dirs: run.roots })
  const inventory = {
    skills: inv.skills.map((s) => ({ name: s.name, description: orNull(s.description), location: s.location })),
    skipped: inv.skipped.map((k) => ({ location: k.location, reason: k.reason, detail: orNull(k.detail) })),
  }

  const src = loadSkills({ dirs: run.roots, filter: run.filter, sampleLimit: run.sampleLimit })

  const loads = []
  for (const name of run.load) {
    const r = await src.tool.execute({ name })
    loads.push({ name, isError: r.isError, output: r.output })
  }

  const prompt = typeof src.prompt === "function" ? src.prompt() : src.prompt

  const reply = { case: run.case, inventory, loads, prompt }
  if (run.tool) {
    const t = src.tool
    reply.tool = { name: t.name, description: t.description, inputSchema: t.inputSchema }
  }
  return reply
}

function encodable(reply) {
  const text = JSON.stringify(reply)
  if (text === undefined) throw new Error("JSON.stringify returned undefined")
  // JSON.stringify escapes a lone surrogate as \udXXX; find one in the decoded strings.
  const walk = (v) => {
    if (typeof v === "string") {
      if (!v.isWellFormed()) throw new Error(`string holds a lone surrogate: ${JSON.stringify(v).slice(0, 80)}`)
    } else if (Array.isArray(v)) v.forEach(walk)
    else if (v && typeof v === "object") Object.entries(v).forEach(([k, x]) => (walk(k), walk(x)))
  }
  walk(reply)
  return text
}

async function handle(text) {
  if (!text.trim()) return true
  let req
  try {
    req = JSON.parse(text)
  } catch (e) {
    send({ error: `request is not JSON: ${e.message}` })
    return true
  }
  if (req === null || typeof req !== "object" || Array.isArray(req)) {
    send({ error: "request is not a JSON object" })
    return true
  }
  const cmd = req.cmd
  if (cmd === "bye") return false
  if (cmd === "hello") {
    if (req.protocol !== PROTOCOL) {
      send({ error: `unsupported protocol ${JSON.stringify(req.protocol)}; this adapter speaks ${PROTOCOL}` })
      return true
    }
    try {
      await library()
    } catch (e) {
      log(e && e.stack ? e.stack : String(e))
      send({ error: `cannot load ${LIBRARY} from ${pkgDir || "(no path)"}: ${describe(e)}` })
      return true
    }
    send({ protocol: PROTOCOL, port: PORT, library: LIBRARY, version: libVersion, runtime: `Node ${process.versions.node}`, libraries: verdictLibraries() })
    return true
  }
  if (cmd !== "run") {
    send({ error: `unknown cmd ${JSON.stringify(cmd)}` })
    return true
  }

  let run
  try {
    run = parseRun(req)
  } catch (e) {
    if (!(e instanceof BadRequest)) throw e
    send({ error: e.message })
    return true
  }

  let reply
  try {
    reply = await runCase(run)
  } catch (e) {
    log(`case ${run.case}: the port threw`)
    log(e && e.stack ? e.stack : String(e))
    reply = { case: run.case, error: describe(e) }
  }
  let line
  try {
    line = encodable(reply)
  } catch (e) {
    log(`case ${run.case}: reply not encodable: ${describe(e)}`)
    line = JSON.stringify({ case: run.case, error: `adapter: cannot encode reply: ${describe(e)}` })
  }
  writeAll(replyFd, Buffer.from(line + "\n", "utf8"))
  return true
}

async function main() {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false })
  for await (const line of rl) {
    if (!(await handle(line))) break
  }
  process.exit(0) // bye or EOF; stdin may still be open after bye
}

process.on("unhandledRejection", (e) => log(`unhandled rejection: ${describe(e)}`))
main().catch((e) => {
  log(`fatal: ${e && e.stack ? e.stack : String(e)}`)
  process.exit(1)
})
