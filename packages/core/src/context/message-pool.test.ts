import { describe, expect, it } from "vitest";
import type { ContextMessage } from "../model/message-types.js";
import { everyMessageType, textMessage } from "../store/contract-fixtures.js";
import { MessagePool, MessagePoolError } from "./message-pool.js";

const S = "s1";

function poolWithEveryType(): { pool: MessagePool; ids: string[] } {
  const messages = everyMessageType(S);
  return { pool: MessagePool.from(messages), ids: messages.map((m) => m.id) };
}

/** An id list that counts how many of its entries were read, to prove laziness and no copying. */
function countingIds(ids: string[]): { ids: readonly string[]; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(ids, {
    get(target, key, receiver) {
      if (typeof key === "string" && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { ids: proxy, reads: () => reads };
}

describe("MessagePool", () => {
  it("adds, gets and counts messages; a duplicate id is rejected", () => {
    const pool = new MessagePool();
    pool.add(textMessage(S, "a"));
    expect(pool.size).toBe(1);
    expect(pool.has("a")).toBe(true);
    expect(pool.get("a")?.body).toEqual({ message_type: "text", text: "text of a" });
    expect(pool.get("missing")).toBeUndefined();
    expect(() => pool.add(textMessage(S, "a", "other"))).toThrow(MessagePoolError);
    expect(pool.get("a")?.body).toEqual({ message_type: "text", text: "text of a" });
    expect(pool.size).toBe(1);
  });

  it("pooled messages are deep-frozen copies: content cannot be mutated by accident", () => {
    const original = everyMessageType(S)[2]!;
    const pool = new MessagePool();
    const pooled = pool.add(original);
    expect(pooled).not.toBe(original);
    expect(pooled).toEqual(original);
    expect(Object.isFrozen(pooled)).toBe(true);
    expect(Object.isFrozen(pooled.body)).toBe(true);
    const body = pooled.body;
    if (body.message_type !== "tool_request") throw new Error("fixture changed");
    const call = body.calls[0]!;
    expect(() => {
      (call.arguments as { path: string }).path = "/etc/passwd";
    }).toThrow(TypeError);
    expect(() => {
      body.calls.push(call);
    }).toThrow(TypeError);
    // the caller's own object stays mutable and separate
    original.status = "failed";
    expect(pool.get(original.id)?.status).toBe("complete");
  });

  it("retrieval by type keeps order and does not clone the pool", () => {
    const { pool, ids } = poolWithEveryType();
    const extra = pool.add(textMessage(S, "m-text-2", "second"));
    const branch = [...ids, extra.id];
    const texts = [...pool.ofType("text", branch)];
    expect(texts.map((m) => m.id)).toEqual(["m-text", "m-text-2"]);
    // the yielded objects ARE the pooled ones
    expect(texts[0]).toBe(pool.get("m-text"));
    expect(texts[1]).toBe(extra);
    // typed: body narrowed without a cast
    expect(texts.map((m) => m.body.text)).toEqual(["hello ünïcødé ✓", "second"]);

    const results = [...pool.ofType("tool_result", branch)];
    expect(results).toHaveLength(1);
    expect(results[0]).toBe(pool.get("m-result"));
    expect(results[0]!.body.tool_call_id).toBe("call-1");
  });

  it("retrieval by type is lazy and reads the caller's id list in place (no copy of it)", () => {
    const { pool } = poolWithEveryType();
    for (let i = 0; i < 1000; i++) pool.add(textMessage(S, `filler-${i}`));
    const all = [...everyMessageType(S).map((m) => m.id)];
    for (let i = 0; i < 1000; i++) all.push(`filler-${i}`);
    const counted = countingIds(all);
    const first = pool.ofType("tool_request", counted.ids).next();
    expect(first.done).toBe(false);
    expect(first.value).toBe(pool.get("m-request"));
    // m-request is the third id: only three entries were read, none of the 1,000 after it
    expect(counted.reads()).toBe(3);
  });

  it("resolve yields a branch's messages in its order, as the pooled objects", () => {
    const { pool } = poolWithEveryType();
    const order = ["m-plan", "m-text", "m-result"];
    const resolved = [...pool.resolve(order)];
    expect(resolved.map((m) => m.id)).toEqual(order);
    resolved.forEach((m, i) => {
      expect(m).toBe(pool.get(order[i]!));
    });
    expect(() => [...pool.resolve(["m-text", "nope"])]).toThrow(/nope/);
  });

  it("updateLifecycle changes status, approvals, completed_at and meta only, returning a new frozen object", () => {
    const { pool } = poolWithEveryType();
    const before = pool.get("m-request")!;
    const after = pool.updateLifecycle({
      id: "m-request",
      status: "complete",
      completed_at: "2025-01-02T00:00:00.000Z",
      approvals: { "call-1": { approval: "approved", approval_note: "white_list" } },
      meta: { stop_reason: "stop" },
    });
    expect(after).not.toBe(before);
    expect(Object.isFrozen(after)).toBe(true);
    expect(pool.get("m-request")).toBe(after);
    if (after.body.message_type !== "tool_request" || before.body.message_type !== "tool_request") {
      throw new Error("fixture changed");
    }
    expect(after.body.calls[0]).toMatchObject({
      approval: "approved",
      approval_note: "white_list",
    });
    expect(after.body.calls[1]).toBe(before.body.calls[1]);
    expect(after.body.calls[0]!.arguments).toBe(before.body.calls[0]!.arguments);
    expect(after.body.text).toBe(before.body.text);
    expect(after.body.thinking).toBe(before.body.thinking);
    expect(after.completed_at).toBe("2025-01-02T00:00:00.000Z");
    expect(after.meta).toEqual({ ...before.meta, stop_reason: "stop" });
    // the old object is untouched (anyone holding it sees the old lifecycle)
    expect(before.body.calls[0]!.approval).toBe("pending");
    // position in the pool is kept
    expect([...pool.values()].map((m) => m.id).indexOf("m-request")).toBe(2);
  });

  it("a status-only update reuses the body object", () => {
    const { pool } = poolWithEveryType();
    const before = pool.get("m-question")!;
    const after = pool.updateLifecycle({ id: "m-question", status: "complete" });
    expect(after.body).toBe(before.body);
    expect(after.status).toBe("complete");
  });

  it("rejects invalid lifecycle updates and changes nothing", () => {
    const { pool } = poolWithEveryType();
    const text = pool.get("m-text")!;
    const request = pool.get("m-request")!;
    const attempts: Array<() => ContextMessage> = [
      () => pool.updateLifecycle({ id: "nope", status: "failed" }),
      () => pool.updateLifecycle({ id: "m-text", approvals: { x: { approval: "approved" } } }),
      () =>
        pool.updateLifecycle({
          id: "m-request",
          status: "failed",
          approvals: { "call-9": { approval: "approved" } },
        }),
    ];
    const codes = attempts.map((attempt) => {
      try {
        attempt();
        return "no error";
      } catch (error) {
        return error instanceof MessagePoolError ? error.code : "other";
      }
    });
    expect(codes).toEqual(["not_found", "invalid_update", "invalid_update"]);
    expect(pool.get("m-text")).toBe(text);
    expect(pool.get("m-request")).toBe(request);
  });
});
