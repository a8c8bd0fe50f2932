// The main entry must load in a browser: no Node built-ins and no connect-node on its
// import graph (the gRPC client lives in the "./grpc" entry).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

function importGraph(entry: string, seen = new Set<string>()): Set<string> {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  const source = readFileSync(entry, "utf8");
  for (const [, spec] of source.matchAll(/(?:import|export)[^"']*?from\s*["']([^"']+)["']/g)) {
    if (spec!.startsWith(".")) importGraph(resolve(dirname(entry), spec!), seen);
    else seen.add(spec!);
  }
  return seen;
}

test("the browser entry imports nothing Node-only", () => {
  const entry = createRequire(import.meta.url).resolve("@samba-adjudicator/client");
  const graph = [...importGraph(entry)];
  assert.ok(graph.some((m) => m.endsWith("rest.js")), "the REST client is in the entry");
  const nodeOnly = graph.filter((m) => m.startsWith("node:") || m.includes("connect-node"));
  assert.deepEqual(nodeOnly, []);
  const grpc = [...importGraph(fileURLToPath(new URL("../../dist/grpc.js", import.meta.url)))];
  assert.ok(grpc.includes("@connectrpc/connect-node"));
});
