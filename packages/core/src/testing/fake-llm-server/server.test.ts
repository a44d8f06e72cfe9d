import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { decodeBedrockFrame } from "./bedrock.js";
import type { FakeLlmServer, RecordedRequest } from "./index.js";
import { startFakeLlmServer } from "./index.js";

// Behaviour shared by every wire format: timing, interruption, disconnects, scripting, control
// endpoints and the CLI. Raw fetch on purpose: these are properties of the bytes on the wire.

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function postMessages(base: string, body: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${base}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
      ...body,
    }),
  });
}

/** Reads a body to the end, returning the chunk arrival times and whether it ended cleanly. */
async function readTimed(response: Response) {
  const reader = response.body?.getReader();
  if (!reader) throw new Error("no body");
  const decoder = new TextDecoder();
  let text = "";
  const arrivals: number[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, arrivals, failed: false };
      arrivals.push(Date.now());
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return { text, arrivals, failed: true };
  }
}

describe("fake LLM server behaviour", () => {
  it("honours firstChunkDelayMs and chunkDelayMs", async () => {
    server.enqueue({
      blocks: [{ type: "text", text: "abcdef" }],
      chunkSize: 2,
      firstChunkDelayMs: 150,
      chunkDelayMs: 30,
    });
    const started = Date.now();
    const response = await postMessages(server.url);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    const { text, failed } = await readTimed(response);
    // 11 events (start, ping, block start, 3 deltas, block stop, delta, stop) × 30 ms
    expect(Date.now() - started).toBeGreaterThanOrEqual(140 + 9 * 30);
    expect(failed).toBe(false);
    expect(text.match(/"text_delta"/g)).toHaveLength(3);
  });

  it("interruptAfterChunks drops the connection after exactly that many events", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "x".repeat(100) }], interruptAfterChunks: 3 });
    const { text, failed } = await readTimed(await postMessages(server.url));
    expect(failed).toBe(true);
    expect(text.match(/^event: /gm)).toHaveLength(3);
    expect(text).not.toContain("message_stop");
  });

  it("holdAfterChunks pauses after exactly that many events until a release", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "x".repeat(100) }], holdAfterChunks: 3 });
    const response = await postMessages(server.url);
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no body");
    const decoder = new TextDecoder();
    let text = "";
    const events = () => text.match(/^event: /gm)?.length ?? 0;
    while (events() < 3) text += decoder.decode((await reader.read()).value, { stream: true });
    // nothing more comes while it is held: the next read is still pending after 200 ms
    const next = reader.read();
    const raced = await Promise.race([next, new Promise((r) => setTimeout(() => r("held"), 200))]);
    expect(raced).toBe("held");
    expect(events()).toBe(3);

    const released = await fetch(`${server.url}/__fake/release`, { method: "POST" });
    expect(await released.json()).toEqual({ released: 1 });
    text += decoder.decode((await next).value, { stream: true });
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toContain("message_stop");
    expect(server.release()).toBe(0);
  });

  it("holdAfterChunks 0 holds the response before it starts; a reset lets it go", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "late" }], holdAfterChunks: 0 });
    const pending = postMessages(server.url, { stream: false });
    const raced = await Promise.race([
      pending,
      new Promise((r) => setTimeout(() => r("held"), 200)),
    ]);
    expect(raced).toBe("held");
    // the request is recorded while its answer waits
    expect(server.requests).toHaveLength(1);
    server.reset();
    expect(await (await pending).json()).toMatchObject({ content: [{ text: "late" }] });
  });

  it("keeps serving after a client walks away mid-stream", async () => {
    server.enqueue({
      blocks: [{ type: "text", text: "y".repeat(400) }],
      chunkSize: 1,
      chunkDelayMs: 5,
    });
    const response = await postMessages(server.url);
    const reader = response.body?.getReader();
    await reader?.read();
    await reader?.cancel();
    // the next request gets its own scripted answer
    server.enqueue({ blocks: [{ type: "text", text: "next" }] });
    const next = await postMessages(server.url, { stream: false });
    expect(await next.json()).toMatchObject({ content: [{ type: "text", text: "next" }] });
  });

  it("records each request before answering it, with decoded body, query and headers", async () => {
    let seenDuringScript: RecordedRequest[] = [];
    server.setScript((view) => {
      seenDuringScript = [...server.requests];
      return { blocks: [{ type: "text", text: `#${view.index} ${view.protocol} ${view.model}` }] };
    });
    const response = await fetch(`${server.url}/v1beta/models/gem-1:generateContent?x=1`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": "k" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "q" }] }] }),
    });
    const body = (await response.json()) as {
      candidates: { content: { parts: unknown[] } }[];
    };
    expect(body.candidates[0]?.content.parts).toEqual([{ text: "#0 google-gemini gem-1" }]);
    expect(seenDuringScript).toHaveLength(1);
    expect(seenDuringScript[0]).toMatchObject({
      protocol: "google-gemini",
      method: "POST",
      path: "/v1beta/models/gem-1:generateContent",
      query: { x: "1" },
      headers: { "x-goog-api-key": "k" },
      body: { contents: [{ role: "user", parts: [{ text: "q" }] }] },
    });
  });

  it("serves queued turns before a script function, and the echo when neither is set", async () => {
    server.setScript(() => ({ blocks: [{ type: "text", text: "from function" }] }));
    server.enqueue({ blocks: [{ type: "text", text: "from queue" }] });
    const texts: string[] = [];
    for (let i = 0; i < 2; i++) {
      const response = await postMessages(server.url, { stream: false });
      const json = (await response.json()) as { content: { text: string }[] };
      texts.push(json.content[0]?.text ?? "");
    }
    server.reset();
    const echo = await postMessages(server.url, { stream: false });
    expect(texts).toEqual(["from queue", "from function"]);
    expect(await echo.json()).toMatchObject({ content: [{ text: "Fake reply to: hi" }] });
    expect(server.requests).toHaveLength(1);
  });

  it("writes scripted error bodies verbatim when given, with the scripted headers", async () => {
    server.enqueue({ error: { status: 503, body: "upstream down", headers: { "x-custom": "1" } } });
    const response = await postMessages(server.url);
    expect(response.status).toBe(503);
    expect(response.headers.get("x-custom")).toBe("1");
    expect(await response.text()).toBe("upstream down");
  });

  it("frames Bedrock events with the AWS event-stream codec and Bedrock's event names", async () => {
    server.enqueue({ blocks: [{ type: "toolCall", name: "t", arguments: { k: "v" } }] });
    const response = await fetch(`${server.url}/model/m1/converse-stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: [{ text: "go" }] }] }),
    });
    expect(response.headers.get("content-type")).toBe("application/vnd.amazon.eventstream");
    const bytes = new Uint8Array(await response.arrayBuffer());
    const events: { eventType: string; payload: unknown }[] = [];
    for (let offset = 0; offset < bytes.length; ) {
      const length = new DataView(bytes.buffer, offset, 4).getUint32(0);
      events.push(decodeBedrockFrame(bytes.subarray(offset, offset + length)));
      offset += length;
    }
    expect(events.map((e) => e.eventType)).toEqual([
      "messageStart",
      "contentBlockStart",
      "contentBlockDelta",
      "contentBlockDelta",
      "contentBlockStop",
      "messageStop",
      "metadata",
    ]);
    expect(events[1]?.payload).toMatchObject({
      contentBlockIndex: 0,
      start: { toolUse: { toolUseId: "tooluse_1", name: "t" } },
    });
    expect(events[5]?.payload).toMatchObject({ stopReason: "tool_use" });
  });

  it("answers 404 for unknown routes without recording them", async () => {
    const response = await fetch(`${server.url}/v2/unknown`, { method: "POST", body: "{}" });
    expect(response.status).toBe(404);
    expect(server.requests).toEqual([]);
  });
});

describe("fake LLM server control endpoints", () => {
  it("scripts, lists and resets over HTTP", async () => {
    const script = await fetch(`${server.url}/__fake/script`, {
      method: "POST",
      body: JSON.stringify({ turns: [{ blocks: [{ type: "text", text: "remote turn" }] }] }),
    });
    expect(script.status).toBe(200);
    const answer = await postMessages(server.url, { stream: false });
    expect(await answer.json()).toMatchObject({ content: [{ text: "remote turn" }] });

    const listed = (await (await fetch(`${server.url}/__fake/requests`)).json()) as {
      requests: RecordedRequest[];
    };
    expect(listed.requests).toMatchObject([
      { protocol: "anthropic-messages", path: "/v1/messages" },
    ]);

    expect((await fetch(`${server.url}/__fake/reset`, { method: "POST" })).status).toBe(200);
    expect(server.requests).toEqual([]);
  });

  it("rejects malformed scripts with 400", async () => {
    const response = await fetch(`${server.url}/__fake/script`, {
      method: "POST",
      body: JSON.stringify({ turns: [{ blocks: [{ type: "video" }] }] }),
    });
    expect(response.status).toBe(400);
  });
});

describe("fake LLM server CLI", () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill("SIGTERM");
    child = undefined;
  });

  function startCli(args: string[]): Promise<string> {
    const spawned = spawn(
      process.execPath,
      [
        "--conditions=@arbor/source",
        "--import",
        "tsx",
        "src/testing/fake-llm-server/cli.ts",
        ...args,
      ],
      { cwd: join(import.meta.dirname, "../../.."), stdio: ["ignore", "pipe", "pipe"] },
    );
    child = spawned;
    return new Promise((resolve, reject) => {
      let out = "";
      let err = "";
      spawned.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const match = /fake-llm-server listening on (\S+)/.exec(out);
        if (match?.[1]) resolve(match[1]);
      });
      spawned.stderr?.on("data", (chunk: Buffer) => {
        err += chunk.toString();
      });
      spawned.once("exit", (code) => reject(new Error(`cli exited ${code}: ${err}`)));
    });
  }

  it("starts on the given host and port with a script file and prints its URL", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fake-llm-"));
    const file = join(dir, "script.json");
    await writeFile(
      file,
      JSON.stringify({ turns: [{ blocks: [{ type: "text", text: "scripted by file" }] }] }),
    );
    const url = await startCli(["--host", "127.0.0.1", "--port", "0", "--script", file]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const answer = await postMessages(url, { stream: false });
    expect(await answer.json()).toMatchObject({ content: [{ text: "scripted by file" }] });
    const echo = await postMessages(url, { stream: false });
    expect(await echo.json()).toMatchObject({ content: [{ text: "Fake reply to: hi" }] });
  });
});
