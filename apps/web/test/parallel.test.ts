import type { ScriptedTurn, ScriptRequestView } from "@arbor/core/testing";
import { describe, expect, it } from "vitest";
import * as loops from "@/app/api/admin/sessions/[id]/loops/route";
import * as approvals from "@/app/api/sessions/[id]/approvals/route";
import * as branches from "@/app/api/sessions/[id]/branches/route";
import * as eventsRoute from "@/app/api/sessions/[id]/events/route";
import * as interrupt from "@/app/api/sessions/[id]/interrupt/route";
import * as merges from "@/app/api/sessions/[id]/merges/route";
import * as parallel from "@/app/api/sessions/[id]/messages/parallel/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as sessionRoute from "@/app/api/sessions/[id]/route";
import * as sessions from "@/app/api/sessions/route";
import {
  authedRequest,
  createSessionId,
  finalState,
  jsonRequest,
  type ParsedSseEvent,
  params,
  readSse,
  readUntil,
  sendText,
  useTestServer,
} from "./support";

// POST /api/sessions/{id}/messages/parallel: ask N ways (issue #14), over HTTP with the fake LLM.

const server = useTestServer();

const MODELS = ["model-a", "model-b", "model-c"];

function candidates(n = 3) {
  return MODELS.slice(0, n).map((model, i) => ({
    label: `Way ${i + 1}`,
    model: { protocol: "anthropic-messages", model },
  }));
}

function isJudge(request: ScriptRequestView): boolean {
  return JSON.stringify(request.body).includes("impartial judge");
}

/** Each candidate answers "answer from <model>"; the judge names `pick` (1-based). */
function script(
  pick: number,
  extra: (r: ScriptRequestView) => ScriptedTurn | undefined = () => undefined,
) {
  server.llm.setScript((request) => {
    if (isJudge(request)) {
      return { blocks: [{ type: "text", text: `${pick}. It is the clearest answer.` }] };
    }
    return (
      extra(request) ?? {
        blocks: [{ type: "text", text: `answer from ${request.model}` }],
        chunkSize: 4,
      }
    );
  });
}

function ask(id: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
  return parallel.POST(
    authedRequest(`http://localhost/api/sessions/${id}/messages/parallel`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        session_id: id,
        payload: { type: "text", text: "What is 2+2?" },
        ...body,
      }),
      ...(signal ? { signal } : {}),
    }),
    params({ id }),
  );
}

async function branchMessages(id: string, branch?: string) {
  const query = branch ? `?branch=${branch}` : "";
  const response = await messages.GET(
    authedRequest(`http://localhost/api/sessions/${id}/messages${query}`),
    params({ id }),
  );
  expect(response.status).toBe(200);
  return (
    (await response.json()) as {
      messages: Array<{
        id: string;
        role: string;
        body: { message_type: string; text?: string; data?: Record<string, unknown> };
      }>;
    }
  ).messages;
}

function texts(list: Awaited<ReturnType<typeof branchMessages>>): string[] {
  return list.map((m) => `${m.role}:${m.body.text ?? m.body.message_type}`);
}

async function listBranches(id: string) {
  const response = await branches.GET(
    authedRequest(`http://localhost/api/sessions/${id}/branches`),
    params({ id }),
  );
  return (await response.json()) as {
    active_branch_id: string;
    branches: Array<{ id: string; name: string; fork_message_id: string | null }>;
  };
}

describe("POST /api/sessions/{id}/messages/parallel", () => {
  it("streams every candidate tagged with its index, stores the verdict, keeps the others as branches", async () => {
    const id = await createSessionId({ config: { approval_policy: { type: "auto_approve_all" } } });
    script(2);
    const before = await listBranches(id);
    const response = await ask(id, { candidates: candidates() });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = await readSse(response);
    expect(events.some((e) => e.event === "error")).toBe(false);

    const started = events.find((e) => e.event === "parallel_started");
    const listed = started?.data.candidates as Array<{
      index: number;
      model: string;
      label: string;
    }>;
    expect(listed.map((c) => [c.index, c.model, c.label])).toEqual([
      [0, "model-a", "Way 1"],
      [1, "model-b", "Way 2"],
      [2, "model-c", "Way 3"],
    ]);
    // each column's text, from its own deltas
    for (const [index, model] of MODELS.entries()) {
      const text = events
        .filter((e) => e.event === "candidate_delta" && e.data.candidate === index)
        .map((e) => e.data.delta)
        .join("");
      expect(text).toBe(`answer from ${model}`);
    }
    const finished = events.filter((e) => e.event === "candidate_finished");
    expect(finished.map((e) => e.data.candidate).sort()).toEqual([0, 1, 2]);
    expect(finished.every((e) => e.data.status === "complete")).toBe(true);

    const verdict = events.find((e) => e.event === "parallel_verdict");
    expect(verdict?.data.selected).toBe(1);
    expect(verdict?.data.reason).toContain("It is the clearest answer.");
    expect(verdict?.data.strategy).toBe("llm_judge");
    expect(finalState(events)).toBe("Idle");
    // every event is stored with a sequence (a reconnect replays them)
    expect(events.every((e) => typeof e.id === "number" && e.id > 0)).toBe(true);

    // the chosen answer continues the active branch, after the verdict's notice
    const active = await branchMessages(id);
    expect(texts(active).at(0)).toBe("user:What is 2+2?");
    expect(texts(active).at(-1)).toBe("assistant:answer from model-b");
    const notice = active.find((m) => m.body.message_type === "system_control");
    const noticed = notice?.body.data?.parallel as { selected: number } | undefined;
    expect(noticed?.selected).toBe(1);

    // the others are ordinary branches forked after the user's message
    const after = await listBranches(id);
    expect(after.active_branch_id).toBe(before.active_branch_id);
    const created = after.branches.filter((b) => !before.branches.some((o) => o.id === b.id));
    expect(created).toHaveLength(2);
    const kept = verdict?.data.candidates as Array<{ index: number; branch_id: string }>;
    expect(kept[1]?.branch_id).toBe(before.active_branch_id);
    for (const index of [0, 2]) {
      const branch = kept[index]?.branch_id ?? "";
      expect(created.map((b) => b.id)).toContain(branch);
      expect(created.find((b) => b.id === branch)?.fork_message_id).toBe(active[0]?.id);
      expect(texts(await branchMessages(id, branch))).toEqual([
        "user:What is 2+2?",
        `assistant:answer from ${MODELS[index]}`,
      ]);
    }

    // usage: every candidate's and the judge's, summed; the session's usage counts them all
    const usage = verdict?.data.usage as { totalTokens: number };
    const evaluation = verdict?.data.evaluation_usage as { totalTokens: number };
    const perCandidate = finished.map((e) => (e.data.usage as { totalTokens: number }).totalTokens);
    expect(evaluation.totalTokens).toBeGreaterThan(0);
    expect(usage.totalTokens).toBe(
      perCandidate.reduce((a, b) => a + b, 0) + evaluation.totalTokens,
    );
    const list = await sessions.GET(authedRequest("http://localhost/api/sessions"), params({}));
    const summary = (
      (await list.json()) as Array<{ id: string; usage: { totalTokens: number } }>
    ).find((s) => s.id === id);
    expect(summary?.usage.totalTokens).toBe(usage.totalTokens);

    // cost (issue #28): the candidates' models have no price (null, never 0); the judge runs on
    // the session's claude-sonnet-4-5, priced; their sum is the judge's alone, marked incomplete
    type Costed = { cost_usd: number | null; cost_complete: boolean };
    for (const e of finished) {
      expect(e.data.usage).toMatchObject({ cost_usd: null, cost_complete: false });
    }
    const judged = verdict?.data.evaluation_usage as Costed;
    expect(judged.cost_complete).toBe(true);
    expect(judged.cost_usd).toBeGreaterThan(0);
    const summed = verdict?.data.usage as Costed;
    expect(summed.cost_complete).toBe(false);
    expect(summed.cost_usd).toBeCloseTo(judged.cost_usd!, 12);
    const costedSummary = summary as unknown as { usage: Costed } | undefined;
    expect(costedSummary?.usage.cost_usd).toBeCloseTo(judged.cost_usd!, 12);
    expect(costedSummary?.usage.cost_complete).toBe(false);

    // the admin loop tree shows the group: three loops, one selected
    const tree = await loops.GET(
      authedRequest(`http://localhost/api/admin/sessions/${id}/loops`),
      params({ id }),
    );
    expect(tree.status).toBe(200);
    const treeJson = (await tree.json()) as {
      loops: Array<{ parallel_group?: { evaluation_usage?: Costed & { totalTokens: number } } }>;
    };
    const body = JSON.stringify(treeJson);
    const group = started?.data.group_id as string;
    expect(body.split(`"group_id":"${group}"`).length - 1).toBe(3);
    expect(body).toContain('"is_selected":true');
    // each member repeats what the judge spent, priced by the judge's model (decision 0066)
    const members = treeJson.loops.flatMap((l) => (l.parallel_group ? [l.parallel_group] : []));
    for (const member of members) {
      expect(member.evaluation_usage).toMatchObject({
        totalTokens: evaluation.totalTokens,
        cost_complete: true,
      });
      expect(member.evaluation_usage?.cost_usd).toBeCloseTo(judged.cost_usd!, 12);
    }

    // the conversation goes on from the chosen answer
    server.llm.setScript((request) => ({
      blocks: [{ type: "text", text: `next from ${request.model}` }],
    }));
    const next = await sendText(id, "and 3+3?");
    expect(finalState(next)).toBe("Idle");
    const lastRequest = JSON.stringify(server.llm.requests.at(-1)?.body);
    expect(lastRequest).toContain("answer from model-b");
    expect(lastRequest).not.toContain("answer from model-a");
  });

  it("a client that reconnects gets the whole group again from the event log", async () => {
    const id = await createSessionId({ config: { approval_policy: { type: "auto_approve_all" } } });
    script(1);
    const live = await readSse(await ask(id, { candidates: candidates(2) }));
    const first = live.find((e) => e.event === "parallel_started")?.id ?? 1;
    const controller = new AbortController();
    const response = await eventsRoute.GET(
      authedRequest(`http://localhost/api/sessions/${id}/events`, {
        headers: { "last-event-id": String(first - 1) },
        signal: controller.signal,
      }),
      params({ id }),
    );
    expect(response.status).toBe(200);
    const { seen } = await readUntil(response, (events) =>
      events.some((e) => e.event === "parallel_verdict"),
    );
    controller.abort();
    const names = (list: ParsedSseEvent[]) =>
      list.filter((e) => (e.id ?? 0) >= first).map((e) => `${e.id}:${e.event}`);
    // the replay is the live stream, event for event, from the group's start to its verdict
    const upToVerdict = (list: ParsedSseEvent[]) =>
      list.slice(0, list.findIndex((e) => e.event === "parallel_verdict") + 1);
    expect(names(upToVerdict(seen))).toEqual(names(upToVerdict(live)));
    const replayed = seen.filter((e) => e.event === "candidate_delta" && e.data.candidate === 1);
    expect(replayed.map((e) => e.data.delta).join("")).toBe("answer from model-b");
  });

  it("a candidate branch can be merged into the active one", async () => {
    const id = await createSessionId({ config: { approval_policy: { type: "auto_approve_all" } } });
    script(1);
    const events = await readSse(await ask(id, { candidates: candidates(2) }));
    const verdict = events.find((e) => e.event === "parallel_verdict");
    const kept = verdict?.data.candidates as Array<{ branch_id: string; message_ids: string[] }>;
    const other = kept[1];
    const { active_branch_id } = await listBranches(id);
    const response = await merges.POST(
      jsonRequest("POST", `/api/sessions/${id}/merges`, {
        source_branch_id: other?.branch_id,
        target_branch_id: active_branch_id,
        strategy: "cherry_pick",
        message_ids: other?.message_ids,
      }),
      params({ id }),
    );
    expect(response.status).toBe(200);
    const merged = (await response.json()) as { status: string };
    expect(["merged", "needs_confirmation"]).toContain(merged.status);
  });

  it("pick_first and token_efficient choose without a judge request", async () => {
    const id = await createSessionId({ config: { approval_policy: { type: "auto_approve_all" } } });
    server.llm.setScript((request) => ({
      blocks: [
        { type: "text", text: request.model === "model-a" ? "a long answer ".repeat(20) : "short" },
      ],
    }));
    const events = await readSse(
      await ask(id, { candidates: candidates(2), judge: { strategy: "token_efficient" } }),
    );
    const verdict = events.find((e) => e.event === "parallel_verdict");
    expect(verdict?.data.selected).toBe(1);
    expect(
      server.llm.requests.some((r) => JSON.stringify(r.body).includes("impartial judge")),
    ).toBe(false);
    const events2 = await readSse(
      await ask(id, { candidates: candidates(2), judge: { strategy: "pick_first" } }),
    );
    expect(events2.find((e) => e.event === "parallel_verdict")?.data.selected).toBe(0);
  });

  it("a candidate that needs approval waits in its own column; the others go on", async () => {
    const id = await createSessionId({
      config: { approval_policy: { type: "manual" }, approve_read_only: false },
    });
    script(1, (request) => {
      if (request.model !== "model-a") return undefined;
      const sent = JSON.stringify(request.body);
      // candidate 0: a read_file call first, then an answer from the tool's result
      if (!sent.includes("tool_result")) {
        return {
          blocks: [
            {
              type: "toolCall",
              id: "call_read",
              name: "read_file",
              arguments: { path: "notes.txt" },
            },
          ],
        };
      }
      return {
        blocks: [{ type: "text", text: `read it: ${sent.includes("beta") ? "beta" : "?"}` }],
      };
    });
    const response = await ask(id, { candidates: candidates(2) });
    const { seen, rest } = await readUntil(
      response,
      (events) =>
        events.some((e) => e.event === "candidate_tool" && e.data.status === "pending_approval") &&
        events.some((e) => e.event === "candidate_finished" && e.data.candidate === 1),
    );
    const pending = seen.find(
      (e) => e.event === "candidate_tool" && e.data.status === "pending_approval",
    );
    expect(pending?.data.candidate).toBe(0);
    expect(pending?.data.tool_name).toBe("read_file");
    // candidate 1 finished while candidate 0 waits; no verdict yet
    expect(seen.some((e) => e.event === "parallel_verdict")).toBe(false);

    const decided = await approvals.POST(
      jsonRequest("POST", `/api/sessions/${id}/approvals`, {
        decisions: [{ tool_call_id: "call_read", decision: "approve", remember: true }],
      }),
      params({ id }),
    );
    expect(decided.status).toBe(200);
    const decision = await readSse(decided);
    expect(decision.map((e) => [e.event, e.data.status, e.data.candidate])).toEqual([
      ["candidate_tool", "approved", 0],
    ]);

    const events = await rest();
    expect(events.some((e) => e.event === "error")).toBe(false);
    const tool = events.filter((e) => e.event === "candidate_tool").map((e) => e.data.status);
    expect(tool).toEqual(["pending_approval", "approved", "running", "done"]);
    const first = events.find((e) => e.event === "candidate_finished" && e.data.candidate === 0);
    expect(first?.data.text).toBe("read it: beta");
    expect(events.find((e) => e.event === "parallel_verdict")?.data.selected).toBe(0);
    expect(finalState(events)).toBe("Idle");
    // the chosen candidate's tool round is on the active branch, its call approved
    const active = await branchMessages(id);
    expect(active.map((m) => m.body.message_type)).toEqual([
      "text",
      "system_control",
      "tool_request",
      "tool_result",
      "text",
    ]);
    const request = active[2]?.body as unknown as { calls: Array<{ approval: string }> };
    expect(request.calls[0]?.approval).toBe("approved");
    // remember: the tool joined the session's white list
    const config = await sessionRoute.GET(
      authedRequest(`http://localhost/api/sessions/${id}`),
      params({ id }),
    );
    expect(
      ((await config.json()) as { config: { approval_policy: unknown } }).config.approval_policy,
    ).toEqual({
      type: "white_list",
      tools: ["read_file"],
    });
  });

  it("a denied call is refused to that candidate only", async () => {
    const id = await createSessionId({
      config: { approval_policy: { type: "manual" }, approve_read_only: false },
    });
    script(2, (request) => {
      if (request.model !== "model-a") return undefined;
      const sent = JSON.stringify(request.body);
      if (!sent.includes("tool_result")) {
        return {
          blocks: [
            {
              type: "toolCall",
              id: "call_deny",
              name: "read_file",
              arguments: { path: "notes.txt" },
            },
          ],
        };
      }
      return { blocks: [{ type: "text", text: sent.includes("denied") ? "denied, fine" : "ran" }] };
    });
    const response = await ask(id, { candidates: candidates(2) });
    const { rest } = await readUntil(response, (events) =>
      events.some((e) => e.event === "candidate_tool" && e.data.status === "pending_approval"),
    );
    await readSse(
      await approvals.POST(
        jsonRequest("POST", `/api/sessions/${id}/approvals`, {
          decisions: [{ tool_call_id: "call_deny", decision: "deny" }],
        }),
        params({ id }),
      ),
    );
    const events = await rest();
    expect(
      events.find((e) => e.event === "candidate_finished" && e.data.candidate === 0)?.data.text,
    ).toBe("denied, fine");
    expect(events.find((e) => e.event === "parallel_verdict")?.data.selected).toBe(1);
  });

  it("a candidate whose model request fails is passed over; nothing else is lost", async () => {
    const id = await createSessionId({ config: { approval_policy: { type: "auto_approve_all" } } });
    script(1, (request) =>
      request.model === "model-a" ? { error: { status: 400, message: "bad model" } } : undefined,
    );
    const events = await readSse(await ask(id, { candidates: candidates(2) }));
    const failed = events.find((e) => e.event === "candidate_finished" && e.data.candidate === 0);
    expect(failed?.data.status).toBe("failed");
    expect(failed?.data.error).toContain("bad model");
    const verdict = events.find((e) => e.event === "parallel_verdict");
    // the only candidate that finished: no judge asked
    expect(verdict?.data.selected).toBe(1);
    expect(
      server.llm.requests.some((r) => JSON.stringify(r.body).includes("impartial judge")),
    ).toBe(false);
    expect(finalState(events)).toBe("Idle");
    expect(texts(await branchMessages(id)).at(-1)).toBe("assistant:answer from model-b");
  });

  it("an interrupt stops every candidate and keeps what they wrote", async () => {
    const id = await createSessionId({ config: { approval_policy: { type: "auto_approve_all" } } });
    server.llm.setScript(() => ({
      blocks: [{ type: "text", text: "slow words ".repeat(40) }],
      chunkSize: 5,
      chunkDelayMs: 30,
    }));
    const response = await ask(id, { candidates: candidates(2) });
    const { rest } = await readUntil(
      response,
      (events) =>
        events.some((e) => e.event === "candidate_delta" && e.data.candidate === 0) &&
        events.some((e) => e.event === "candidate_delta" && e.data.candidate === 1),
    );
    const stopped = await interrupt.POST(
      jsonRequest("POST", `/api/sessions/${id}/interrupt`),
      params({ id }),
    );
    expect(stopped.status).toBe(200);
    expect(((await stopped.json()) as { state: { type: string } }).state.type).toBe("Idle");
    const events = await rest();
    const finished = events.filter((e) => e.event === "candidate_finished");
    expect(finished.map((e) => e.data.status)).toEqual(["aborted", "aborted"]);
    const verdict = events.find((e) => e.event === "parallel_verdict");
    expect(verdict).toBeDefined();
    expect(finalState(events)).toBe("Idle");
    // each cut answer is kept (incomplete) on its branch
    const kept = verdict?.data.candidates as Array<{ branch_id: string; message_ids: string[] }>;
    for (const candidate of kept) {
      expect(candidate.message_ids).toHaveLength(1);
      const list = await branchMessages(id, candidate.branch_id);
      const answer = list.find((m) => m.id === candidate.message_ids[0]);
      expect(answer?.body.text).toMatch(/^slow/);
    }
  });

  it("answers 400 naming the wrong field, storing nothing", async () => {
    const id = await createSessionId();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ candidates: candidates(1) }, "candidates"],
      [{ candidates: [{ temperature: 5 }, {}] }, "candidates.0.temperature"],
      [{ candidates: [{}, { thinking_level: "huge" }] }, "candidates.1.thinking_level"],
      [{ candidates: [{}, {}], judge: { strategy: "coin" } }, "judge.strategy"],
      [
        { candidates: [{}, { model: { protocol: "openai-chat", model: "gpt-x" } }] },
        "candidates.1.model",
      ],
      [
        { candidates: [{}, {}], judge: { model: { protocol: "openai-chat", model: "gpt-x" } } },
        "judge.model",
      ],
    ];
    for (const [body, field] of cases) {
      const response = await ask(id, body);
      expect(response.status, field).toBe(400);
      const error = (await response.json()) as { fields: Array<{ field: string }> };
      expect(error.fields.map((f) => f.field)).toContain(field);
    }
    const wrongSession = await parallel.POST(
      jsonRequest("POST", `/api/sessions/${id}/messages/parallel`, {
        session_id: "other",
        payload: { type: "text", text: "x" },
        candidates: [{}, {}],
      }),
      params({ id }),
    );
    expect(wrongSession.status).toBe(400);
    expect(await branchMessages(id)).toEqual([]);
    expect(server.llm.requests).toHaveLength(0);
  });

  it("needs the token", async () => {
    const id = await createSessionId();
    const response = await parallel.POST(
      new Request(`http://localhost/api/sessions/${id}/messages/parallel`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          session_id: id,
          payload: { type: "text", text: "x" },
          candidates: [{}, {}],
        }),
      }),
      params({ id }),
    );
    expect(response.status).toBe(401);
  });

  it("answers 404 for an unknown session", async () => {
    const response = await parallel.POST(
      jsonRequest("POST", "/api/sessions/no-such-session/messages/parallel", {
        session_id: "no-such-session",
        payload: { type: "text", text: "x" },
        candidates: [{}, {}],
      }),
      params({ id: "no-such-session" }),
    );
    expect(response.status).toBe(404);
    expect(server.llm.requests).toHaveLength(0);
  });
});
