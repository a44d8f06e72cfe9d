import { existsSync } from "node:fs";
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

// Issue #27 case 2 over the route handlers: read-only tools run without asking by default and
// say which rule let them; "Always allow" on bash adds a scoped rule (`Bash(echo:*)`) that a
// compound command never rides on; rules are set and removed through PATCH /config; a denial's
// reason reaches the model.

const server = useTestServer();

interface Call {
  id: string;
  approval: string;
  approval_note?: string;
  decided_by?: { name: string } | null;
  suggested_rules?: { exact: string; prefix?: string };
}

async function detail(id: string): Promise<{
  config: { approve_read_only: boolean; allow_rules: string[] };
  state: { type: string };
}> {
  const response = await session.GET(jsonRequest("GET", `/api/sessions/${id}`), params({ id }));
  return (await response.json()) as Awaited<ReturnType<typeof detail>>;
}

async function calls(id: string): Promise<Call[]> {
  const response = await messages.GET(
    jsonRequest("GET", `/api/sessions/${id}/messages?view=full`),
    params({ id }),
  );
  const body = (await response.json()) as {
    messages: Array<{ body: { message_type: string; calls?: Call[] } }>;
  };
  return body.messages.flatMap((m) =>
    m.body.message_type === "tool_request" ? (m.body.calls ?? []) : [],
  );
}

function decide(id: string, decisions: unknown[]): Promise<Response> {
  return approvals.POST(
    jsonRequest("POST", `/api/sessions/${id}/approvals`, { decisions }),
    params({ id }),
  );
}

function patch(id: string, body: unknown): Promise<Response> {
  return config.PATCH(jsonRequest("PATCH", `/api/sessions/${id}/config`, body), params({ id }));
}

const bashTurn = (id: string, command: string) => ({
  blocks: [{ type: "toolCall" as const, id, name: "bash", arguments: { command } }],
});

describe("read-only tools", () => {
  it("run without asking by default, noted with the rule; approve_read_only false makes them ask", async () => {
    const id = await createSessionId({ config: { approval_policy: { type: "manual" } } });
    expect((await detail(id)).config.approve_read_only).toBe(true);
    server.llm.setScript([
      {
        blocks: [
          { type: "toolCall", id: "r1", name: "read_file", arguments: { path: "notes.txt" } },
        ],
      },
      { blocks: [{ type: "text", text: "read" }] },
    ]);
    expect(finalState(await sendText(id, "read notes"))).toBe("Idle");
    expect(await calls(id)).toEqual([
      expect.objectContaining({
        id: "r1",
        approval: "auto_approved",
        approval_note: "rule approve_read_only",
      }),
    ]);
    expect(JSON.stringify(server.llm.requests.at(-1)?.body)).toContain("gamma");

    expect((await patch(id, { approve_read_only: false })).status).toBe(200);
    server.llm.setScript([
      {
        blocks: [
          { type: "toolCall", id: "r2", name: "read_file", arguments: { path: "notes.txt" } },
        ],
      },
    ]);
    expect(finalState(await sendText(id, "again"))).toBe("AwaitingToolApproval");
    expect((await calls(id)).find((c) => c.id === "r2")?.approval).toBe("pending");
  });
});

describe("scoped bash rules", () => {
  it("a prefix rule from the card lets the next simple command run; a compound one still asks", async () => {
    const id = await createSessionId({});
    server.llm.setScript([bashTurn("b1", "echo one"), { blocks: [{ type: "text", text: "ok" }] }]);
    expect(finalState(await sendText(id, "echo"))).toBe("AwaitingToolApproval");
    const waiting = (await calls(id)).find((c) => c.id === "b1");
    expect(waiting?.suggested_rules).toEqual({ exact: "Bash(echo one)", prefix: "Bash(echo:*)" });

    const approved = await decide(id, [
      { tool_call_id: "b1", decision: "approve", rule: "Bash(echo:*)" },
    ]);
    expect(approved.status).toBe(200);
    expect(finalState(await readSse(approved))).toBe("Idle");
    expect((await detail(id)).config.allow_rules).toEqual(["Bash(echo:*)"]);
    expect((await calls(id)).find((c) => c.id === "b1")).toMatchObject({
      approval: "approved",
      approval_note: "user",
      decided_by: expect.objectContaining({ name: expect.any(String) }),
    });

    server.llm.setScript([
      bashTurn("b2", "echo two --flag"),
      { blocks: [{ type: "text", text: "ok" }] },
    ]);
    expect(finalState(await sendText(id, "echo again"))).toBe("Idle");
    expect((await calls(id)).find((c) => c.id === "b2")).toMatchObject({
      approval: "auto_approved",
      approval_note: "rule Bash(echo:*)",
    });

    const pwned = join(server.workspace, "pwned");
    server.llm.setScript([bashTurn("b3", "echo three; touch pwned")]);
    expect(finalState(await sendText(id, "chain"))).toBe("AwaitingToolApproval");
    expect((await calls(id)).find((c) => c.id === "b3")?.approval).toBe("pending");
    expect(existsSync(pwned)).toBe(false);
  });

  it("refuses a rule that does not allow the call approved, and remember on bash keeps the exact command", async () => {
    const id = await createSessionId({});
    server.llm.setScript([bashTurn("b1", "echo one"), { blocks: [{ type: "text", text: "ok" }] }]);
    expect(finalState(await sendText(id, "echo"))).toBe("AwaitingToolApproval");
    const wrong = await decide(id, [
      { tool_call_id: "b1", decision: "approve", rule: "Bash(rm:*)" },
    ]);
    // refused as the decision is taken (in the stream, like a call that is not waiting): nothing
    // is stored, the call still waits
    const refused = (await readSse(wrong)).filter((e) => e.event === "error");
    expect(JSON.stringify(refused)).toContain("the rule Bash(rm:*) does not allow this call");
    expect((await detail(id)).state.type).toBe("AwaitingToolApproval");
    expect((await detail(id)).config.allow_rules).toEqual([]);

    const remembered = await decide(id, [
      { tool_call_id: "b1", decision: "approve", remember: true },
    ]);
    expect(finalState(await readSse(remembered))).toBe("Idle");
    const after = await detail(id);
    expect(after.config.allow_rules).toEqual(["Bash(echo one)"]);
  });

  it("PATCH /config sets and removes rules; a malformed rule is a 400 naming it", async () => {
    const id = await createSessionId({});
    const bad = await patch(id, { allow_rules: ["Bash(npm test:*)", "Bash(npm test && rm:*)"] });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("allow_rules.1");
    expect((await detail(id)).config.allow_rules).toEqual([]);
    expect((await patch(id, { allow_rules: ["Bash(npm test:*)"] })).status).toBe(200);
    expect((await detail(id)).config.allow_rules).toEqual(["Bash(npm test:*)"]);
    expect((await patch(id, { allow_rules: [] })).status).toBe(200);
    expect((await detail(id)).config.allow_rules).toEqual([]);
  });
});

describe("deny with a reason", () => {
  it("the model's next request carries the person's reason", async () => {
    const id = await createSessionId({});
    server.llm.setScript([
      bashTurn("b1", "echo one"),
      { blocks: [{ type: "text", text: "fine" }] },
    ]);
    expect(finalState(await sendText(id, "echo"))).toBe("AwaitingToolApproval");
    const denied = await decide(id, [
      { tool_call_id: "b1", decision: "deny", reason: "print with printf instead" },
    ]);
    expect(finalState(await readSse(denied))).toBe("Idle");
    const sent = JSON.stringify(server.llm.requests.at(-1)?.body);
    expect(sent).toContain("The user denied this tool call.");
    expect(sent).toContain("print with printf instead");
    expect((await calls(id)).find((c) => c.id === "b1")).toMatchObject({
      approval: "denied",
      approval_note: "user: print with printf instead",
    });
  });

  it("a reason with an approval is a 400 naming it", async () => {
    const id = await createSessionId({});
    server.llm.setScript([bashTurn("b1", "echo one")]);
    expect(finalState(await sendText(id, "echo"))).toBe("AwaitingToolApproval");
    const response = await decide(id, [{ tool_call_id: "b1", decision: "approve", reason: "x" }]);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("decisions.0.reason");
  });
});
