import { describe, expect, it } from "vitest";
import { collect, errors, harness, say } from "../../../test/support/session-harness.js";
import type { ScriptRequestView } from "../../testing/script.js";

// Ask N ways, after the verdict: another candidate's answer is taken (issue #27, case 9). The
// active branch goes on with it after a new notice; the answer chosen before is kept on that
// candidate's branch; nothing else changes.

/** Each candidate answers as its system prompt says; the judge picks the first. */
function script(view: ScriptRequestView) {
  const body = JSON.stringify(view.body);
  if (body.includes("impartial judge")) return say("1. The clearest.");
  for (const name of ["A", "B", "C"]) if (body.includes(`You are ${name}.`)) return say(`${name}!`);
  return say("?");
}

const askThreeWays = {
  payload: { type: "text" as const, text: "Which letter?" },
  candidates: ["A", "B", "C"].map((label) => ({ label, system_prompt: `You are ${label}.` })),
  judge: { strategy: "llm_judge" as const },
};

function texts(messages: ReadonlyArray<{ body: { message_type: string; text?: string } }>) {
  return messages.map((m) => (m.body.message_type === "text" ? m.body.text : m.body.message_type));
}

describe("choosing another candidate's answer", () => {
  it("swaps the answers between the active branch and the candidate's branch, in one write", async () => {
    const h = harness(script);
    const session = await h.manager.create();
    const asked = session.askParallel({ session_id: session.id, ...askThreeWays });
    expect(errors(await collect(asked))).toEqual([]);
    const verdict = await asked.result;
    if (!verdict.ok || verdict.value.type !== "chosen") throw new Error("no verdict");
    const { group_id, branch_ids } = verdict.value;
    const active = session.activeBranchId;
    expect(texts(session.messages().messages)).toEqual(["Which letter?", "system_control", "A!"]);

    const choice = session.chooseParallelAnswer(group_id, 1);
    const events = await collect(choice);
    expect(errors(events)).toEqual([]);
    const result = await choice.result;
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.selected).toBe(1);
    // B's answer continues the active branch; A's is kept where B's was
    expect(session.activeBranchId).toBe(active);
    expect(result.value.branch_ids).toEqual([branch_ids[1], active, branch_ids[2]]);
    const now = session.messages().messages;
    expect(texts(now)).toEqual(["Which letter?", "system_control", "B!"]);
    const notice = now[1]?.body;
    expect(notice?.message_type === "system_control" && notice.text).toBe(
      "Asked 3 ways; you chose B (A was chosen first: 1. The clearest.)",
    );
    const other = session.branches.find((b) => b.id === branch_ids[1]);
    expect(other?.name).toBe("A (asked 3 ways)");
    expect(texts(session.messages({ branchId: branch_ids[1] }).messages)).toEqual([
      "Which letter?",
      "A!",
    ]);
    expect(session.branches).toHaveLength(3);

    // back to A: the notice records the new choice; choosing the chosen one changes nothing
    const back = session.chooseParallelAnswer(group_id, 0);
    await collect(back);
    expect(texts(session.messages().messages)).toEqual(["Which letter?", "system_control", "A!"]);
    const again = session.chooseParallelAnswer(group_id, 0);
    expect(await collect(again)).toEqual([]);
    expect(texts(session.messages().messages)).toEqual(["Which letter?", "system_control", "A!"]);

    // it is stored: a new process reads the same branches
    const reloaded = await harness(script, { store: h.store }).manager.get(session.id);
    expect(texts(reloaded?.messages().messages ?? [])).toEqual([
      "Which letter?",
      "system_control",
      "A!",
    ]);
  });

  it("refuses an unknown group or candidate, naming the field", async () => {
    const h = harness(script);
    const session = await h.manager.create();
    const asked = session.askParallel({ session_id: session.id, ...askThreeWays });
    await collect(asked);
    const verdict = await asked.result;
    if (!verdict.ok || verdict.value.type !== "chosen") throw new Error("no verdict");
    const unknownGroup = await session.chooseParallelAnswer("nope", 1).result;
    expect(unknownGroup).toMatchObject({ ok: false, error: { code: "invalid_request" } });
    expect(!unknownGroup.ok && unknownGroup.error.message).toMatch(/^group_id: /);
    const unknownCandidate = await session.chooseParallelAnswer(verdict.value.group_id, 3).result;
    expect(!unknownCandidate.ok && unknownCandidate.error.message).toMatch(/^candidate: /);
    expect(texts(session.messages().messages)).toEqual(["Which letter?", "system_control", "A!"]);
  });
});
