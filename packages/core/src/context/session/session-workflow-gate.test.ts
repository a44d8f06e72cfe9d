import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  collect,
  errors,
  harness,
  say,
  states,
  tempWorkspace,
} from "../../../test/support/session-harness.js";
import type { ApprovalPolicy } from "../../model/session-config.js";
import { createDefaultTools } from "../../tools/builtin/default-tools.js";
import { DENIED_RESULT_TEXT } from "./approval-policy.js";
import type { Session } from "./session.js";

// Workflows obey the gate (issue #9, contract 4): the payload's tool goes through the mode filter
// and the approval policy exactly like a model's call; a real bash runs (or not) in a temp dir.

const PWN = {
  type: "workflow" as const,
  workflow: "bash",
  parameters: { command: "id > pwned.txt" },
};

async function setUp(mode: "plan" | "act", policy: ApprovalPolicy, answers = [say("Done.")]) {
  const workspace = tempWorkspace({});
  const h = harness(answers, { tools: () => createDefaultTools({ workspaceRoot: workspace }) });
  const session = await h.manager.create({
    config: { workspace, agent_mode: mode, approval_policy: policy },
  });
  return { h, session, pwned: join(workspace, "pwned.txt") };
}

function call(session: Session) {
  const request = session.messages().messages.find((m) => m.body.message_type === "tool_request");
  return request?.body.message_type === "tool_request" ? request.body.calls[0] : undefined;
}

describe("a workflow goes through the gate", () => {
  it("Plan mode + manual: bash is not offered, so nothing runs, nothing is stored, an error event", async () => {
    const { h, session, pwned } = await setUp("plan", { type: "manual" });
    const events = await collect(session.sendMessage(PWN));
    expect(errors(events).map((e) => e.code)).toEqual(["invalid_request"]);
    expect(errors(events)[0]?.message).toContain("not offered in plan mode");
    expect(existsSync(pwned)).toBe(false);
    expect(session.messages().messages).toEqual([]);
    expect(await h.store.readEvents(session.id, 0)).toEqual([]);
    expect(session.state).toEqual({ type: "Idle" });
    // even under auto_approve_all, plan mode does not offer bash
    const auto = await setUp("plan", { type: "auto_approve_all" });
    await collect(auto.session.sendMessage(PWN));
    expect(existsSync(auto.pwned)).toBe(false);
  });

  it("Act + manual: the call waits in AwaitingToolApproval; approving runs it, the model continues, Idle", async () => {
    const { h, session, pwned } = await setUp("act", { type: "manual" });
    const events = await collect(session.sendMessage(PWN));
    expect(errors(events)).toEqual([]);
    expect(states(events)).toEqual([
      "ProcessingUserMessage",
      "ParsingToolCalls",
      "AwaitingToolApproval",
    ]);
    expect(existsSync(pwned)).toBe(false);
    const pending = call(session);
    expect(pending).toMatchObject({ name: "bash", approval: "pending" });
    expect(pending?.approval_note).toBeUndefined();
    expect(session.state).toMatchObject({
      type: "AwaitingToolApproval",
      pending_requests: [pending?.id],
      tool_names: ["bash"],
    });
    expect(h.provider.requests).toHaveLength(0);

    const approved = await collect(
      session.decideToolCalls([{ tool_call_id: pending?.id ?? "", decision: "approve" }]),
    );
    expect(errors(approved)).toEqual([]);
    expect(existsSync(pwned)).toBe(true);
    expect(call(session)).toMatchObject({ approval: "approved", approval_note: "user" });
    expect(states(approved)).toContain("ExecutingTool");
    expect(session.state).toEqual({ type: "Idle" });
    const result = session.messages().messages.find((m) => m.body.message_type === "tool_result");
    expect(result?.body).toMatchObject({ status: "success", tool_name: "bash" });
  });

  it("Act + manual: denying stores a denied result, runs nothing, asks no model, and returns to Idle", async () => {
    const { h, session, pwned } = await setUp("act", { type: "manual" });
    await collect(session.sendMessage(PWN));
    const pending = call(session);
    const denied = await collect(
      session.decideToolCalls([{ tool_call_id: pending?.id ?? "", decision: "deny" }]),
    );
    expect(errors(denied)).toEqual([]);
    expect(states(denied)).toEqual(["Idle"]);
    expect(existsSync(pwned)).toBe(false);
    expect(h.provider.requests).toHaveLength(0);
    expect(call(session)).toMatchObject({ approval: "denied", approval_note: "user" });
    const result = session.messages().messages.at(-1);
    expect(result?.body).toMatchObject({
      message_type: "tool_result",
      status: "denied",
      tool_call_id: pending?.id,
      content: [{ type: "text", text: DENIED_RESULT_TEXT }],
    });
    // the transcript stays valid: the next request carries the call and its denied result
    await collect(session.sendMessage({ type: "text", text: "never mind" }));
    expect(h.provider.requests[0]?.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "user",
    ]);
  });

  it("a white list without the tool asks; one with it runs at once", async () => {
    const listed = await setUp("act", { type: "white_list", tools: ["read_file"] });
    await collect(listed.session.sendMessage(PWN));
    expect(listed.session.state.type).toBe("AwaitingToolApproval");
    expect(existsSync(listed.pwned)).toBe(false);
    const allowed = await setUp("act", { type: "white_list", tools: ["bash"] });
    await collect(allowed.session.sendMessage(PWN));
    expect(existsSync(allowed.pwned)).toBe(true);
  });

  it("auto_approve_all runs it at once, and the stored approval says the policy decided", async () => {
    const { session, pwned } = await setUp("act", { type: "auto_approve_all" });
    const events = await collect(session.sendMessage(PWN));
    expect(errors(events)).toEqual([]);
    expect(existsSync(pwned)).toBe(true);
    expect(call(session)).toMatchObject({
      approval: "auto_approved",
      approval_note: "policy auto_approve_all",
    });
    expect(session.state).toEqual({ type: "Idle" });
  });

  it("parameters the tool's schema rejects are refused before anything is stored", async () => {
    const { h, session } = await setUp("act", { type: "auto_approve_all" });
    const events = await collect(
      session.sendMessage({ type: "workflow", workflow: "bash", parameters: { cmd: 1 } }),
    );
    expect(errors(events).map((e) => e.code)).toEqual(["invalid_request"]);
    expect(errors(events)[0]?.message).toContain('invalid parameters for workflow "bash"');
    expect(await h.store.readEvents(session.id, 0)).toEqual([]);
  });
});
