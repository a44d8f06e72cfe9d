import type { SessionEvent, SessionEventName } from "@arbor/core/browser";

// Server-sent events over fetch. EventSource cannot POST (messages, approvals, resume answer with
// a stream) and cannot be told where to resume after a page reload, so both the POST answers and
// the live subscription read the body as a stream and parse `id:`/`event:`/`data:` here.

/** A session event as streamed; `sequence` is 0 for unsequenced events (refusals). */
export type StreamedEvent = SessionEvent;

/**
 * Every session event name: the type makes a name the protocol adds (core protocol/events.ts) a
 * compile error here until it is listed. Only types come from @arbor/core into the browser
 * (test/client-imports.test.ts).
 */
export const SESSION_EVENT_NAMES = Object.keys({
  context_update: true,
  content_delta: true,
  content_final: true,
  error: true,
  fold_started: true,
  fold_budget_warning: true,
  fold_returned: true,
  fold_tool: true,
  tool_progress: true,
  subagent_update: true,
  parallel_started: true,
  candidate_delta: true,
  candidate_tool: true,
  candidate_finished: true,
  parallel_verdict: true,
} satisfies Record<SessionEventName, true>) as readonly SessionEventName[];

const EVENT_NAMES: ReadonlySet<string> = new Set<SessionEventName>(SESSION_EVENT_NAMES);

function isEventName(name: string): name is SessionEventName {
  return EVENT_NAMES.has(name);
}

interface RawEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * Incremental parser of the text/event-stream format (WHATWG HTML §9.2.6): lines end in LF, CR or
 * CRLF; a blank line dispatches; `:` starts a comment; data lines join with "\n".
 */
export class SseParser {
  #buffer = "";
  #id: string | undefined;
  #event = "";
  #data: string[] = [];
  #sawCR = false;

  push(chunk: string): RawEvent[] {
    const out: RawEvent[] = [];
    let text = chunk;
    // a CRLF split across chunks: the LF belongs to the line the CR already ended
    if (this.#sawCR && text.startsWith("\n")) text = text.slice(1);
    this.#sawCR = text.endsWith("\r");
    this.#buffer += text;
    const lines = this.#buffer.split(/\r\n|\r|\n/);
    this.#buffer = lines.pop() ?? "";
    for (const line of lines) this.#line(line, out);
    return out;
  }

  #line(line: string, out: RawEvent[]): void {
    if (line === "") {
      if (this.#data.length > 0) {
        out.push({ id: this.#id, event: this.#event || "message", data: this.#data.join("\n") });
      }
      this.#id = undefined;
      this.#event = "";
      this.#data = [];
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
    else if (field === "id") this.#id = value;
  }
}

/** The typed session event of a raw one, or undefined for names and data this client does not know. */
export function toSessionEvent(raw: RawEvent): StreamedEvent | undefined {
  if (!isEventName(raw.event)) return undefined;
  const sequence = raw.id !== undefined && /^\d+$/.test(raw.id) ? Number(raw.id) : 0;
  let payload: unknown;
  try {
    payload = JSON.parse(raw.data);
  } catch {
    return undefined;
  }
  if (typeof payload !== "object" || payload === null) return undefined;
  // The server writes each payload from the protocol's zod schema for that event name; the pair
  // is re-joined here without re-validating (the browser bundle carries no zod).
  return { name: raw.event, payload, sequence } as StreamedEvent;
}

/** The events of an SSE response body, in order, until it ends or `signal` aborts. */
export async function* readSseEvents(
  response: Response,
  signal?: AbortSignal,
): AsyncGenerator<StreamedEvent> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  const onAbort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return;
      for (const raw of parser.push(value)) {
        const event = toSessionEvent(raw);
        if (event) yield event;
      }
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    reader.releaseLock();
  }
}

/**
 * "reconnecting" after a drop; "offline" once OFFLINE_AFTER attempts in a row failed (the server
 * or the network is down: it keeps retrying, and says "open" again when it is back).
 */
export type SubscriptionStatus = "connecting" | "open" | "reconnecting" | "offline" | "closed";

export interface SubscribeOptions {
  /** replay every stored event after this sequence first (0: the whole history) */
  after: number;
  onEvent: (event: StreamedEvent) => void;
  onStatus?: (status: SubscriptionStatus, detail?: string) => void;
}

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5_000;
const OFFLINE_AFTER = 3;

/**
 * A live subscription to GET /api/sessions/{id}/events. After a drop it reconnects with
 * Last-Event-ID set to the last sequence it delivered, so the server replays exactly what was
 * missed; an event at or below that sequence is never delivered twice. Returns the unsubscribe.
 */
export function subscribeSessionEvents(sessionId: string, options: SubscribeOptions): () => void {
  const controller = new AbortController();
  let last = options.after;
  let delay = RETRY_MIN_MS;
  const status = (s: SubscriptionStatus, detail?: string) => {
    if (!controller.signal.aborted) options.onStatus?.(s, detail);
  };

  const run = async () => {
    let first = true;
    let failures = 0;
    while (!controller.signal.aborted) {
      status(first ? "connecting" : failures >= OFFLINE_AFTER ? "offline" : "reconnecting");
      first = false;
      try {
        const response = await fetch(
          `/api/sessions/${encodeURIComponent(sessionId)}/events?after=${last}`,
          {
            headers: { "last-event-id": String(last), accept: "text/event-stream" },
            cache: "no-store",
            signal: controller.signal,
          },
        );
        if (response.status === 404 || response.status === 400) {
          // the session is gone or the request is wrong: retrying cannot help
          status("closed", `${response.status} ${response.statusText}`);
          return;
        }
        if (!response.ok) throw new Error(`${response.status}`);
        failures = 0;
        status("open");
        for await (const event of readSseEvents(response, controller.signal)) {
          delay = RETRY_MIN_MS;
          if (event.sequence !== 0) {
            if (event.sequence <= last) continue;
            last = event.sequence;
          }
          options.onEvent(event);
        }
      } catch {
        // dropped connection or server restart: fall through to the retry below
      }
      if (controller.signal.aborted) break;
      failures += 1;
      if (failures >= OFFLINE_AFTER) status("offline");
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(RETRY_MAX_MS, delay * 2);
    }
  };
  void run();
  return () => controller.abort();
}
