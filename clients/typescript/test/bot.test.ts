// The example bot plays a whole deal over each transport, as a user runs it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { startServer, type Server } from "./server.js";

const BOT = fileURLToPath(new URL("../examples/play-deal.js", import.meta.url));
let server: Server;
before(async () => {
  server = await startServer();
});
after(() => server?.stop());

async function play(transport: string, url: string, seed: string) {
  const { stdout } = await promisify(execFile)(process.execPath, [BOT, "--transport", transport, "--url", url, "--seed", seed]);
  const lines = stdout.trim().split("\n");
  assert.match(lines[0]!, /^deal over after \d+ actions: (WENT_OUT|STOCK_EXHAUSTED)$/);
  return JSON.parse(lines.at(-1)!) as { applied: number; sides: number[] };
}

test("the bot plays a 4-player classic deal to the end over REST and gRPC alike", async () => {
  for (const seed of ["bot-1", "bot-2"]) {
    const [rest, grpc] = await Promise.all([
      play("rest", server.restUrl, seed),
      play("grpc", server.grpcUrl, seed),
    ]);
    assert.equal(rest.sides.length, 2);
    assert.ok(rest.applied > 0);
    assert.deepEqual(grpc, rest, `seed ${seed}`);
  }
});
