import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { freePort, type ServerProcess, startApp, startFakeLlm } from "../crash/app-server.js";
import {
  createSession,
  decideToolCalls,
  getLoopTree,
  getSession,
  scriptFake,
  sendAndWait,
} from "../crash/client.js";

// Issue #10 item 7 over a real restart: the app's production server is killed (SIGKILL, its whole
// process group) and started again on the same SQLite file between the runs of one session. Loop
// numbers come from the store, so every run keeps its own loop record, the continuation of an
// approval made after the restart is a child of the loop that stopped (never its own parent), and
// the admin loop tree shows them all, named for the real provider. No browser: plain HTTP against
// servers this test starts on ports of its own.

let fake: ServerProcess | undefined;
let app: ServerProcess | undefined;
let dataDir = "";

test.afterEach(async () => {
  await app?.kill();
  await fake?.kill();
  app = undefined;
  fake = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function errors(events: ReadonlyArray<{ event: string }>) {
  return events.filter((e) => e.event === "error");
}

test("run, restart, resume a pending approval, restart, run again: every loop record is kept", async () => {
  test.setTimeout(300_000);
  dataDir = mkdtempSync(join(tmpdir(), "arbor-loop-restart-"));
  fake = await startFakeLlm();
  const port = await freePort();
  app = await startApp({ port, dataDir, fakeLlmUrl: fake.url });

  // 1. A run that stops for an approval.
  const id = await createSession(app.url, "loops across restarts", {
    approval_policy: { type: "manual" },
    // a person approves the read (issue #27: read-only tools otherwise run by their rule)
    approve_read_only: false,
  });
  await scriptFake(fake.url, [
    {
      blocks: [
        {
          type: "toolCall",
          id: "toolu_restart_1",
          name: "read_file",
          arguments: { path: "notes.txt" },
        },
      ],
    },
    { blocks: [{ type: "text", text: "The notes hold three lines." }] },
    { blocks: [{ type: "text", text: "Still here after two restarts." }] },
  ]);
  expect(errors(await sendAndWait(app.url, id, "Read the notes."))).toEqual([]);
  expect((await getSession(app.url, id)).state.type).toBe("AwaitingToolApproval");
  const [first] = await getLoopTree(app.url, id);
  if (!first) throw new Error("no loop after the first run");
  // the provider's own name, not the registry's
  expect(first.loop_id).toBe(`${id}.anthropic.claude-test.1`);

  // 2. Restart; approve the pending call: the continuation runs in the new process.
  await app.kill("SIGKILL");
  app = await startApp({ port, dataDir, fakeLlmUrl: fake.url });
  expect((await getSession(app.url, id)).state.type).toBe("AwaitingToolApproval");
  const approved = await decideToolCalls(app.url, id, [
    { tool_call_id: "toolu_restart_1", decision: "approve" },
  ]);
  expect(errors(approved)).toEqual([]);
  expect((await getSession(app.url, id)).state.type).toBe("Idle");

  // 3. Restart again; a new message is a new run.
  await app.kill("SIGKILL");
  app = await startApp({ port, dataDir, fakeLlmUrl: fake.url });
  expect(errors(await sendAndWait(app.url, id, "Are you still there?"))).toEqual([]);

  // Every loop record is kept, each with its own number; the tree links them.
  const loops = await getLoopTree(app.url, id);
  const prefix = `${id}.anthropic.claude-test`;
  expect(loops.map((l) => l.loop_id)).toEqual([`${prefix}.1`, `${prefix}.2`, `${prefix}.3`]);
  expect(loops.map((l) => l.status)).toEqual(["completed", "completed", "completed"]);
  expect(loops.map((l) => l.turns)).toEqual([1, 2, 1]);
  expect(loops.map((l) => l.parent_loop_id)).toEqual([undefined, `${prefix}.1`, undefined]);
  for (const loop of loops) {
    expect(loop.parent_loop_id).not.toBe(loop.loop_id);
    expect(loop.config?.provider).toBe("anthropic");
  }
});
