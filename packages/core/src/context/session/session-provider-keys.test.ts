import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, errors, silent } from "../../../test/support/session-harness.js";
import { modelConfigFromEnv } from "../../llm/env-config.js";
import { createDefaultProviderRegistry } from "../../llm/registry.js";
import type { SessionModel } from "../../model/session-config.js";
import { InMemorySessionStore } from "../../store/memory-store.js";
import { SessionManager } from "./session-manager.js";

// Provider keys are scoped to their provider (issue #9 finding 5): a session switched to another
// protocol sends that provider's own key to that provider's own base URL, or fails naming the
// variable. Real AI SDK providers talk to local HTTP servers that record every request's headers.

const ANTHROPIC_KEY = "sk-ant-secret-0123456789";
const OPENAI_KEY = "sk-openai-secret-abcdef";
const GOOGLE_KEY = "google-secret-key-xyz";

interface Recorder {
  server: Server;
  url: string;
  headers: IncomingHttpHeaders[];
}

async function recorder(): Promise<Recorder> {
  const headers: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    headers.push(req.headers);
    req.resume();
    req.on("end", () => {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "recorded", type: "invalid_request_error" } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, headers };
}

let anthropic: Recorder;
let openai: Recorder;
let google: Recorder;

beforeAll(async () => {
  [anthropic, openai, google] = await Promise.all([recorder(), recorder(), recorder()]);
});
afterAll(async () => {
  for (const r of [anthropic, openai, google]) {
    await new Promise((resolve) => r.server.close(resolve));
  }
});

function env(extra: Record<string, string | undefined> = {}) {
  return {
    ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    // Arbor's own override belongs to the default provider only
    ARBOR_BASE_URL: anthropic.url,
    OPENAI_API_KEY: OPENAI_KEY,
    OPENAI_BASE_URL: `${openai.url}/v1`,
    GOOGLE_GENERATIVE_AI_API_KEY: GOOGLE_KEY,
    GOOGLE_GENERATIVE_AI_BASE_URL: google.url,
    ...extra,
  };
}

async function runWith(
  model: SessionModel | undefined,
  modelEnv: Record<string, string | undefined>,
) {
  const manager = new SessionManager({
    store: new InMemorySessionStore(),
    provider: createDefaultProviderRegistry(),
    model: modelConfigFromEnv(modelEnv),
    modelEnv,
    tools: () => [],
    logger: silent,
    retryConfig: { maxRetries: 0, initialDelayMs: 1, backoffMultiplier: 2, maxDelayMs: 1 },
  });
  const session = await manager.create(model ? { config: { model } } : {});
  const events = await collect(session.sendMessage({ type: "text", text: "hello" }));
  return { session, events };
}

const sessionModel = (protocol: SessionModel["protocol"], model: string): SessionModel => ({
  protocol,
  model,
  thinking_level: "off",
  context_window: 100_000,
});

function allValues(list: IncomingHttpHeaders[]): string {
  return JSON.stringify(list);
}

describe("provider keys are scoped to their provider", () => {
  it("the default (Anthropic) model sends the Anthropic key to the Anthropic server", async () => {
    const before = anthropic.headers.length;
    await runWith(undefined, env());
    const sent = anthropic.headers.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent[0]?.["x-api-key"]).toBe(ANTHROPIC_KEY);
  });

  it("a session switched to openai-chat sends OPENAI_API_KEY to OPENAI_BASE_URL, never the Anthropic key", async () => {
    const [a, o] = [anthropic.headers.length, openai.headers.length];
    const { events } = await runWith(sessionModel("openai-chat", "gpt-4.1"), env());
    expect(anthropic.headers.length).toBe(a);
    const sent = openai.headers.slice(o);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent[0]?.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(allValues(sent)).not.toContain(ANTHROPIC_KEY);
    // the recorder answers 400: the run fails as a model call, not for want of a key
    expect(errors(events)[0]?.message).not.toContain("needs");
  });

  it("a session switched to google-gemini sends GOOGLE_GENERATIVE_AI_API_KEY to Google's base URL only", async () => {
    const [a, g] = [anthropic.headers.length, google.headers.length];
    await runWith(sessionModel("google-gemini", "gemini-2.5-flash"), env());
    expect(anthropic.headers.length).toBe(a);
    const sent = google.headers.slice(g);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent[0]?.["x-goog-api-key"]).toBe(GOOGLE_KEY);
    expect(allValues(sent)).not.toContain(ANTHROPIC_KEY);
  });

  it("without the provider's own key the run fails with an error naming the variable; nothing is sent", async () => {
    const counts = [anthropic, openai, google].map((r) => r.headers.length);
    const openaiLess = await runWith(
      sessionModel("openai-chat", "gpt-4.1"),
      env({ OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined }),
    );
    expect(errors(openaiLess.events)).toEqual([
      expect.objectContaining({ code: "llm_error", recoverable: true }),
    ]);
    expect(errors(openaiLess.events)[0]?.message).toContain("OPENAI_API_KEY");
    expect(openaiLess.session.state).toMatchObject({ type: "Failed", recoverable: true });
    const googleLess = await runWith(
      sessionModel("google-gemini", "gemini-2.5-flash"),
      env({ GOOGLE_GENERATIVE_AI_API_KEY: undefined }),
    );
    expect(errors(googleLess.events)[0]?.message).toContain("GOOGLE_GENERATIVE_AI_API_KEY");
    expect([anthropic, openai, google].map((r) => r.headers.length)).toEqual(counts);
  });

  it("the default protocol under another model id keeps the default's key and base URL", async () => {
    const before = anthropic.headers.length;
    await runWith(sessionModel("anthropic-messages", "claude-haiku-4-5"), env());
    expect(anthropic.headers.slice(before)[0]?.["x-api-key"]).toBe(ANTHROPIC_KEY);
  });
});

describe("a model given as a function (issue #27: a key kept in Settings)", () => {
  it("is asked at each request: a key changed between two messages of one session is the one sent", async () => {
    let modelEnv: Record<string, string | undefined> = env();
    const manager = new SessionManager({
      store: new InMemorySessionStore(),
      provider: createDefaultProviderRegistry(),
      model: () => modelConfigFromEnv(modelEnv),
      modelEnv: () => modelEnv,
      tools: () => [],
      logger: silent,
      retryConfig: { maxRetries: 0, initialDelayMs: 1, backoffMultiplier: 2, maxDelayMs: 1 },
    });
    const session = await manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    const before = anthropic.headers.length;
    await collect(session.sendMessage({ type: "text", text: "first" }));
    modelEnv = env({ ANTHROPIC_API_KEY: "sk-ant-kept-in-settings-42" });
    await collect(session.sendMessage({ type: "text", text: "second" }));
    const keys = anthropic.headers.slice(before).map((h) => h["x-api-key"]);
    expect(keys[0]).toBe(ANTHROPIC_KEY);
    expect(keys.at(-1)).toBe("sk-ant-kept-in-settings-42");
  });
});
