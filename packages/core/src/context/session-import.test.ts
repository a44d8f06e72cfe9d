import { describe, expect, it } from "vitest";
import { call, collect, harness, say } from "../../test/support/session-harness.js";
import type { ContextMessage } from "../model/message-types.js";
import { InMemorySessionStore } from "../store/memory-store.js";
import { NOT_RUN_IMPORTED } from "./session-import.js";

// A session written by Export › JSON and read back by POST /api/sessions/import (issue #18).

/** A finished session with a tool round: user, tool_request, tool_result, answer. */
async function exported(): Promise<ContextMessage[]> {
  const h = harness([call("echo", { text: "ping" }), say("The echo said ping.")]);
  const session = await h.manager.create({
    config: { approval_policy: { type: "auto_approve_all" } },
  });
  await collect(session.sendMessage({ type: "text", text: "echo ping" }));
  return session.messages().messages;
}

describe("importing a session file", () => {
  it("stores the messages on the main branch with new ids, and the session goes on from them", async () => {
    const messages = await exported();
    expect(messages.map((m) => m.body.message_type)).toEqual([
      "text",
      "tool_request",
      "tool_result",
      "text",
    ]);
    const store = new InMemorySessionStore();
    const h = harness([say("Still here.")], { store });
    const session = await h.manager.import({ title: "Brought back", messages });

    expect(session.title).toBe("Brought back");
    expect(session.state.type).toBe("Idle");
    const imported = session.messages().messages;
    expect(imported.map((m) => m.body.message_type)).toEqual(
      messages.map((m) => m.body.message_type),
    );
    expect(imported.map((m) => m.body)).not.toEqual([]);
    for (const [i, m] of imported.entries()) {
      expect(m.id).not.toBe(messages[i]?.id);
      expect(m.session_id).toBe(session.id);
    }
    const request = imported[1];
    const result = imported[2];
    expect(result?.body.message_type === "tool_result" && result.body.request_id).toBe(request?.id);

    // a reload from the store sees the same branch
    const reloaded = await harness([], { store }).manager.get(session.id);
    expect(reloaded?.messages().messages.map((m) => m.id)).toEqual(imported.map((m) => m.id));

    // the next message reaches the model with the imported conversation before it
    await collect(session.sendMessage({ type: "text", text: "and now?" }));
    const sent = h.provider.requests[0]?.messages ?? [];
    expect(sent.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "user",
    ]);
  });

  it("leaves what was in flight at rest: queued out, streaming incomplete, an unanswered call cancelled and denied", async () => {
    const base = await exported();
    const [user, request] = base;
    if (!user || !request || request.body.message_type !== "tool_request") throw new Error("setup");
    const pendingRequest: ContextMessage = {
      ...request,
      body: {
        ...request.body,
        calls: request.body.calls.map((c) => ({ ...c, id: "call-open", approval: "pending" })),
      },
    };
    const streaming: ContextMessage = {
      ...user,
      id: "m-streaming",
      role: "assistant",
      status: "streaming",
      body: { message_type: "text", text: "half an ans" },
    };
    const queued: ContextMessage = {
      ...user,
      id: "m-queued",
      status: "queued",
      body: { message_type: "text", text: "later" },
    };
    const h = harness([]);
    const session = await h.manager.import({ messages: [user, pendingRequest, streaming, queued] });
    const imported = session.messages().messages;
    expect(imported.map((m) => [m.body.message_type, m.status])).toEqual([
      ["text", "complete"],
      ["tool_request", "complete"],
      ["tool_result", "complete"],
      ["text", "incomplete"],
    ]);
    const requestBody = imported[1]?.body;
    expect(requestBody?.message_type === "tool_request" && requestBody.calls[0]).toMatchObject({
      approval: "denied",
      approval_note: "imported",
    });
    expect(imported[2]?.body).toMatchObject({
      message_type: "tool_result",
      tool_call_id: "call-open",
      request_id: imported[1]?.id,
      status: "cancelled",
      content: [{ type: "text", text: NOT_RUN_IMPORTED }],
    });
    expect(session.messages().queued).toEqual([]);
  });

  it("cancels a cut-off request's calls too, approved or pending; the model sees neither them nor their results", async () => {
    const base = await exported();
    const [user, request] = base;
    if (!user || !request || request.body.message_type !== "tool_request") throw new Error("setup");
    const [echo] = request.body.calls;
    if (!echo) throw new Error("setup");
    const cutOff: ContextMessage = {
      ...request,
      status: "streaming",
      body: {
        ...request.body,
        calls: [
          { ...echo, id: "call-approved", approval: "approved" },
          { ...echo, id: "call-pending", approval: "pending" },
        ],
      },
    };
    const h = harness([say("Back again.")]);
    const session = await h.manager.import({ messages: [user, cutOff] });
    expect(session.state.type).toBe("Idle");
    const imported = session.messages().messages;
    expect(imported.map((m) => [m.body.message_type, m.status])).toEqual([
      ["text", "complete"],
      ["tool_request", "incomplete"],
      ["tool_result", "complete"],
      ["tool_result", "complete"],
    ]);
    const calls = imported[1]?.body.message_type === "tool_request" ? imported[1].body.calls : [];
    expect(calls.map((c) => c.approval)).toEqual(["approved", "denied"]);
    expect(imported.slice(2).map((m) => m.body)).toMatchObject([
      { tool_call_id: "call-approved", status: "cancelled" },
      { tool_call_id: "call-pending", status: "cancelled" },
    ]);

    await collect(session.sendMessage({ type: "text", text: "go on" }));
    const sent = h.provider.requests[0]?.messages ?? [];
    expect(sent.map((m) => m.role)).toEqual(["user", "user"]);
  });

  it("refuses a file holding a message id or a tool call id twice, before storing anything", async () => {
    const messages = await exported();
    const [user, request] = messages;
    if (!user || !request) throw new Error("setup");
    const store = new InMemorySessionStore();
    const h = harness([], { store });
    await expect(h.manager.import({ messages: [...messages, { ...user }] })).rejects.toThrow(
      `duplicate message id "${user.id}" (also messages.0.id)`,
    );
    await expect(
      h.manager.import({ messages: [...messages, { ...request, id: "another" }] }),
    ).rejects.toThrow("duplicate tool call id");
    expect(await h.manager.list()).toEqual([]);
  });

  it("lands whole or not at all: a failing message write leaves no session behind", async () => {
    const messages = await exported();
    const store = new InMemorySessionStore();
    store.write = async () => {
      throw new Error("disk full");
    };
    const h = harness([], { store });
    await expect(h.manager.import({ title: "Lost?", messages })).rejects.toThrow("disk full");
    expect(await h.manager.list()).toEqual([]);
  });
});
