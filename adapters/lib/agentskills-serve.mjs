// The protocol loop shared by the Node.js adapters of the `agentskills` profile
// (adapters/PROTOCOL.md, "Profiles"): reads one JSON request per line, answers each in order on
// the original stdout, and keeps library output off it (console.log goes to stderr).
//
//   serve({ hello: async () => reply, run: async (request) => reply })
//
// `hello` and `run` replies are sent as returned; a thrown error becomes an error reply with the
// case (`<Name>: <message>`); `bye` and EOF end the process with status 0.

import { writeSync } from "node:fs";
import { createInterface } from "node:readline";

export function convertWith(table, message) {
  const row = table.find(([pattern]) => pattern.test(message));
  return row ? row[1] : null;
}

function send(reply) {
  writeSync(1, JSON.stringify(reply) + "\n");
}

async function answer(handlers, request) {
  if (request === null || typeof request !== "object" || Array.isArray(request)) {
    return { error: "request is not an object" };
  }
  if (request.cmd === "hello") {
    if (request.protocol !== 1) return { error: `hello: protocol ${request.protocol} not spoken (1 is)` };
    return handlers.hello();
  }
  if (request.cmd !== "run") return { error: `unknown cmd ${JSON.stringify(request.cmd)}` };
  if (request.profile !== "agentskills") {
    return { error: `run: profile ${JSON.stringify(request.profile)} not spoken (agentskills is)` };
  }
  try {
    return await handlers.run(request);
  } catch (error) {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { case: request.case, error: text };
  }
}

export async function serve(handlers) {
  console.log = console.info = console.debug = console.warn = console.error;
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let request;
    try {
      request = JSON.parse(line);
    } catch (error) {
      send({ error: `not JSON: ${error.message}` });
      continue;
    }
    if (request && request.cmd === "bye") break;
    send(await answer(handlers, request));
  }
  process.exit(0);
}
