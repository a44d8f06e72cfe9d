import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as events from "@/app/api/sessions/[id]/events/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import {
  authedRequest,
  createSessionId,
  type ParsedSseEvent,
  params,
  parseSse,
  TEST_TOKEN,
  useTestServer,
} from "./support";

// SSE writes a turn at a time (docs/decisions/0076), over real HTTP: the route handlers served by
// a node:http server the way `next start` serves them (the Response body piped to the socket),
// the model the fake LLM server over HTTP, the client `fetch`. What a client reads is every event
// of the operation, in order, with the ids the store gave them (a replay from Last-Event-ID reads
// the same), and the first delta goes out as soon as it is stored, not with the ones after it.

const server = useTestServer();

let http: Server | undefined;
let base = "";

beforeEach(async () => {
  const made = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      const match = /^\/api\/sessions\/([^/]+)\/(messages|events)$/.exec(url.pathname);
      if (match === null) {
        response.writeHead(404).end();
        return;
      }
      const id = match[1] ?? "";
      const abort = new AbortController();
      response.on("close", () => abort.abort());
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === "string") headers.set(name, value);
      }
      const routed = authedRequest(url.href, {
        method: request.method ?? "GET",
        headers,
        signal: abort.signal,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      });
      const answer =
        match[2] === "messages"
          ? await messages.POST(routed, params({ id }))
          : await events.GET(routed, params({ id }));
      response.writeHead(answer.status, Object.fromEntries(answer.headers));
      if (answer.body === null) {
        response.end();
        return;
      }
      Readable.fromWeb(answer.body as NodeReadableStream<Uint8Array>).pipe(response);
    })().catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  http = made;
  await new Promise<void>((resolve) => made.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(made.address() as AddressInfo).port}`;
});

afterEach(async () => {
  const open = http;
  http = undefined;
  if (open === undefined) return;
  open.closeAllConnections();
  await new Promise<void>((resolve) => open.close(() => resolve()));
});

interface Arrival {
  event: ParsedSseEvent;
  /** ms since the request was sent */
  at: number;
}

/** Reads an SSE response over the network; stops once `until` holds for what was read. */
async function readEvents(
  response: Response,
  started: number,
  until: (seen: readonly ParsedSseEvent[]) => boolean = () => false,
): Promise<Arrival[]> {
  const reader = response.body?.getReader();
  if (!reader) throw new Error("no body");
  const decoder = new TextDecoder();
  const arrivals: Arrival[] = [];
  let text = "";
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
    const end = text.lastIndexOf("\n\n");
    if (end === -1) continue;
    const at = performance.now() - started;
    for (const event of parseSse(text.slice(0, end + 2))) arrivals.push({ event, at });
    text = text.slice(end + 2);
    if (until(arrivals.map((a) => a.event))) {
      await reader.cancel();
      break;
    }
  }
  return arrivals;
}

function send(id: string, text: string): Promise<Response> {
  return fetch(`${base}/api/sessions/${id}/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ session_id: id, payload: { type: "text", text } }),
  });
}

describe("SSE over HTTP, written a turn at a time", () => {
  it("keeps every event of a fast answer, in order, with the ids a replay from Last-Event-ID reads", async () => {
    const answer = "Sixty-four characters streamed four at a time, with no pause...";
    server.llm.enqueue({ blocks: [{ type: "text", text: answer }], chunkSize: 4 });
    const id = await createSessionId();
    const started = performance.now();
    const response = await send(id, "Go.");
    expect(response.status).toBe(200);
    const live = (await readEvents(response, started)).map((a) => a.event);

    // every delta, in order, whole
    const deltas = live.filter((e) => e.event === "content_delta");
    expect(deltas.map((e) => e.data.delta).join("")).toBe(answer);
    expect(deltas).toHaveLength(Math.ceil(answer.length / 4));
    // the ids: each event has one, strictly one more than the one before (no gap, no duplicate)
    const ids = live.map((e) => e.id);
    expect(ids.every((value) => value !== undefined)).toBe(true);
    const first = ids[0] ?? 0;
    expect(ids).toEqual(ids.map((_, i) => first + i));
    // a delta's payload carries its event's id as its sequence
    for (const delta of deltas) expect(delta.data.sequence).toBe(delta.id);

    // a client that reconnects from just before this answer reads exactly the same events
    const replayStarted = performance.now();
    const replay = await fetch(`${base}/api/sessions/${id}/events`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}`, "last-event-id": String(first - 1) },
    });
    expect(replay.status).toBe(200);
    const last = ids.at(-1);
    const replayed = (
      await readEvents(replay, replayStarted, (seen) => seen.at(-1)?.id === last)
    ).map((a) => a.event);
    expect(replayed).toEqual(live);
  });

  it("writes the first delta when it is stored, not with the chunks after it", async () => {
    // the provider sends its first chunk at once, then one every 400 ms
    server.llm.enqueue({
      blocks: [{ type: "text", text: "one two three" }],
      chunkSize: 4,
      chunkDelayMs: 400,
    });
    const id = await createSessionId();
    const started = performance.now();
    const response = await send(id, "Go.");
    const arrivals = (await readEvents(response, started)).filter(
      (a) => a.event.event === "content_delta",
    );
    expect(arrivals.map((a) => a.event.data.delta).join("")).toBe("one two three");
    const [firstDelta, secondDelta] = arrivals;
    if (firstDelta === undefined || secondDelta === undefined) throw new Error("too few deltas");
    // the second chunk leaves the provider 400 ms after the first: the first was on the wire long
    // before (batching by turn holds nothing back for more than one event-loop turn)
    expect(secondDelta.at - firstDelta.at).toBeGreaterThan(200);
  });
});
