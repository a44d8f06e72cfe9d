// Branches: creating a branch from a 1,000-message branch (target < 1 ms) and merging two
// 500-message branches by rebase (no target in the issue; we aim for < 50 ms). Both run the
// real functions over an in-memory pool of realistic messages (text turns and tool calls).

import { createBranch } from "../src/context/branches/branch-ops.js";
import { planMerge, resolveMerge } from "../src/context/branches/merge.js";
import type { Branch } from "../src/model/branch.js";
import { TestConversation } from "../test/support/test-conversation.js";
import { type BenchFigure, median } from "./figure.js";

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** Appends `turns` turns of user question → tool call on a file → result → answer (4 messages each). */
function addTurns(c: TestConversation, prefix: string, turns: number): string[] {
  const ids: string[] = [];
  for (let i = 0; i < turns; i++) {
    const p = `${prefix}-${i}`;
    ids.push(c.user(`${p}-q`, `question ${i} `.repeat(20)));
    ids.push(
      c.toolRequest(`${p}-r`, [
        {
          id: `${p}-c`,
          name: i % 2 ? "edit_file" : "read_file",
          args: { path: `${prefix}/f${i}.ts`, text: "x" },
        },
      ]),
    );
    ids.push(c.toolResult(`${p}-t`, `${p}-r`, `${p}-c`, "result ".repeat(50)));
    ids.push(c.assistant(`${p}-a`, `answer ${i} `.repeat(40)));
  }
  return ids;
}

function timeCreate(): { perCreateMs: number } {
  const c = new TestConversation();
  const source = c.branch("main", addTurns(c, "m", 250)); // 1,000 messages
  const forkAt = source.message_ids[899] as string;
  const batch = 200;
  const run = (): number => {
    const started = performance.now();
    for (let i = 0; i < batch; i++) {
      createBranch({
        from: source,
        fromMessageId: forkAt,
        pool: c.lookup,
        newId: c.newId,
        now: c.now,
      });
    }
    return (performance.now() - started) / batch;
  };
  for (let i = 0; i < 20; i++) run();
  const times: number[] = [];
  for (let i = 0; i < 31; i++) {
    gc();
    times.push(run());
  }
  return { perCreateMs: median(times) };
}

function rebaseSetup(conflicting: boolean) {
  const c = new TestConversation();
  const shared = addTurns(c, "shared", 25); // 100 shared messages
  // the source diverges with an assistant message when conflict-free (the target starts with a
  // user turn), or with a user turn when it should conflict (divergent_continuation)
  const sourceLead = conflicting ? c.user("side-lead") : c.assistant("side-lead");
  const target: Branch = c.branch("main", [...shared, ...addTurns(c, "main", 100)]); // 500
  const source: Branch = c.branch(
    "side",
    [...shared, sourceLead, ...addTurns(c, "side", 100)].slice(0, 500),
  );
  return { c, source, target };
}

function timeRebase(conflicting: boolean): number {
  const { c, source, target } = rebaseSetup(conflicting);
  const run = (): number => {
    const started = performance.now();
    const outcome = planMerge({
      strategy: "rebase",
      source,
      target,
      pool: c.lookup,
      newId: c.newId,
      now: c.now,
    });
    let ids = 0;
    if (outcome.status === "merged") ids = outcome.result.target.message_ids.length;
    else if (outcome.status === "conflicts") {
      const resolved = resolveMerge({
        pending: outcome.pending,
        decision: {
          action: "resolve",
          resolutions: outcome.conflicts.map((k) => ({
            conflict_id: k.conflict_id,
            resolution: "keep_both",
          })),
        },
        target,
        pool: c.lookup,
        newId: c.newId,
        now: c.now,
      });
      if (resolved.status === "merged") ids = resolved.result.target.message_ids.length;
    }
    const elapsed = performance.now() - started;
    if (ids !== 900) throw new Error(`rebase bench: expected 900 merged ids, got ${ids}`);
    return elapsed;
  };
  for (let i = 0; i < 10; i++) run();
  const times: number[] = [];
  for (let i = 0; i < 21; i++) {
    gc();
    times.push(run());
  }
  return median(times);
}

export async function run(): Promise<BenchFigure[]> {
  const { perCreateMs } = timeCreate();
  const clean = timeRebase(false);
  const withConflicts = timeRebase(true);
  return [
    {
      name: "create a branch from a 1,000-message branch",
      value: perCreateMs,
      unit: "ms",
      target: "< 1 ms",
      pass: perCreateMs < 1,
      notes: "fork at message 900; median of 31 batches of 200",
    },
    {
      name: "merge two 500-message branches by rebase",
      value: clean,
      unit: "ms",
      target: "< 50 ms",
      pass: clean < 50,
      notes: `100 shared + 400 diverged each, conflict detection and validation included; median of 21. With a divergent_continuation conflict resolved keep_both (plan + resolve): ${withConflicts.toFixed(2)} ms`,
    },
  ];
}
