import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../protocol/events.js";
import { sampleSession } from "../../store/contract-fixtures.js";
import type { SessionControl, SessionCoordinator } from "../../store/coordination.js";
import { InMemorySessionStore } from "../../store/memory-store.js";
import type { StoredEvent } from "../../store/types.js";
import { followEvents } from "./stored-events.js";

// A watcher of a session another instance runs (followEvents): notified events go out without a
// read (even while a read runs), a gap is read from the store, events after a gap notified during a
// read follow it, and a notification
// lost at the end of a stream is picked up by the poll.

type Listener = (sequence: number, events?: readonly StoredEvent[]) => void;

/** A coordinator whose notifications the test sends by hand. */
function handCoordinator(pollIntervalMs: number) {
  const listeners = new Set<Listener>();
  const coordinator: SessionCoordinator = {
    pollIntervalMs,
    tryLease: async () => true,
    release: async () => undefined,
    holds: () => false,
    notifyEvents: () => undefined,
    watchEvents: (_id, listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    sendControl: (_id: string, _control: SessionControl) => undefined,
    onControl: () => () => undefined,
  };
  const notify: Listener = (sequence, events) => {
    for (const listener of listeners) listener(sequence, events);
  };
  return { coordinator, notify };
}

const delta = (text: string) => ({
  name: "content_delta",
  payload: { context_id: "s1", message_id: "m1", sequence: 0, delta: text, is_final: false },
});

async function setup(pollIntervalMs = 60_000) {
  let reads = 0;
  let gate: Promise<void> | undefined;
  const store = new InMemorySessionStore({
    faults: (operation) => {
      if (operation.kind === "readEvents") reads++;
      return undefined;
    },
  });
  const { session, branch } = sampleSession("s1");
  await store.createSession(session, branch);
  const readEvents = store.readEvents.bind(store);
  store.readEvents = async (...args) => {
    const rows = await readEvents(...args);
    if (gate) await gate;
    return rows;
  };
  const { coordinator, notify } = handCoordinator(pollIntervalMs);
  const write = async (...texts: string[]) =>
    (await store.write("s1", { events: texts.map(delta) })).events;
  const seen: SessionEvent[] = [];
  const follow = (after = 0) => {
    const stream = followEvents(store, coordinator, "s1", after, (error) => {
      throw error;
    });
    const iterator = stream[Symbol.asyncIterator]();
    void (async () => {
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        seen.push(next.value);
      }
    })();
    return iterator;
  };
  return {
    store,
    notify,
    write,
    seen,
    follow,
    reads: () => reads,
    holdReads: () => {
      let open: () => void = () => {};
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      return () => {
        gate = undefined;
        open();
      };
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const sequences = (events: readonly SessionEvent[]) => events.map((e) => e.sequence);

describe("followEvents", () => {
  it("forwards notified events that follow on without reading the store", async () => {
    const t = await setup();
    await t.write("a");
    const iterator = t.follow();
    await settle();
    expect(sequences(t.seen)).toEqual([1]);
    const readsBefore = t.reads();
    t.notify(3, await t.write("b", "c"));
    t.notify(4, await t.write("d"));
    await settle();
    expect(sequences(t.seen)).toEqual([1, 2, 3, 4]);
    expect(t.reads()).toBe(readsBefore);
    await iterator.return?.();
  });

  it("reads what a lost notification left out, then goes on", async () => {
    const t = await setup();
    const iterator = t.follow();
    await settle();
    await t.write("a"); // its notification is lost
    t.notify(2, await t.write("b"));
    await settle();
    expect(sequences(t.seen)).toEqual([1, 2]);
    await iterator.return?.();
  });

  it("events notified while a read runs go out after it, in order, once", async () => {
    const t = await setup();
    const open = t.holdReads();
    const iterator = t.follow();
    await t.write("a");
    t.notify(2, await t.write("b"));
    t.notify(3, await t.write("c"));
    await settle();
    expect(t.seen).toEqual([]);
    open();
    await settle();
    expect(sequences(t.seen)).toEqual([1, 2, 3]);
    await iterator.return?.();
  });

  it("events that follow on go out at once while a read runs, and the read adds no duplicate", async () => {
    const t = await setup();
    const open = t.holdReads();
    const iterator = t.follow(); // its first read waits
    t.notify(1, await t.write("a"));
    t.notify(2, await t.write("b"));
    await settle();
    expect(sequences(t.seen)).toEqual([1, 2]);
    open();
    await settle();
    t.notify(3, await t.write("c"));
    await settle();
    expect(sequences(t.seen)).toEqual([1, 2, 3]);
    await iterator.return?.();
  });

  it("a notification lost at the end of a stream is picked up by the poll", async () => {
    const t = await setup(50);
    const iterator = t.follow();
    await settle();
    await t.write("a", "b"); // never notified
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sequences(t.seen)).toEqual([1, 2]);
    await iterator.return?.();
  });
});
