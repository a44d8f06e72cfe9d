import { describe, expect, it } from "vitest";
import * as approvals from "@/app/api/sessions/[id]/approvals/route";
import * as events from "@/app/api/sessions/[id]/events/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import {
  authedRequest,
  createSessionId,
  finalState,
  jsonRequest,
  type ParsedSseEvent,
  params,
  parseSse,
  readSse,
  useTestServer,
} from "./support";

// Messages sent while the agent works, through the real routes and SSE (docs/decisions/0011):
// the POST answers with the `queued` update at once, GET /messages lists the queued message, and
// delivery shows as the usual created/completed updates. The run waits for a tool approval here,
// so the message is sent at a known point of the run without any timing.

const server = useTestServer();

function send(id: string, text: string, delivery?: "steer" | "follow_up"): Promise<Response> {
  return messages.POST(
    jsonRequest("POST", `/api/sessions/${id}/messages`, {
      session_id: id,
      payload: { type: "text", text },
      ...(delivery ? { delivery } : {}),
    }),
    params({ id }),
  );
}

interface Listed {
  messages: Array<{ id: string; role: string; status: string; body: { text?: string } }>;
  queued: Array<{ id: string; status: string; meta?: { delivery?: string } }>;
}

async function listed(id: string): Promise<Listed> {
  const response = await messages.GET(
    jsonRequest("GET", `/api/sessions/${id}/messages`),
    params({ id }),
  );
  expect(response.status).toBe(200);
  return (await response.json()) as Listed;
}

/** Reads GET /events from `after` until `done` says so, then closes the connection. */
async function eventsUntil(
  id: string,
  after: number,
  done: (seen: readonly ParsedSseEvent[]) => boolean,
): Promise<ParsedSseEvent[]> {
  const controller = new AbortController();
  const response = await events.GET(
    authedRequest(`http://localhost/api/sessions/${id}/events`, {
      headers: { "last-event-id": String(after) },
      signal: controller.signal,
    }),
    params({ id }),
  );
  expect(response.status).toBe(200);
  const reader = response.body?.getReader();
  if (!reader) throw new Error("no body");
  let text = "";
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
      const seen = parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2));
      if (done(seen)) return seen;
    }
  } finally {
    controller.abort();
    await reader.cancel().catch(() => undefined);
  }
  return parseSse(text);
}

function messageUpdate(event: ParsedSseEvent): Record<string, unknown> | undefined {
  return event.event === "context_update"
    ? (event.data.message_update as Record<string, unknown> | undefined)
    : undefined;
}

function requestText(index: number): string {
  return JSON.stringify(server.llm.requests[index]?.body ?? null);
}

/** A run that waits for the approval of one read_file call; returns the session and the call. */
async function runWaitingForApproval(): Promise<{ id: string; callId: string; last: number }> {
  server.llm.enqueue({
    blocks: [
      { type: "toolCall", id: "call_read", name: "read_file", arguments: { path: "notes.txt" } },
    ],
  });
  const id = await createSessionId({
    config: { approval_policy: { type: "manual" }, approve_read_only: false },
  });
  const first = await readSse(await send(id, "what is in notes.txt?"));
  expect(finalState(first)).toBe("AwaitingToolApproval");
  const state = first.filter((e) => e.event === "context_update").at(-1)?.data.current_state as {
    pending_requests: string[];
  };
  return {
    id,
    callId: state.pending_requests[0] ?? "",
    last: Math.max(...first.map((e) => e.id ?? 0)),
  };
}

describe("POST /messages while the agent works", () => {
  it("queues a steering message at once and delivers it after the tool's result, before the next request", async () => {
    const { id, callId } = await runWaitingForApproval();

    const queuedResponse = await send(id, "only the first line, please");
    expect(queuedResponse.status).toBe(200);
    expect(queuedResponse.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const queued = await readSse(queuedResponse);
    expect(queued).toHaveLength(1);
    const update = messageUpdate(queued[0] as ParsedSseEvent);
    expect(update).toMatchObject({
      kind: "queued",
      role: "user",
      message_type: "text",
      delivery: "steer",
    });
    expect(queued[0]?.id).toBeGreaterThan(0);
    const queuedId = String(update?.message_id);

    const before = await listed(id);
    expect(before.queued).toMatchObject([
      { id: queuedId, status: "queued", meta: { delivery: "steer" } },
    ]);
    expect(before.messages.map((m) => m.id)).not.toContain(queuedId);
    // waiting for the decision: nothing was asked of the model meanwhile
    expect(server.llm.requests).toHaveLength(1);

    server.llm.enqueue({ blocks: [{ type: "text", text: "alpha." }] });
    const decided = await readSse(
      await approvals.POST(
        jsonRequest("POST", `/api/sessions/${id}/approvals`, {
          decisions: [{ tool_call_id: callId, decision: "approve" }],
        }),
        params({ id }),
      ),
    );
    expect(finalState(decided)).toBe("Idle");
    const kinds = decided.flatMap((e) => {
      const u = messageUpdate(e);
      return u?.message_id === queuedId ? [u.kind] : [];
    });
    expect(kinds).toEqual(["created", "completed"]);

    // the model's second request holds the tool result, then the steering message, last
    const second = requestText(1);
    expect(second).toContain("gamma");
    expect(second.indexOf("only the first line, please")).toBeGreaterThan(second.indexOf("gamma"));
    const after = await listed(id);
    expect(after.queued).toEqual([]);
    expect(after.messages.map((m) => m.body.text || m.role)).toEqual([
      "what is in notes.txt?",
      "assistant",
      "tool",
      "only the first line, please",
      "alpha.",
    ]);
    expect(after.messages.find((m) => m.id === queuedId)?.status).toBe("complete");
  });

  it("a follow-up waits for the run to end, then starts the next run, seen on GET /events", async () => {
    const { id, callId, last } = await runWaitingForApproval();
    const queued = await readSse(await send(id, "now summarise it", "follow_up"));
    const queuedId = String(messageUpdate(queued[0] as ParsedSseEvent)?.message_id);
    expect(messageUpdate(queued[0] as ParsedSseEvent)).toMatchObject({ delivery: "follow_up" });

    server.llm.enqueue(
      { blocks: [{ type: "text", text: "It lists three words." }] },
      { blocks: [{ type: "text", text: "Three Greek letters." }] },
    );
    const decided = await readSse(
      await approvals.POST(
        jsonRequest("POST", `/api/sessions/${id}/approvals`, {
          decisions: [{ tool_call_id: callId, decision: "approve" }],
        }),
        params({ id }),
      ),
    );
    // the decision's own run does not deliver it: the model answered first
    expect(JSON.stringify(decided)).not.toContain(queuedId);
    expect(requestText(1)).not.toContain("now summarise it");

    // the server starts the next run by itself: the live stream shows it to its end
    const seen = await eventsUntil(id, last, (s) => {
      const delivered = s.findIndex(
        (e) => messageUpdate(e)?.message_id === queuedId && messageUpdate(e)?.kind === "created",
      );
      return delivered !== -1 && s.slice(delivered).some((e) => finalState([e]) === "Idle");
    });
    const ids = seen.map((e) => e.id ?? 0);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // after the decision's run: a new run, through the pipeline like any message
    const endOfDecision = Math.max(...decided.map((e) => e.id ?? 0));
    const moves = seen
      .filter((e) => (e.id ?? 0) > endOfDecision && e.event === "context_update")
      .filter((e) => e.data.previous_state !== undefined)
      .map((e) => (e.data.current_state as { type: string }).type);
    expect(moves[0]).toBe("ProcessingUserMessage");
    expect(moves.at(-1)).toBe("Idle");
    expect(requestText(2)).toContain("now summarise it");
    const after = await listed(id);
    expect(after.queued).toEqual([]);
    expect(after.messages.map((m) => m.body.text || m.role).slice(-3)).toEqual([
      "It lists three words.",
      "now summarise it",
      "Three Greek letters.",
    ]);
  });

  it("answers 400 naming `delivery` when it is not steer or follow_up", async () => {
    const id = await createSessionId();
    const response = await messages.POST(
      jsonRequest("POST", `/api/sessions/${id}/messages`, {
        session_id: id,
        payload: { type: "text", text: "hi" },
        delivery: "later",
      }),
      params({ id }),
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { fields: Array<{ field: string }> };
    expect(body.fields.map((f) => f.field)).toEqual(["delivery"]);
  });
});
