import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchFigure, percentile } from "@arbor/core/testing";
import * as sessionRoute from "@/app/api/sessions/[id]/route";
import { loadSession } from "@/lib/server/http";
import { ownSession } from "@/lib/server/people/access";
import { newToken } from "@/lib/server/people/people";
import { sessionDetail } from "@/lib/server/results";
import { createRuntime, setRuntime } from "@/lib/server/runtime";

// Issue #25's figure: what authorization adds to a request, paired against the same route
// without it. Each round answers GET /api/sessions/{id} twice on the real runtime (SQLite store
// and people database in a fresh data directory): once through handle() as a member's request
// with a personal token (the gate, the token's lookup, the session relation and authorize()),
// once as the route's own work alone (loadSession + the detail's JSON). The difference of each
// pair is what authorization added to that request; the figure is its p99.

const ROUNDS = 3_000;
const WARMUP = 300;

export async function run(): Promise<BenchFigure[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-authz-bench-"));
  const runtime = await createRuntime({
    env: {
      ARBOR_TOKEN: "bench-install-token-0123456789",
      ARBOR_DATA_DIR: dataDir,
      WORKSPACE_DIR: dataDir,
    },
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  });
  await setRuntime(runtime);
  try {
    const member = await runtime.people.store.createPerson({
      name: "Mia",
      email: "mia@bench",
      role: "member",
    });
    const made = newToken();
    await runtime.people.store.createToken({
      userId: member.id,
      name: "bench",
      scope: "write",
      hash: made.hash,
      prefix: made.prefix,
      expiresAt: null,
    });
    const session = await runtime.createSession({ title: "bench" });
    const actor = { ...member, email: member.email, via: "token" as const, address: "127.0.0.1" };
    await ownSession(runtime, actor, session.id);
    const context = { params: Promise.resolve({ id: session.id }) };
    const request = () =>
      new Request(`http://localhost/api/sessions/${session.id}`, {
        headers: { host: "localhost", authorization: `Bearer ${made.token}` },
      });

    const withAuth = async (): Promise<number> => {
      const started = performance.now();
      const response = await sessionRoute.GET(request(), context);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`the route answered ${response.status}`);
      return performance.now() - started;
    };
    const without = async (): Promise<number> => {
      const started = performance.now();
      request(); // the same request object made, so only authorization differs
      const loaded = await loadSession(runtime, session.id);
      const response = Response.json(sessionDetail(loaded));
      await response.arrayBuffer();
      return performance.now() - started;
    };

    const added: number[] = [];
    const full: number[] = [];
    const bare: number[] = [];
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      // alternate which goes first, so neither always meets a warm cache
      const first = round % 2 === 0;
      const a = first ? await withAuth() : undefined;
      const b = await without();
      const c = first ? (a as number) : await withAuth();
      if (round < WARMUP) continue;
      added.push(c - b);
      full.push(c);
      bare.push(b);
    }
    const p99 = percentile(added, 99);
    return [
      {
        name: "authorization added per request (p99, paired)",
        value: p99,
        unit: "ms",
        target: "< 1 ms",
        pass: p99 < 1,
        notes: `p50 ${percentile(added, 50).toFixed(3)} ms over ${ROUNDS} pairs; route with it p50 ${percentile(full, 50).toFixed(3)} ms, without p50 ${percentile(bare, 50).toFixed(3)} ms (SQLite)`,
      },
    ];
  } finally {
    await setRuntime(undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
