import { EventStream } from "../../agent/event-stream.js";
import { SESSION_EVENT_SCHEMAS } from "../../protocol/event-schemas.js";
import type { SessionEvent, SessionEventName } from "../../protocol/events.js";
import type { SessionCoordinator } from "../../store/coordination.js";
import type { SessionStore, StoredEvent } from "../../store/types.js";
import type { StoredSession } from "./stored-session.js";

// Stored event rows → typed SessionEvents. A row that does not parse (corrupt or from a newer
// version) is skipped by the callers, never fatal.

/**
 * Each row's outcome, checked once: with several instances one notification's rows reach every
 * watcher of the session (one per client), and all of them read the same row objects
 * (docs/decisions/0071). Rows and events are never changed after they are made.
 */
const parsedRows = new WeakMap<StoredEvent, SessionEvent | null>();

export function parseStoredEvent(row: StoredEvent): SessionEvent | undefined {
  const known = parsedRows.get(row);
  if (known !== undefined) return known ?? undefined;
  const event = parseRow(row);
  parsedRows.set(row, event ?? null);
  return event;
}

function parseRow(row: StoredEvent): SessionEvent | undefined {
  if (!Object.hasOwn(SESSION_EVENT_SCHEMAS, row.name)) return undefined;
  const parsed = SESSION_EVENT_SCHEMAS[row.name as SessionEventName].schema.safeParse(row.payload);
  // the schema is the one of this name, so name and payload belong together
  return parsed.success
    ? ({ name: row.name, payload: parsed.data, sequence: row.sequence } as SessionEvent)
    : undefined;
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
  const channel = new EventStream<SessionEvent>(unsubscribe);
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
// watcher follows the database instead of this process's listeners. Notifications usually carry
// the new events: those that follow on from the last one forwarded go out at once, without a
// read. A gap (a lost or too large notification) is read from the store; events notified while a
// read runs wait for it and go out after it when they follow on. When nothing has been heard for
// `pollIntervalMs` the watcher reads anyway (a notification lost at the end of a stream). Reads
// run one at a time and everything is forwarded in sequence order, so there is no gap and no
// duplicate whichever instance writes.

export function followEvents(
  store: SessionStore,
  coordinator: SessionCoordinator,
  sessionId: string,
  afterSequence: number,
  onError: (error: unknown) => SessionEvent,
): AsyncIterable<SessionEvent> {
  let last = afterSequence;
  /** the newest sequence any notification announced */
  let announced = afterSequence;
  let reading: Promise<void> | undefined;
  /** events notified while a read ran, forwarded after it */
  let heldBack: StoredEvent[] = [];
  let heardAt = Date.now();
  const stopWatching = coordinator.watchEvents(sessionId, (sequence, events) => {
    heardAt = Date.now();
    announced = Math.max(announced, sequence);
    if (sequence <= last) return;
    // events that follow on from the last one forwarded go out at once, even while a read runs
    // (its rows up to them are skipped then); the rest wait for the read, or start one
    if (events !== undefined) forward(events, true);
    if (last >= sequence) return;
    if (reading !== undefined) {
      if (events !== undefined) heldBack.push(...events);
      return;
    }
    read();
  });
  const timer = setInterval(() => {
    if (Date.now() - heardAt >= coordinator.pollIntervalMs) read();
  }, coordinator.pollIntervalMs);
  timer.unref?.();
  const stop = (): void => {
    clearInterval(timer);
    stopWatching();
  };
  const channel = new EventStream<SessionEvent>(stop);
  /** forwards the rows after `last`; contiguous: stops at a gap (the caller reads what is missing) */
  function forward(rows: readonly StoredEvent[], contiguous = false): void {
    for (const row of rows) {
      if (row.sequence <= last) continue;
      if (contiguous && row.sequence !== last + 1) return;
      last = row.sequence;
      const event = parseStoredEvent(row);
      if (event) channel.push(event);
    }
  }
  function read(): void {
    if (channel.ended || reading !== undefined) return;
    reading = (async () => {
      for (;;) {
        const before = { last, announced };
        forward(await store.readEvents(sessionId, last));
        const held = heldBack;
        heldBack = [];
        forward(held, true);
        if (last >= announced || channel.ended) return;
        // behind what was announced: read again, unless this read neither got anything nor
        // started before an announcement (then the poll tries later; no busy loop)
        if (last === before.last && announced === before.announced) return;
      }
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
