// A minimal Server-Sent Events reader for fetch responses, used by the crash test and the web
// benches. It records when each event reached the client (performance.now()), which the benches
// need and EventSource would hide; comment lines (": stream open", heartbeats) carry no event.

export interface SseEvent {
  /** the `id:` line (the session sequence); undefined for unsequenced events */
  id: number | undefined;
  event: string;
  data: unknown;
  /** performance.now() when the bytes completing this event were read */
  at: number;
}

/** content_delta's payload (docs/protocol.md), the fields the tests look at. */
export interface ContentDelta {
  message_id: string;
  sequence: number;
  delta: string;
  channel: string;
  is_final: boolean;
}

export function isContentDelta(data: unknown): data is ContentDelta {
  if (typeof data !== "object" || data === null) return false;
  const d = data as Record<string, unknown>;
  return typeof d.message_id === "string" && typeof d.delta === "string";
}

/** Yields each event of the stream as it arrives; ends when the server closes the stream. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = "";
  let id: number | undefined;
  let name = "message";
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const at = performance.now();
      buffer += decoder.decode(value, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, "");
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf("\n");
        if (line === "") {
          // a blank line dispatches the event gathered so far (none after a comment alone)
          if (data.length > 0) {
            yield { id, event: name, data: parseData(data.join("\n")), at };
          }
          id = undefined;
          name = "message";
          data = [];
        } else if (line.startsWith(":")) {
          // comment
        } else {
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "id") id = /^\d+$/.test(value) ? Number(value) : undefined;
          else if (field === "event") name = value;
          else if (field === "data") data.push(value);
        }
      }
    }
  } finally {
    // stops the download when the consumer leaves early (break / return / throw)
    await reader.cancel().catch(() => undefined);
  }
}

/** JSON data as its value; anything else (the AI SDK's closing `[DONE]`) as the text itself. */
function parseData(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
