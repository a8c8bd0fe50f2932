// A real `samba-adjudicator serve` on 127.0.0.1 ephemeral ports, discovered from its
// `listening` line (as tests/service_fixtures.py does).
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../../../", import.meta.url));
const SERVE = process.env["SAMBA_ADJUDICATOR_BIN"] ?? `${REPO}.venv/bin/samba-adjudicator`;
// A server whose every call waits (deadline tests) is started through the repository's
// test launcher, which sets that delay: the service itself reads no test setting.
const SLOW = [`${REPO}.venv/bin/python`, `${REPO}tests/slow_server.py`];

export interface Server {
  restUrl: string;
  grpcUrl: string;
  grpcPort: number;
  httpPort: number;
  adminPort: number;
  stop(): Promise<void>;
  /** SIGKILL: the process dies at once, calls in flight with it (`exited`). */
  kill(): void;
  /** SIGTERM without waiting: the server drains, then exits (`exited`). */
  terminate(): void;
  exited: Promise<unknown>;
}

/** `args` come after the defaults and win (`["--grpc-port", "50051"]`). */
export async function startServer(env: Record<string, string> = {}, args: string[] = []): Promise<Server> {
  const clean = { ...process.env };
  for (const k of ["SAMBA_GRPC_PORT", "SAMBA_HTTP_PORT", "SAMBA_ADMIN_PORT", "SAMBA_HOST", "SAMBA_WORKERS", "SAMBA_CORS_ORIGINS"]) delete clean[k];
  const [command, ...launcher] = env["SAMBA_TEST_DELAY_SECONDS"] ? SLOW : [SERVE];
  const proc: ChildProcess = spawn(
    command!,
    [...launcher, "serve", "--host", "127.0.0.1", "--grpc-port", "0", "--http-port", "0", "--admin-port", "0", "--workers", "1", ...args],
    { env: { ...clean, SAMBA_LOG_LEVEL: "warning", ...env }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = once(proc, "exit");
  const lines = createInterface({ input: proc.stdout! });
  const [line] = (await Promise.race([
    once(lines, "line"),
    once(proc, "exit").then(([code]) => {
      throw new Error(`samba-adjudicator serve exited with ${code} before listening`);
    }),
  ])) as [string];
  const info = JSON.parse(line);
  if (info.event !== "listening") throw new Error(`unexpected first line: ${line}`);
  return {
    restUrl: `http://127.0.0.1:${info.httpPort}`,
    grpcUrl: `http://127.0.0.1:${info.grpcPort}`,
    grpcPort: info.grpcPort,
    httpPort: info.httpPort,
    adminPort: info.adminPort,
    exited,
    kill() {
      proc.kill("SIGKILL");
    },
    terminate() {
      proc.kill("SIGTERM");
    },
    async stop() {
      if (proc.exitCode === null) {
        proc.kill("SIGTERM");
        await exited;
      }
    },
  };
}
