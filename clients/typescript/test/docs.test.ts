// The README's and docs/guide.md's TypeScript examples run against a real server: every `ts`
// block preceded by `<!-- doc-test -->` (tests/test_docs_run.py pins how many there are and
// runs the sh and python ones). The blocks of one file make one module, in order, as a
// reader pasting them would; they read the ports from SAMBA_HTTP_PORT / SAMBA_GRPC_PORT, set
// to the test server's (tests/test_docs_run.py checks none names a port itself); the
// game server's own functions the guide leaves to you (sendTo, …) are declared first.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { startServer, type Server } from "./server.js";

const PACKAGE = fileURLToPath(new URL("../../", import.meta.url)); // clients/typescript/
const REPO = fileURLToPath(new URL("../../../../", import.meta.url));
const SOURCES = `${PACKAGE}.build/docs-src/`;
const PRELUDE = [
  "/* eslint-disable */",
  "const broadcast = (_events: unknown) => {};",
  "const tellPlayer = (_violations: unknown) => {};",
  "const sendTo = (_seat: number, _message: unknown) => {};",
  "const sendToSpectators = (_view: unknown) => {};",
  "",
].join("\n");

let server: Server;
before(async () => {
  server = await startServer();
});
after(() => server?.stop());

function blocks(markdown: string): string[] {
  return [...markdown.matchAll(/<!-- doc-test -->\n```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

async function runModule(name: string, markdown: string) {
  const code = blocks(readFileSync(`${REPO}${markdown}`, "utf8")).join("\n");
  // imports first, as the blocks have them; then the prelude; then the rest in order
  const lines = code.split("\n");
  const imports = lines.filter((l) => l.startsWith("import "));
  const rest = lines.filter((l) => !l.startsWith("import "));
  mkdirSync(SOURCES, { recursive: true });
  writeFileSync(`${SOURCES}${name}.ts`, [...imports, PRELUDE, ...rest, "export {};"].join("\n"));
  writeFileSync(
    `${SOURCES}tsconfig.json`,
    JSON.stringify({
      extends: "../../tsconfig.json",
      compilerOptions: { rootDir: ".", outDir: "../docs", declaration: false, sourceMap: false, inlineSources: false },
      include: ["*.ts"],
    }),
  );
  await promisify(execFile)(`${PACKAGE}node_modules/.bin/tsc`, ["-p", `${SOURCES}tsconfig.json`]).catch((e) => {
    throw new Error(`${markdown}'s TypeScript does not compile:\n${e.stdout}`);
  });
  const env = {
    ...process.env,
    SAMBA_HTTP_PORT: String(server.httpPort),
    SAMBA_GRPC_PORT: String(server.grpcPort),
  };
  return promisify(execFile)(process.execPath, [`${PACKAGE}.build/docs/${name}.js`], { cwd: PACKAGE, env });
}

test("the README's TypeScript example runs", async () => {
  const { stdout } = await runModule("readme", "README.md");
  assert.equal(stdout.trim(), "classic");
});

test("this package's README's Use example runs", async () => {
  assert.equal(blocks(readFileSync(`${PACKAGE}README.md`, "utf8")).length, 1);
  const { stdout } = await runModule("package-readme", "clients/typescript/README.md");
  const [written, nextSeat, dealNumber, checked] = stdout.trim().split("\n");
  assert.equal(written, "true");
  assert.match(nextSeat!, /^[0-3]$/);
  assert.equal(dealNumber, "2"); // the match's next deal
  assert.equal(checked, "true true"); // the commitment shown first, the final view verified
});

test("docs/guide.md's TypeScript examples run, in order, as one program", async () => {
  assert.equal(blocks(readFileSync(`${REPO}docs/guide.md`, "utf8")).length, 8);
  const { stdout } = await runModule("guide", "docs/guide.md");
  assert.match(stdout, /^0 -?\d+ -?\d+$/m); // step 7's score lines
});
