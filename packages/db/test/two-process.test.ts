import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sampleSession } from "@arbor/core/store-contract-fixtures";
import { afterAll, describe, expect, it } from "vitest";
import { createStore } from "../src/create-store.js";
import { writeInterleaved } from "./fixtures/interleaved-writes.js";
import { pgAvailable, testDatabases } from "./stores.js";

// Two processes append events to one session at the same time: every event gets exactly one
// sequence, the sequences are 1..n without a gap, and nothing either process wrote is missing.

const here = dirname(fileURLToPath(import.meta.url));
// per process, in two halves that wait for each other (fixtures/interleaved-writes.ts)
const WRITES_OF = { sqlite: 1000, postgresql: 400 } as const;

function runChild(
  url: string,
  sessionId: string,
  writer: string,
  writes: number,
): { ready: Promise<void>; done: Promise<string> } {
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const done = new Promise<string>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        "--conditions=@arbor/source",
        "--import",
        "tsx",
        join(here, "fixtures", "append-events.ts"),
        url,
        sessionId,
        String(writes),
        writer,
      ],
      { cwd: join(here, ".."), stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("ready")) markReady();
    });
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      markReady();
      if (code === 0) resolve(out.trim().split("\n").at(-1) ?? "");
      else reject(new Error(`child exited with ${code}: ${err}`));
    });
  });
  return { ready, done };
}

for (const provider of ["sqlite", "postgresql"] as const) {
  describe.skipIf(provider === "postgresql" && !pgAvailable())(
    `two processes (${provider})`,
    () => {
      const databases = testDatabases(provider);
      afterAll(() => databases.dispose());

      it("appending to one session concurrently never loses or duplicates a sequence", async () => {
        const WRITES = WRITES_OF[provider];
        const url = await databases.fresh();
        const mine = await createStore({ databaseUrl: url, skipMigrations: true });
        try {
          const { session, branch } = sampleSession("shared");
          await mine.store.createSession(session, branch);
          const child = runChild(url, "shared", "child", WRITES);
          await child.ready;
          // the parent's second half follows a write of the child's second half, and the child's
          // second half follows a write of the parent's: the two processes' writes interleave
          await writeInterleaved({
            store: mine.store,
            sessionId: "shared",
            writer: "parent",
            count: WRITES,
            awaitEvent: (payload) => payload.writer === "child" && payload.i >= WRITES / 2,
          });
          expect(await child.done).toBe(`done ${WRITES}`);
          const events = await mine.store.readEvents("shared", 0);
          expect(events.map((e) => e.sequence)).toEqual(
            Array.from({ length: 4 * WRITES }, (_, i) => i + 1),
          );
          const seen = new Set(
            events.map((e) => {
              const p = e.payload as { writer: string; i: number; part: number };
              return `${p.writer}:${p.i}:${p.part}`;
            }),
          );
          expect(seen.size).toBe(4 * WRITES);
          // the two processes really ran at the same time: their writes interleave
          const writers = events.map((e) => (e.payload as { writer: string }).writer);
          const switches = writers.filter((w, k) => k > 0 && w !== writers[k - 1]).length;
          expect(switches).toBeGreaterThanOrEqual(2);
          // each write's two events are adjacent: a write is one transaction
          for (let k = 0; k < events.length; k += 2) {
            const a = events[k]!.payload as { writer: string; i: number; part: number };
            const b = events[k + 1]!.payload as { writer: string; i: number; part: number };
            expect([a.writer, a.i, a.part + 1]).toEqual([b.writer, b.i, b.part]);
          }
        } finally {
          await mine.close();
        }
      });
    },
  );
}
