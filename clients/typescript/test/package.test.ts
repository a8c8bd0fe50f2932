// The main entry must load in a browser: no Node built-ins and no connect-node on its
// import graph (the gRPC client lives in the "./grpc" entry).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
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

test("the packed package installs into another project and calls the service", async () => {
  const { execFile } = await import("node:child_process");
  const { mkdtemp, writeFile, rm } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const { promisify } = await import("node:util");
  const { startServer } = await import("./server.js");
  const run = promisify(execFile);
  const packageDir = fileURLToPath(new URL("../../", import.meta.url));
  const project = await mkdtemp(resolve(tmpdir(), "samba-client-"));
  const server = await startServer();
  try {
    // --ignore-scripts: dist/ is built already (prepack would build it again).
    const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--pack-destination", project], { cwd: packageDir });
    const tarball = resolve(project, stdout.trim().split("\n").at(-1)!);
    await writeFile(resolve(project, "package.json"), JSON.stringify({ name: "game", type: "module", private: true }));
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], { cwd: project });
    // The example bots ship in the package (package.json "files").
    const installed = resolve(project, "node_modules", "@samba-adjudicator", "client");
    for (const example of ["play-deal.ts", "redact.ts"]) {
      assert.ok(existsSync(resolve(installed, "examples", example)), example);
    }
    // The README's lines.
    await writeFile(
      resolve(project, "main.js"),
      `import { createRestClient } from "@samba-adjudicator/client";
const adj = createRestClient({ baseUrl: process.argv[2] });
console.log((await adj.getRuleset({ profile: "classic" })).profile);
`,
    );
    const out = await run(process.execPath, ["main.js", server.restUrl], { cwd: project });
    assert.equal(out.stdout.trim(), "classic");
  } finally {
    await server.stop();
    await rm(project, { recursive: true, force: true });
  }
});
