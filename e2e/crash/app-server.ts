import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

// Real server processes for the crash test and the web benches: the runtime's fake LLM server
// and the app's production build (`next start`), each spawned as the leader of its own process
// group (detached), so a SIGKILL to the group takes down every process it spawned, as a crash or
// an OOM kill would. Only loopback addresses. Every group started here is SIGKILLed when this
// process exits, so a failed test or bench never leaves a server behind.

/** The monorepo's root: found by walking up, since the benches run this file compiled to dist/. */
function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no pnpm-workspace.yaml above ${from}`);
  }
}

export const repoRoot = findRepoRoot(import.meta.dirname);
const e2eDir = join(repoRoot, "e2e");
const webDir = join(repoRoot, "apps", "web");
const fakeLlmCli = join(
  repoRoot,
  "packages",
  "core",
  "dist",
  "testing",
  "fake-llm-server",
  "cli.js",
);
const workspace = join(e2eDir, "fixtures", "workspace");
// next's own CLI entry, resolved from the app so the app's version of next runs
const nextBin = join(
  dirname(createRequire(join(webDir, "package.json")).resolve("next/package.json")),
  "dist",
  "bin",
  "next",
);

// the web bench's bare route (bench/bare-route) runs e2e's own next
const bareRouteDir = join(e2eDir, "bench", "bare-route");
const bareNextBin = join(
  dirname(createRequire(join(e2eDir, "package.json")).resolve("next/package.json")),
  "dist",
  "bin",
  "next",
);

const running = new Set<number>();
process.on("exit", () => {
  for (const pid of running) killGroup(pid, "SIGKILL");
});

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}

export interface ServerProcess {
  readonly url: string;
  readonly port: number;
  /** the process group's leader (the group's id) */
  readonly pid: number;
  /** stdout and stderr so far, for failure messages */
  output(): string;
  /** signals the whole process group and waits for the leader to exit */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * `E2E_PORT_RANGE=LOW-HIGH` keeps the ports handed out here inside that range (one machine shared
 * by several people, each with ports of their own); unset, the OS picks any free port.
 */
function portRange(): [number, number] | undefined {
  const match = /^(\d+)-(\d+)$/.exec(process.env.E2E_PORT_RANGE ?? "");
  if (!match) return undefined;
  const low = Number(match[1]);
  const high = Number(match[2]);
  return low > 0 && high >= low && high < 65536 ? [low, high] : undefined;
}
/** the next port of the range to try: each call moves on, so two calls do not get the same one */
let nextInRange: number | undefined;

async function bindsOn(port: number): Promise<number | undefined> {
  const server = createServer();
  try {
    server.listen(port, "127.0.0.1");
    await Promise.race([
      once(server, "listening"),
      once(server, "error").then(([error]) => Promise.reject(error)),
    ]);
  } catch {
    return undefined;
  }
  const address = server.address();
  server.close();
  return address === null || typeof address === "string" ? undefined : address.port;
}

/**
 * A port the OS says is free on 127.0.0.1 now (there is a small race until the server binds),
 * within E2E_PORT_RANGE when it is set.
 */
export async function freePort(): Promise<number> {
  const range = portRange();
  if (range === undefined) {
    const port = await bindsOn(0);
    if (port === undefined) throw new Error("no port assigned");
    return port;
  }
  const [low, high] = range;
  const size = high - low + 1;
  for (let tried = 0; tried < size; tried++) {
    const candidate = nextInRange === undefined || nextInRange > high ? low : nextInRange;
    nextInRange = candidate + 1;
    const port = await bindsOn(candidate);
    if (port !== undefined) return port;
  }
  throw new Error(`no free port in E2E_PORT_RANGE ${low}-${high}`);
}

function startGroup(
  command: string,
  args: string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    port: number;
    readyPath: string;
    /** sent with the readiness probe (e.g. the install's token) */
    readyHeaders?: Record<string, string>;
  },
  timeoutMs: number,
): Promise<ServerProcess> {
  const child: ChildProcess = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not spawn ${command}`);
  running.add(pid);
  let log = "";
  const append = (chunk: Buffer) => {
    // keep the tail only: a long bench must not grow this without bound
    log = (log + chunk.toString("utf8")).slice(-20_000);
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  let exited = false;
  const exit = new Promise<void>((resolveExit) => {
    child.once("exit", () => {
      exited = true;
      running.delete(pid);
      resolveExit();
    });
  });
  const url = `http://127.0.0.1:${options.port}`;
  const server: ServerProcess = {
    url,
    port: options.port,
    pid,
    output: () => log,
    async kill(signal = "SIGKILL") {
      if (exited) return;
      killGroup(pid, signal);
      // a server that ignores a gentle signal still goes: SIGKILL after 5 s
      const force = setTimeout(() => killGroup(pid, "SIGKILL"), 5_000);
      await exit;
      clearTimeout(force);
      // the leader is gone; make sure no member of its group outlives it
      killGroup(pid, "SIGKILL");
    },
  };
  return (async () => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (exited) throw new Error(`${command} exited before it was ready:\n${log}`);
      try {
        const response = await fetch(url + options.readyPath, {
          headers: options.readyHeaders ?? {},
          signal: AbortSignal.timeout(5_000),
        });
        await response.arrayBuffer();
        if (response.ok) return server;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    await server.kill();
    throw new Error(`${command} was not ready after ${timeoutMs} ms:\n${log}`);
  })();
}

/** The runtime's fake LLM server (packages/core must be built). */
export async function startFakeLlm(options: { port?: number } = {}): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  return startGroup(
    process.execPath,
    [fakeLlmCli, "--port", String(port), "--host", "127.0.0.1"],
    { cwd: repoRoot, env: baseEnv({}), port, readyPath: "/__fake/requests" },
    30_000,
  );
}

/**
 * The install token of the apps started here unless `env.ARBOR_TOKEN` says otherwise; the
 * clients in client.ts send it (Authorization: Bearer).
 */
export const APP_TOKEN = "arbor-test-token-0123456789abcdef";

export interface AppOptions {
  port: number;
  dataDir: string;
  fakeLlmUrl: string;
  /**
   * More environment for the app, over the defaults (e.g. ARBOR_TOKEN, ARBOR_ADMIN_TOKEN, a
   * WORKSPACE_DIR of its own, a provider key). The readiness probe sends the token in force.
   */
  env?: Record<string, string>;
  /** how long the app may take to answer its readiness probe (default 120 s) */
  readyTimeoutMs?: number;
}

/**
 * `next start` of apps/web's production build (`pnpm --filter @arbor/web build` first), pointed at
 * the fake LLM over the Anthropic wire format, its SQLite store in dataDir. Ready once
 * GET /api/sessions answers, which also opens (and migrates) the store.
 */
export async function startApp(options: AppOptions): Promise<ServerProcess> {
  const token = options.env?.ARBOR_TOKEN ?? APP_TOKEN;
  return startGroup(
    process.execPath,
    [nextBin, "start", "--hostname", "127.0.0.1", "--port", String(options.port)],
    {
      cwd: webDir,
      env: baseEnv({
        PORT: String(options.port),
        ARBOR_DATA_DIR: options.dataDir,
        ARBOR_PROVIDER: "anthropic",
        ARBOR_MODEL: "claude-test",
        ANTHROPIC_BASE_URL: options.fakeLlmUrl,
        ANTHROPIC_API_KEY: "x",
        ARBOR_TOKEN: token,
        // no title request to the fake model after a first answer: tests count its requests
        ARBOR_TITLES: "first_message",
        ...options.env,
      }),
      port: options.port,
      readyPath: "/api/sessions",
      readyHeaders: { authorization: `Bearer ${token}` },
    },
    options.readyTimeoutMs ?? 120_000,
  );
}

/**
 * The web bench's baseline (bench/bare-route/README.md): a bare Next app whose one route streams
 * the fake LLM through the AI SDK's streamText, with no persistence. `next build` runs first when
 * the build is missing or older than a source file; then `next start` on the given port.
 */
export async function startBareRoute(options: {
  port: number;
  fakeLlmUrl: string;
}): Promise<ServerProcess> {
  buildBareRoute();
  return startGroup(
    process.execPath,
    [bareNextBin, "start", "--hostname", "127.0.0.1", "--port", String(options.port)],
    {
      cwd: bareRouteDir,
      env: baseEnv({ PORT: String(options.port), BARE_FAKE_LLM_URL: options.fakeLlmUrl }),
      port: options.port,
      readyPath: "/api/chat",
    },
    120_000,
  );
}

function buildBareRoute(): void {
  const buildId = join(bareRouteDir, ".next", "BUILD_ID");
  const sources = ["next.config.mjs", "tsconfig.json", join("app", "api", "chat", "route.ts")];
  if (existsSync(buildId)) {
    const builtAt = statSync(buildId).mtimeMs;
    if (sources.every((f) => statSync(join(bareRouteDir, f)).mtimeMs < builtAt)) return;
  }
  process.stdout.write("building the bare route (next build) …\n");
  const result = spawnSync(process.execPath, [bareNextBin, "build"], {
    cwd: bareRouteDir,
    env: baseEnv({}),
    encoding: "utf8",
  });
  if (result.status !== 0) {
    throw new Error(`next build of the bare route failed:\n${result.stdout}${result.stderr}`);
  }
}

/** Only what the servers need: no provider keys or DATABASE_URL leak in from the shell. */
function baseEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    WORKSPACE_DIR: workspace,
    ...extra,
  };
}
