import type { IdsAndClock, MessageLookup } from "../../src/context/branches/types.js";
import type { Branch } from "../../src/model/branch.js";
import type { ContextMessage, MessageRole } from "../../src/model/message-types.js";

// A small in-memory pool and branch builder for the branch tests and the bench. Not exported
// from the package: the Session's tests build real sessions instead.

export const SESSION_ID = "s1";

export class TestConversation implements IdsAndClock {
  readonly pool = new Map<string, ContextMessage>();
  readonly lookup: MessageLookup = (id) => this.pool.get(id);
  private ids = 0;
  private ticks = 0;

  readonly newId = (): string => `new-${++this.ids}`;
  /** one second per call, so created_at values are ordered and readable */
  readonly now = (): string => new Date(Date.UTC(2025, 0, 1) + this.ticks++ * 1000).toISOString();

  user(id: string, text = id): string {
    return this.text(id, "user", text);
  }

  assistant(id: string, text = id): string {
    return this.text(id, "assistant", text);
  }

  toolRequest(
    id: string,
    calls: Array<{ id: string; name: string; args?: Record<string, unknown> }>,
  ): string {
    return this.add({
      id,
      role: "assistant",
      body: {
        message_type: "tool_request",
        text: "",
        thinking: [],
        calls: calls.map((c) => ({
          id: c.id,
          name: c.name,
          arguments: c.args ?? {},
          approval: "approved",
        })),
      },
    });
  }

  toolResult(id: string, requestId: string, callId: string, text = "ok"): string {
    const request = this.pool.get(requestId)?.body;
    const name =
      request?.message_type === "tool_request"
        ? (request.calls.find((c) => c.id === callId)?.name ?? "tool")
        : "tool";
    return this.add({
      id,
      role: "tool",
      body: {
        message_type: "tool_result",
        request_id: requestId,
        tool_call_id: callId,
        tool_name: name,
        content: [{ type: "text", text }],
        status: "success",
      },
    });
  }

  branch(id: string, message_ids: string[], extra: Partial<Branch> = {}): Branch {
    return {
      id,
      session_id: SESSION_ID,
      name: id,
      parent_branch_id: null,
      fork_message_id: null,
      message_ids,
      merged_from: [],
      created_at: "2025-01-01T00:00:00.000Z",
      updated_at: "2025-01-01T00:00:00.000Z",
      ...extra,
    };
  }

  private text(id: string, role: MessageRole, text: string): string {
    return this.add({ id, role, body: { message_type: "text", text } });
  }

  private add(m: Pick<ContextMessage, "id" | "role" | "body">): string {
    if (this.pool.has(m.id)) throw new Error(`duplicate test message id ${m.id}`);
    const at = this.now();
    this.pool.set(m.id, {
      ...m,
      session_id: SESSION_ID,
      status: "complete",
      created_at: at,
      completed_at: at,
    });
    return m.id;
  }
}
