import {
  ContentDeltaSchema,
  ContentFinalSchema,
  ContextUpdateSchema,
  ErrorEventSchema,
  FoldBudgetWarningSchema,
  FoldReturnedSchema,
  FoldStartedSchema,
  type SessionEvent,
  SubAgentUpdateSchema,
} from "../../protocol/events.js";
import type { SessionCoordinator } from "../../store/coordination.js";
import type { SessionStore, StoredEvent } from "../../store/types.js";
import { Channel } from "./channel.js";
import type { StoredSession } from "./stored-session.js";

// Stored event rows → typed SessionEvents. A row that does not parse (corrupt or from a newer
// version) is skipped by the callers, never fatal.

export function parseStoredEvent(row: StoredEvent): SessionEvent | undefined {
  const sequence = row.sequence;
  switch (row.name) {
    case "context_update": {
      const parsed = ContextUpdateSchema.safeParse(row.payload);
      return parsed.success
        ? { name: "context_update", payload: parsed.data, sequence }
        : undefined;
    }
    case "content_delta": {
      const parsed = ContentDeltaSchema.safeParse(row.payload);
      return parsed.success ? { name: "content_delta", payload: parsed.data, sequence } : undefined;
    }
    case "content_final": {
      const parsed = ContentFinalSchema.safeParse(row.payload);
      return parsed.success ? { name: "content_final", payload: parsed.data, sequence } : undefined;
    }
    case "error": {
      const parsed = ErrorEventSchema.safeParse(row.payload);
      return parsed.success ? { name: "error", payload: parsed.data, sequence } : undefined;
    }
    case "fold_started": {
      const parsed = FoldStartedSchema.safeParse(row.payload);
      return parsed.success ? { name: "fold_started", payload: parsed.data, sequence } : undefined;
    }
    case "fold_budget_warning": {
      const parsed = FoldBudgetWarningSchema.safeParse(row.payload);
      return parsed.success
        ? { name: "fold_budget_warning", payload: parsed.data, sequence }
        : undefined;
    }
    case "fold_returned": {
      const parsed = FoldReturnedSchema.safeParse(row.payload);
      return parsed.success ? { name: "fold_returned", payload: parsed.data, sequence } : undefined;
    }
    case "subagent_update": {
      const parsed = SubAgentUpdateSchema.safeParse(row.payload);
      return parsed.success
        ? { name: "subagent_update", payload: parsed.data, sequence }
        : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * The newest stored event's sequence (0: none) without reading every event: the store can only
 * read forwards, but "is there an event after n" (one row at most) is monotone in n, so a
 * doubling probe and a binary search find the last sequence in about 2·log2(n) one-row reads.
 */
export async function findLastSequence(store: SessionStore, sessionId: string): Promise<number> {
  const hasAfter = async (n: number): Promise<boolean> =>
    (await store.readEvents(sessionId, n, 1)).length > 0;
  if (!(await hasAfter(0))) return 0;
  // invariant: an event exists after `low`, none after `high`
  let low = 0;
  let high = 1;
  while (await hasAfter(high)) {
    low = high;
    high *= 2;
  }
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (await hasAfter(mid)) low = mid;
    else high = mid;
  }
  return high;
}

// A session's event stream for a (re)connecting client: the stored events after `afterSequence`,
// then the live ones. Live events that arrive while the stored ones are read are buffered and
// de-duplicated by sequence, so there is no gap and no duplicate. Unsequenced events (sequence 0:
// refusals, storage failures) are always forwarded. A failing read ends the stream with a storage
// error event.

export function replayEvents(
  core: StoredSession,
  afterSequence: number,
): AsyncIterable<SessionEvent> {
  let replaying = true;
  let last = afterSequence;
  const buffered: SessionEvent[] = [];
  const forward = (event: SessionEvent): void => {
    if (event.sequence !== 0 && event.sequence <= last) return;
    if (event.sequence !== 0) last = event.sequence;
    channel.push(event);
  };
  const unsubscribe = core.subscribe((event) => {
    if (replaying) buffered.push(event);
    else forward(event);
  });
  const channel = new Channel<SessionEvent>(unsubscribe);
  void core.deps.store.readEvents(core.id, afterSequence).then(
    (rows) => {
      for (const row of rows) {
        const event = parseStoredEvent(row);
        if (event) forward(event);
      }
      replaying = false;
      for (const event of buffered.splice(0)) forward(event);
    },
    (error: unknown) => {
      channel.push({
        ...core.errorEvent("storage", `cannot read events: ${String(error)}`, true),
        sequence: 0,
      });
      channel.end();
      unsubscribe();
    },
  );
  return channel;
}

// Several instances (store/coordination.ts): the session may run on another instance, so a
// watcher follows the database instead of this process's listeners. It reads the events after
// the last one it forwarded whenever an instance notifies a newer sequence, and every
// `pollIntervalMs` in case a notification was lost; reads run one at a time and forward in
// sequence order, so there is no gap and no duplicate whichever instance writes.

export function followEvents(
  store: SessionStore,
  coordinator: SessionCoordinator,
  sessionId: string,
  afterSequence: number,
  onError: (error: unknown) => SessionEvent,
): AsyncIterable<SessionEvent> {
  let last = afterSequence;
  let reading: Promise<void> | undefined;
  let again = false;
  const stopWatching = coordinator.watchEvents(sessionId, (sequence, events) => {
    if (sequence <= last) return;
    // the notification carries the events that follow on at once: no read needed
    if (reading === undefined && events !== undefined && events[0]?.sequence === last + 1) {
      forward(events, true);
      if (last >= sequence) return;
    }
    read();
  });
  const timer = setInterval(() => read(), coordinator.pollIntervalMs);
  timer.unref?.();
  const stop = (): void => {
    clearInterval(timer);
    stopWatching();
  };
  const channel = new Channel<SessionEvent>(stop);
  function forward(rows: readonly StoredEvent[], contiguous = false): void {
    for (const row of rows) {
      if (row.sequence <= last) continue;
      // notified events after a gap: what is missing is read from the store (the caller reads)
      if (contiguous && row.sequence !== last + 1) return;
      last = row.sequence;
      const event = parseStoredEvent(row);
      if (event) channel.push(event);
    }
  }
  function read(): void {
    if (channel.ended) return;
    if (reading !== undefined) {
      again = true;
      return;
    }
    reading = (async () => {
      do {
        again = false;
        forward(await store.readEvents(sessionId, last));
      } while (again && !channel.ended);
    })().then(
      () => {
        reading = undefined;
      },
      (error: unknown) => {
        reading = undefined;
        channel.push(onError(error));
        channel.end();
        stop();
      },
    );
  }
  read();
  return channel;
}
