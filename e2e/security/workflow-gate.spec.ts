import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import {
  errorEvents,
  nonce,
  Servers,
  statesOf,
  summary,
  toolCalls,
  toolResults,
} from "./harness.js";

// Issue #9, finding 2: the `workflow` payload ran bash at once in a Plan-mode session with a
// manual policy, stored as `"approval":"approved","approval_note":"workflow"`. Contract §4: a
// workflow's tool goes through the mode filter (refused with an `invalid_request` error event,
// nothing run or stored), then through the approval policy exactly as a model call.

let servers: Servers;

test.beforeAll(async () => {
  servers = await Servers.start();
});

test.afterAll(async () => {
  await servers?.close();
});

function pwned(name: string): { command: string; file: string } {
  return { command: `id > ${name}`, file: join(servers.workspace, name) };
}

function workflow(command: string) {
  return { type: "workflow", workflow: "bash", parameters: { command } } as const;
}

test("Plan mode + manual: the bash workflow is refused, nothing runs, nothing is stored", async () => {
  const api = servers.api;
  const id = await api.createSession({ agent_mode: "plan", approval_policy: { type: "manual" } });
  const target = pwned(`pwned-plan-${nonce()}.txt`);

  const events = await api.send(id, workflow(target.command));

  const errors = errorEvents(events);
  expect(
    errors.map((e) => e.code),
    summary(events),
  ).toContain("invalid_request");
  expect(existsSync(target.file)).toBe(false);
  const messages = await api.messages(id);
  expect(toolCalls(messages)).toEqual([]);
  expect(toolResults(messages)).toEqual([]);
  expect((await api.state(id)).type).toBe("Idle");
  // and it stays that way: nothing was left running in the background
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(existsSync(target.file)).toBe(false);
});

test("Act mode + manual: the workflow waits for approval, nothing runs until it is approved", async () => {
  const api = servers.api;
  const id = await api.createSession({ agent_mode: "act", approval_policy: { type: "manual" } });
  const target = pwned(`pwned-act-${nonce()}.txt`);

  const events = await api.send(id, workflow(target.command));

  expect(errorEvents(events)).toEqual([]);
  expect(statesOf(events).at(-1)).toBe("AwaitingToolApproval");
  expect(existsSync(target.file)).toBe(false);
  const state = await api.state(id);
  expect(state.type).toBe("AwaitingToolApproval");
  const [call, ...others] = toolCalls(await api.messages(id));
  expect(others).toEqual([]);
  expect(call?.name).toBe("bash");
  expect(call?.arguments).toEqual({ command: target.command });
  expect(call?.approval).toBe("pending");
  expect(state.pending_requests?.length).toBe(1);
  expect(toolResults(await api.messages(id))).toEqual([]);

  const approved = await api.events(`/api/sessions/${id}/approvals`, {
    decisions: [{ tool_call_id: call?.id ?? "", decision: "approve" }],
  });
  expect(errorEvents(approved)).toEqual([]);
  expect(existsSync(target.file)).toBe(true);
  expect(readFileSync(target.file, "utf8")).toMatch(/^uid=/);

  const messages = await api.messages(id);
  const stored = toolCalls(messages).find((c) => c.id === call?.id);
  // the real decision is on record: the user's approval, not an automatic "workflow" one
  expect(stored?.approval).toBe("approved");
  expect(stored?.approval_note ?? "").not.toBe("workflow");
  const result = toolResults(messages).find((r) => r.tool_call_id === call?.id);
  expect(result?.status).toBe("success");
  expect((await api.waitForState(id, (s) => s.type === "Idle")).type).toBe("Idle");
});

test("Act mode + manual: a denied workflow never runs and its denial is stored", async () => {
  const api = servers.api;
  const id = await api.createSession({ agent_mode: "act", approval_policy: { type: "manual" } });
  const target = pwned(`pwned-deny-${nonce()}.txt`);

  await api.send(id, workflow(target.command));
  const [call] = toolCalls(await api.messages(id));
  expect(call?.approval).toBe("pending");

  const denied = await api.events(`/api/sessions/${id}/approvals`, {
    decisions: [{ tool_call_id: call?.id ?? "", decision: "deny" }],
  });
  expect(errorEvents(denied)).toEqual([]);
  expect(existsSync(target.file)).toBe(false);
  const messages = await api.messages(id);
  expect(toolCalls(messages).find((c) => c.id === call?.id)?.approval).toBe("denied");
  expect(toolResults(messages).find((r) => r.tool_call_id === call?.id)?.status).toBe("denied");
  expect((await api.waitForState(id, (s) => s.type === "Idle")).type).toBe("Idle");
});
