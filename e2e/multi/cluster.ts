import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "@playwright/test";
import { type PgCluster, startPgCluster } from "../../packages/db/src/pg-cluster.js";
import { freePort, type ServerProcess, startApp, startFakeLlm } from "../crash/app-server.js";

// The multi-instance specs' one setup: a throwaway PostgreSQL cluster and a fake LLM per spec
// file, and two production servers (`next start`) per test on a new database and workspace. No
// skip: where a cluster cannot be started (no PostgreSQL 15 binaries, not root, no `postgres`
// user), beforeAll fails with the reason; the README's test command installs PostgreSQL
// (scripts/arbor.mjs), and CI fails on a skipped test (docs/decisions/0070).

export interface MultiInstanceOptions {
  /** names the databases (`PREFIX_N`) and the temporary folders (`arbor-PREFIX-…`) */
  prefix: string;
  /** extra environment of both instances */
  env?: Record<string, string>;
}

export interface MultiInstance {
  /** the fake LLM both instances stream from */
  readonly fake: ServerProcess;
  /** the current test's workspace, shared by its two instances */
  readonly workspace: string;
  /**
   * Instances A and B on a new database and a new workspace (`prepare` fills it first); A starts
   * first: it runs the migrations. They are stopped after the test.
   */
  twoInstances(prepare?: (workspace: string) => void): Promise<[ServerProcess, ServerProcess]>;
}

/** Registers the spec file's hooks and returns its servers (read them inside tests only). */
export function multiInstance(options: MultiInstanceOptions): MultiInstance {
  let cluster: PgCluster | undefined;
  let fake: ServerProcess | undefined;
  const apps: ServerProcess[] = [];
  let workspace = "";
  let databases = 0;

  test.describe.configure({ timeout: 180_000 });
  test.beforeAll(async () => {
    // throws "cannot start PostgreSQL: <why>" where it cannot run
    cluster = await startPgCluster();
    fake = await startFakeLlm();
  });
  test.afterAll(async () => {
    await fake?.kill();
    cluster?.stop();
  });
  test.afterEach(async () => {
    // a failed test names its cause: each instance's log (its tail) goes with the failure
    const info = test.info();
    if (info.status !== info.expectedStatus) {
      for (const [index, app] of apps.entries()) {
        process.stderr.write(`\n--- instance ${index} (${app.url}), its log:\n${app.output()}\n`);
      }
    }
    for (const app of apps.splice(0)) await app.kill();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
    workspace = "";
  });

  return {
    get fake() {
      if (fake === undefined) throw new Error("the fake LLM starts in beforeAll");
      return fake;
    },
    get workspace() {
      return workspace;
    },
    async twoInstances(prepare = () => undefined) {
      if (cluster === undefined || fake === undefined) {
        throw new Error("the cluster starts in beforeAll");
      }
      const url = await cluster.createDatabase(`${options.prefix}_${++databases}`);
      workspace = mkdtempSync(join(tmpdir(), `arbor-${options.prefix}-ws-`));
      prepare(workspace);
      const fakeLlmUrl = fake.url;
      const dataDir = () => mkdtempSync(join(tmpdir(), `arbor-${options.prefix}-data-`));
      const once = async () =>
        startApp({
          port: await freePort(),
          dataDir: dataDir(),
          fakeLlmUrl,
          env: { DATABASE_URL: url, WORKSPACE_DIR: workspace, ...options.env },
          readyTimeoutMs: 45_000,
        });
      // a start not ready within 45 s (a port taken between freePort() and the bind, a machine
      // under load) is reported with its log and tried once more, inside the test's timeout
      const start = async () => {
        try {
          return await once();
        } catch (error) {
          process.stderr.write(`an instance did not start; once more:\n${error}\n`);
          return once();
        }
      };
      const a = await start();
      apps.push(a);
      const b = await start();
      apps.push(b);
      return [a, b];
    },
  };
}
