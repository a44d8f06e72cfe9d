import type { ContextUsage, MessagesResponse, OptimizeResponse } from "@arbor/core";
import { isSummaryRequest } from "@arbor/core/testing";
import { describe, expect, it } from "vitest";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as optimize from "@/app/api/sessions/[id]/optimize/route";
import {
  authedRequest,
  createSessionId,
  finalState,
  jsonRequest,
  params,
  sendText,
  useTestServer,
} from "./support";

// Issue #15 over HTTP, against the fake LLM server (the Anthropic wire format): "Optimize now"
// (POST /optimize) with summaries written by the session's model, the fixed part of every
// request in GET /messages' context_usage, and the planted facts surviving in the summary.

const server = useTestServer();

const PADDING = "The archive review goes on, shelf after shelf, with nothing new. ".repeat(6);

async function list(id: string, view: "full" | "optimized" = "optimized") {
  const response = await messages.GET(
    authedRequest(`http://localhost/api/sessions/${id}/messages?view=${view}`),
    params({ id }),
  );
  expect(response.status).toBe(200);
  return (await response.json()) as MessagesResponse;
}

async function optimizeNow(id: string) {
  return optimize.POST(jsonRequest("POST", `/api/sessions/${id}/optimize`), params({ id }));
}

describe("context quality over HTTP", () => {
  it("Optimize now: the session's model summarizes, keeping the planted facts; the usage meter's figures follow", async () => {
    // a 6,000-token window aimed at 40%: the fixed part (~2,000 tokens) and five padded turns
    // are over it, far below the trigger
    const id = await createSessionId({
      config: {
        model: { protocol: "anthropic-messages", model: "claude-test", context_window: 6_000 },
        // the figures below are Arbor's estimate: the fake LLM counts JSON / 4 (docs/context-optimization.md)
        optimization: {
          strategy: { type: "recent_n", n: 2 },
          target_ratio: 0.4,
          token_counting: "estimate",
        },
      },
    });
    for (let i = 1; i <= 5; i++) {
      server.llm.enqueue({ blocks: [{ type: "text", text: `Noted, room ${i}.` }] });
      const events = await sendText(
        id,
        `The vault code for room R${i} is garnet-10${i}4. Keep it. ${PADDING}`,
      );
      expect(finalState(events)).toBe("Idle");
    }
    const before = await list(id);
    const usage = before.context_usage as ContextUsage;
    expect(usage.fixed).toBe(usage.system_prompt + usage.tools);
    expect(usage.tools).toBeGreaterThan(0);
    expect(usage.total).toBe(usage.fixed + usage.messages);
    expect(usage.context_window).toBe(6_000);
    expect(usage.trigger).toBe(4_800);
    expect(usage.target).toBe(2_400);
    expect(usage.total).toBeGreaterThan(usage.target);

    const response = await optimizeNow(id);
    expect(response.status).toBe(200);
    const body = (await response.json()) as OptimizeResponse;
    expect(body.changed).toBe(true);
    expect(body.optimization).toMatchObject({ strategy: "recent_n" });
    expect(body.context_usage.messages).toBeLessThan(usage.messages);

    // the model was asked (a summary request, not a scripted turn), and its summary kept the codes
    const asked = server.llm.requests.filter((r) => isSummaryRequest(r.body));
    expect(asked).toHaveLength(1);
    const after = await list(id);
    const summary = after.messages[0]!;
    expect(summary.body).toMatchObject({
      message_type: "system_control",
      kind: "summary",
      data: { summarizer: "llm", model: expect.stringContaining("anthropic-messages/") },
    });
    for (let i = 1; i <= 4; i++) expect(JSON.stringify(summary.body)).toContain(`garnet-10${i}4`);
    expect(after.optimizations.at(-1)?.id).toBe(body.optimization?.id);

    // within the target already: nothing to do
    const again = (await (await optimizeNow(id)).json()) as OptimizeResponse;
    expect(again).toMatchObject({ changed: false, optimization: null });
  });

  it("ARBOR_SUMMARIES=extractive never asks the model for a summary", async () => {
    await server.restart({ ARBOR_SUMMARIES: "extractive" });
    const id = await createSessionId({
      config: {
        model: { protocol: "anthropic-messages", model: "claude-test", context_window: 6_000 },
        // the figures below are Arbor's estimate: the fake LLM counts JSON / 4 (docs/context-optimization.md)
        optimization: {
          strategy: { type: "recent_n", n: 2 },
          target_ratio: 0.4,
          token_counting: "estimate",
        },
      },
    });
    for (let i = 1; i <= 5; i++) {
      server.llm.enqueue({ blocks: [{ type: "text", text: `Noted, room ${i}.` }] });
      await sendText(id, `The vault code for room R${i} is amber-20${i}0. ${PADDING}`);
    }
    const body = (await (await optimizeNow(id)).json()) as OptimizeResponse;
    expect(body.changed).toBe(true);
    expect(server.llm.requests.filter((r) => isSummaryRequest(r.body))).toHaveLength(0);
    const summary = (await list(id)).messages[0]!;
    expect(summary.body).toMatchObject({ data: { summarizer: "extractive" } });
    expect(JSON.stringify(summary.body)).toContain("amber-2010");
  });

  it("answers 404 for an unknown session and 409 while the session is not Idle", async () => {
    const missing = await optimizeNow("no-such-session");
    expect(missing.status).toBe(404);
    const id = await createSessionId({
      config: { approval_policy: { type: "manual" }, approve_read_only: false },
    });
    server.llm.enqueue({
      blocks: [{ type: "toolCall", name: "read_file", arguments: { path: "notes.txt" } }],
    });
    const events = await sendText(id, "read the notes");
    expect(finalState(events)).toBe("AwaitingToolApproval");
    const busy = await optimizeNow(id);
    expect(busy.status).toBe(409);
  });
});
