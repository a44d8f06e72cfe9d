import { isSummaryRequest } from "@arbor/core/testing";
import { describe, expect, it } from "vitest";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import {
  createSessionId,
  finalState,
  jsonRequest,
  type ParsedSseEvent,
  params,
  sendText,
  useTestServer,
} from "./support";

// Issue #10 item 5 over HTTP: the fake LLM server answers 400 "prompt is too long" in Anthropic's
// own error format; the session optimizes the branch, says so in a context_update, stores the
// optimization (the transcript's divider) and retries once. A second overflow fails clearly.

const server = useTestServer();

const OVERFLOW = {
  error: { status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum" },
};
const TURNS = 6;

/** A session with TURNS long exchanges, answered by the fake server's default reply. */
async function longSession(): Promise<string> {
  const id = await createSessionId();
  for (let i = 0; i < TURNS; i++) {
    expect(finalState(await sendText(id, `question ${i} ${"word ".repeat(300)}`))).toBe("Idle");
  }
  return id;
}

function overflowUpdates(events: readonly ParsedSseEvent[]) {
  return events.filter(
    (e) =>
      e.event === "context_update" &&
      (e.data.metadata as Record<string, unknown>).reason === "context_overflow",
  );
}

/** The conversation's requests (the model's summary requests left out: issue #15). */
function conversation() {
  return server.llm.requests.filter((r) => !isSummaryRequest(r.body));
}

/** The messages of one Anthropic request of the conversation the fake server received. */
function sentMessages(index: number): unknown[] {
  const request = conversation()[index];
  if (request === undefined) throw new Error(`no request ${index}`);
  expect(request.protocol).toBe("anthropic-messages");
  return (request.body as { messages: unknown[] }).messages;
}

describe("context overflow over HTTP", () => {
  it("400 prompt is too long once: optimized, said so, retried, answered", async () => {
    const id = await longSession();
    server.llm.enqueue(OVERFLOW, { blocks: [{ type: "text", text: "Fits now." }] });
    const events = await sendText(id, "and now?");

    expect(events.filter((e) => e.event === "error")).toEqual([]);
    expect(finalState(events)).toBe("Idle");
    const [update, ...more] = overflowUpdates(events);
    expect(more).toEqual([]);
    expect(update?.data).toMatchObject({
      current_state: { type: "OptimizingContext" },
      metadata: { changed: true, retrying: true },
    });
    // the refused request and the one sent again, smaller; the summary was the model's
    expect(conversation()).toHaveLength(TURNS + 2);
    expect(server.llm.requests.filter((r) => isSummaryRequest(r.body)).length).toBeGreaterThan(0);
    expect(sentMessages(TURNS + 1).length).toBeLessThan(sentMessages(TURNS).length);
    const text = events
      .filter((e) => e.event === "content_delta")
      .map((e) => e.data.delta)
      .join("");
    expect(text).toBe("Fits now.");

    // the optimization is stored: GET ?view=optimized lists it (the transcript's divider)
    const read = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages?view=optimized`),
      params({ id }),
    );
    expect(read.status).toBe(200);
    const view = (await read.json()) as {
      messages: Array<{ role: string }>;
      optimizations: Array<{ id: string; tokens_before: number; tokens_after: number }>;
    };
    const metadata = update?.data.metadata as Record<string, unknown>;
    expect(view.optimizations.map((o) => o.id)).toEqual([metadata.optimization_id]);
    expect(view.optimizations[0]?.tokens_after).toBeLessThan(
      view.optimizations[0]?.tokens_before ?? 0,
    );
  });

  it("a second overflow fails the run with a clear context_overflow error", async () => {
    const id = await longSession();
    server.llm.enqueue(OVERFLOW, OVERFLOW);
    const events = await sendText(id, "and now?");
    expect(overflowUpdates(events)).toHaveLength(1);
    expect(conversation()).toHaveLength(TURNS + 2);
    expect(finalState(events)).toBe("Failed");
    const errors = events.filter((e) => e.event === "error").map((e) => e.data);
    expect(errors).toMatchObject([{ code: "context_overflow", recoverable: true }]);
    expect(errors[0]?.message).toMatch(/still too long for the model after optimizing it/);
    expect(errors[0]?.message).toContain("prompt is too long: 250000 tokens > 200000 maximum");
  });
});
