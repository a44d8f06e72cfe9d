import {
  costOfUsage,
  type LoopTreeResponse,
  type MessagesResponse,
  type SessionSummary,
} from "@arbor/core";
import { afterEach, describe, expect, it } from "vitest";
import * as loops from "@/app/api/admin/sessions/[id]/loops/route";
import * as config from "@/app/api/sessions/[id]/config/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as sessions from "@/app/api/sessions/route";
import { jsonRequest, params, readSse, startTestServer, type TestServer } from "./support";

// Issue #28: every usage the API answers carries its cost at list prices (`cost_usd`), null when
// the model has no price (never 0), and sums say whether they are complete (decision 0062).

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const USAGE = { input: 1000, output: 200, cacheRead: 3000, cacheWrite: 400 };

async function answeredSession(model?: string): Promise<string> {
  const created = await sessions.POST(jsonRequest("POST", "/api/sessions", {}), params({}));
  const id = ((await created.json()) as { session_id: string }).session_id;
  if (model !== undefined) {
    const patched = await config.PATCH(
      jsonRequest("PATCH", `/api/sessions/${id}/config`, {
        model: { protocol: "anthropic-messages", model },
      }),
      params({ id }),
    );
    expect(patched.status).toBe(200);
  }
  server!.llm.enqueue({ blocks: [{ type: "text", text: "hello" }], usage: USAGE });
  await readSse(
    await messages.POST(
      jsonRequest("POST", `/api/sessions/${id}/messages`, {
        session_id: id,
        payload: { type: "text", text: "hi" },
      }),
      params({ id }),
    ),
  );
  return id;
}

type Get = (request: Request, context: { params: Promise<{ id: string }> }) => Promise<Response>;

async function get<T>(route: { GET: unknown }, path: string, id = ""): Promise<T> {
  const response = await (route.GET as Get)(jsonRequest("GET", path), params({ id }));
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

describe("usage.cost_usd in the API", () => {
  it("a priced model: the answer, the session list and the loop tree say what it cost", async () => {
    server = await startTestServer();
    const id = await answeredSession();
    const tokens = { ...USAGE, totalTokens: 4600 };
    // claude-sonnet-4-5 (the fake reports the requested model): cache reads and writes at their own rates
    const expected = costOfUsage(tokens, "claude-sonnet-4-5")!;
    expect(expected).toBeCloseTo((1000 * 3 + 200 * 15 + 3000 * 0.3 + 400 * 3.75) / 1e6, 12);

    const branch = await get<MessagesResponse>(messages, `/api/sessions/${id}/messages`, id);
    const answer = branch.messages.find((m) => m.role === "assistant")!;
    expect(answer.meta?.usage).toMatchObject({ ...tokens, cost_complete: true });
    expect(answer.meta?.usage?.cost_usd).toBeCloseTo(expected, 12);

    const [listed] = await get<SessionSummary[]>(sessions, "/api/sessions");
    expect(listed?.usage).toMatchObject({ ...tokens, cost_complete: true });
    expect(listed?.usage.cost_usd).toBeCloseTo(expected, 12);

    const tree = await get<LoopTreeResponse>(loops, `/api/admin/sessions/${id}/loops`, id);
    expect(tree.loops[0]?.usage.cost_usd).toBeCloseTo(expected, 12);
    const assistant = tree.loops[0]?.messages.find((m) => m.role === "assistant");
    expect(assistant?.role === "assistant" && assistant.usage.cost_usd).toBeCloseTo(expected, 12);
    expect(tree.usage).toMatchObject({ ...tokens, cost_complete: true });
    expect(tree.usage.cost_usd).toBeCloseTo(expected, 12);
  });

  it("a model without a price: null everywhere, never 0", async () => {
    server = await startTestServer();
    const id = await answeredSession("local-llama-3");
    const branch = await get<MessagesResponse>(messages, `/api/sessions/${id}/messages`, id);
    const answer = branch.messages.find((m) => m.role === "assistant")!;
    expect(answer.meta?.model).toBe("local-llama-3");
    expect(answer.meta?.usage).toMatchObject({
      totalTokens: 4600,
      cost_usd: null,
      cost_complete: false,
    });

    const [listed] = await get<SessionSummary[]>(sessions, "/api/sessions");
    expect(listed?.usage).toMatchObject({
      totalTokens: 4600,
      cost_usd: null,
      cost_complete: false,
    });

    const tree = await get<LoopTreeResponse>(loops, `/api/admin/sessions/${id}/loops`, id);
    expect(tree.loops[0]?.usage).toMatchObject({ cost_usd: null, cost_complete: false });
    expect(tree.usage).toMatchObject({ totalTokens: 4600, cost_usd: null, cost_complete: false });
  });
});
