import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as approvals from "@/app/api/sessions/[id]/approvals/route";
import * as config from "@/app/api/sessions/[id]/config/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as session from "@/app/api/sessions/[id]/route";
import {
  createSessionId,
  finalState,
  jsonRequest,
  params,
  readSse,
  sendText,
  useTestServer,
} from "./support";

// Issue #26 finding 3 over the route handlers: the session's `tool_execution` setting (PATCH
// /config, read back with the session), and a turn whose three read-only calls run while the
// write beside them waits for its approval card; the model gets every result in call order.

const server = useTestServer();

async function patch(id: string, body: unknown): Promise<Response> {
  return config.PATCH(jsonRequest("PATCH", `/api/sessions/${id}/config`, body), params({ id }));
}

async function detailConfig(id: string): Promise<Record<string, unknown>> {
  const response = await session.GET(jsonRequest("GET", `/api/sessions/${id}`), params({ id }));
  expect(response.status).toBe(200);
  return ((await response.json()) as { config: Record<string, unknown> }).config;
}

describe("tool_execution", () => {
  it("defaults to parallel_read_only; PATCH changes it and GET reads it back; a bad value → 400 naming it", async () => {
    const id = await createSessionId();
    expect((await detailConfig(id)).tool_execution).toBe("parallel_read_only");
    const ok = await patch(id, { tool_execution: "sequential" });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { config: { tool_execution: string } }).config).toMatchObject({
      tool_execution: "sequential",
    });
    expect((await detailConfig(id)).tool_execution).toBe("sequential");
    const bad = await patch(id, { tool_execution: "all_at_once" });
    expect(bad.status).toBe(400);
    const error = (await bad.json()) as { fields?: Array<{ field: string }> };
    expect((error.fields ?? []).map((f) => f.field)).toEqual(["tool_execution"]);
    expect((await detailConfig(id)).tool_execution).toBe("sequential");
    // set at creation, too
    const other = await createSessionId({ config: { tool_execution: "parallel" } });
    expect((await detailConfig(other)).tool_execution).toBe("parallel");
  });

  it("three read-only calls run while a write waits for its approval; one card per call; results in call order", async () => {
    writeFileSync(join(server.workspace, "a.txt"), "apple\n");
    writeFileSync(join(server.workspace, "b.txt"), "banana\n");
    server.llm.enqueue(
      {
        blocks: [
          { type: "toolCall", id: "call_r1", name: "read_file", arguments: { path: "a.txt" } },
          { type: "toolCall", id: "call_r2", name: "read_file", arguments: { path: "b.txt" } },
          { type: "toolCall", id: "call_r3", name: "read_file", arguments: { path: "notes.txt" } },
          {
            type: "toolCall",
            id: "call_w",
            name: "write_file",
            arguments: { path: "c.txt", content: "cherry\n" },
          },
        ],
      },
      { blocks: [{ type: "text", text: "Read three, wrote one." }] },
    );
    const id = await createSessionId({
      config: { approval_policy: { type: "white_list", tools: ["read_file"] } },
    });
    const first = await sendText(id, "read three files and write one");
    const moves = first
      .filter((e) => e.event === "context_update" && e.data.previous_state !== undefined)
      .map((e) => e.data.current_state as { type: string; index?: number; total?: number });
    expect(
      moves.slice(-5).map((s) => (s.index ? `${s.type} ${s.index}/${s.total}` : s.type)),
    ).toEqual([
      "AwaitingToolApproval",
      "ExecutingTool 1/3",
      "ExecutingTool 2/3",
      "ExecutingTool 3/3",
      "AwaitingToolApproval",
    ]);
    expect(finalState(first)).toBe("AwaitingToolApproval");
    expect(moves.at(-1)).toEqual({
      type: "AwaitingToolApproval",
      pending_requests: ["call_w"],
      tool_names: ["write_file"],
    });
    // the reads' results are stored; the write's card still waits, and nothing was written
    const read = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages?view=full`),
      params({ id }),
    );
    const stored = (await read.json()) as {
      messages: Array<{
        body: {
          message_type: string;
          tool_call_id?: string;
          calls?: Array<{ id: string; approval: string }>;
        };
      }>;
    };
    const request = stored.messages.find((m) => m.body.message_type === "tool_request");
    expect(request?.body.calls?.map((c) => [c.id, c.approval])).toEqual([
      ["call_r1", "auto_approved"],
      ["call_r2", "auto_approved"],
      ["call_r3", "auto_approved"],
      ["call_w", "pending"],
    ]);
    expect(
      stored.messages
        .filter((m) => m.body.message_type === "tool_result")
        .map((m) => m.body.tool_call_id),
    ).toEqual(["call_r1", "call_r2", "call_r3"]);
    expect(server.llm.requests).toHaveLength(1);

    const decided = await approvals.POST(
      jsonRequest("POST", `/api/sessions/${id}/approvals`, {
        decisions: [{ tool_call_id: "call_w", decision: "approve" }],
      }),
      params({ id }),
    );
    expect(decided.status).toBe(200);
    expect(finalState(await readSse(decided))).toBe("Idle");
    // the model's next request holds the four results in call order
    const body = server.llm.requests[1]?.body as {
      messages: Array<{ role: string; content: Array<{ type: string; tool_use_id?: string }> }>;
    };
    const results = body.messages.flatMap((m) =>
      m.content.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id),
    );
    expect(results).toEqual(["call_r1", "call_r2", "call_r3", "call_w"]);
    const sent = JSON.stringify(body);
    for (const word of ["apple", "banana", "gamma"]) expect(sent).toContain(word);
  });
});
