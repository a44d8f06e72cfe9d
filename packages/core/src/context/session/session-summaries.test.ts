import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { collect, silent } from "../../../test/support/session-harness.js";
import { modelConfigFromEnv } from "../../llm/env-config.js";
import { createDefaultProviderRegistry } from "../../llm/registry.js";
import type { SessionConfigInput } from "../../model/session-config.js";
import type { SessionEvent } from "../../protocol/events.js";
import { InMemorySessionStore } from "../../store/memory-store.js";
import { startFakeLlmServer } from "../../testing/fake-llm-server/server.js";
import { isSummaryRequest } from "../../testing/fake-llm-server/summarize.js";
import type { FakeLlmServer } from "../../testing/fake-llm-server/types.js";
import { createDefaultTools } from "../../tools/builtin/default-tools.js";
import { SUMMARIZATION_SYSTEM_PROMPT } from "../optimization/summarizer.js";
import type { SessionDeps } from "./session-deps.js";
import { SessionManager } from "./session-manager.js";

// Issue #15: with a configured provider, optimization asks the session's model (or
// optimization.summary_model) for each summary over its wire, falls back to the extractive
// summarizer on failure, and — when an answer leaves the context past the trigger — optimizes
// ahead, while the answer is shown, instead of when the next message is sent. The real Anthropic
// adapter talks to the fake LLM server, which answers summary requests by summarizing.

let fake: FakeLlmServer;
const env = () => ({ ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: fake.url });

beforeAll(async () => {
  fake = await startFakeLlmServer();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  silent.entries.length = 0;
});

const LONG = "The review goes on shelf after shelf without news. ".repeat(40);

async function sessionWith(config: SessionConfigInput = {}, deps: Partial<SessionDeps> = {}) {
  const manager = new SessionManager({
    store: new InMemorySessionStore(),
    provider: createDefaultProviderRegistry(),
    model: modelConfigFromEnv(env()),
    modelEnv: env(),
    tools: () => [],
    logger: silent,
    titles: "first_message",
    retryConfig: { maxRetries: 0, initialDelayMs: 1, backoffMultiplier: 2, maxDelayMs: 1 },
    ...deps,
  });
  return manager.create({
    config: {
      model: { protocol: "anthropic-messages", model: "claude-main", context_window: 2_000 },
      optimization: {
        strategy: { type: "recent_n", n: 2 },
        trigger_ratio: 0.8,
        target_ratio: 0.5,
      },
      ...config,
    },
  });
}

const summaryRequests = () => fake.requests.filter((r) => isSummaryRequest(r.body));
const conversation = () => fake.requests.filter((r) => !isSummaryRequest(r.body));

function optimizationUpdates(events: readonly SessionEvent[]) {
  return events.flatMap((e) =>
    e.name === "context_update" && e.payload.metadata.optimization_id !== undefined
      ? [e.payload.metadata]
      : [],
  );
}

/** Turns that state facts; the answers are long, so the context passes the trigger. */
async function talk(session: Awaited<ReturnType<typeof sessionWith>>, turns = 6) {
  fake.setScript(() => ({ blocks: [{ type: "text", text: `Noted. ${LONG}` }] }));
  for (let i = 1; i <= turns; i++) {
    await collect(
      session.sendMessage({
        type: "text",
        text: `The vault code for room R${i} is garnet-10${i}0.`,
      }),
    );
  }
}

describe("summaries by the session's model", () => {
  it("asks the session's model with the summarization prompt and its share, and records it", async () => {
    const session = await sessionWith({}, { optimizeAhead: false });
    await talk(session);
    const asked = summaryRequests();
    expect(asked.length).toBeGreaterThan(0);
    const body = asked[0]!.body as { model: string; max_tokens: number; system: unknown };
    expect(body.model).toBe("claude-main");
    expect(JSON.stringify(body.system)).toContain(SUMMARIZATION_SYSTEM_PROMPT.slice(0, 60));
    expect(body.max_tokens).toBeGreaterThanOrEqual(150);
    const { messages } = session.messages({ view: "optimized" });
    const summary = messages.find((m) => m.body.message_type === "system_control")!;
    expect(summary.body).toMatchObject({
      kind: "summary",
      data: { summarizer: "llm", model: "anthropic-messages/claude-main" },
    });
    // the fake model kept the facts it was shown, with their turns
    expect(JSON.stringify(summary.body)).toContain("garnet-1010");
    expect(JSON.stringify(summary.body)).toContain("[t1]");
    // the model saw the summary as the first user message
    const last = conversation().at(-1)!.body as { messages: Array<{ role: string }> };
    expect(last.messages[0]!.role).toBe("user");
    expect(JSON.stringify(last.messages[0])).toContain("garnet-1010");
  });

  it("uses optimization.summary_model when set, and the extractive summarizer for an offline one", async () => {
    const cheaper = await sessionWith(
      {
        optimization: {
          strategy: { type: "recent_n", n: 2 },
          summary_model: { protocol: "anthropic-messages", model: "claude-cheap" },
        },
      },
      { optimizeAhead: false },
    );
    await talk(cheaper);
    expect(summaryRequests().length).toBeGreaterThan(0);
    expect(
      summaryRequests().every((r) => (r.body as { model: string }).model === "claude-cheap"),
    ).toBe(true);

    fake.reset();
    const offline = await sessionWith(
      {
        optimization: {
          strategy: { type: "recent_n", n: 2 },
          summary_model: { protocol: "offline", model: "offline" },
        },
      },
      { optimizeAhead: false },
    );
    await talk(offline);
    expect(summaryRequests()).toHaveLength(0);
    const summary = offline
      .messages({ view: "optimized" })
      .messages.find((m) => m.body.message_type === "system_control")!;
    expect(summary.body).toMatchObject({ data: { summarizer: "extractive" } });
    expect(JSON.stringify(summary.body)).toContain("garnet-1010");
  });

  it("falls back to the extractive summary when the model's summary fails", async () => {
    const failing = await startFakeLlmServer({
      summaries: "script",
      script: (view) =>
        isSummaryRequest(view.body)
          ? { error: { status: 500, message: "summary model exploded" } }
          : { blocks: [{ type: "text", text: `Noted. ${LONG}` }] },
    });
    try {
      const failingEnv = { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: failing.url };
      const session = await sessionWith(
        {},
        { model: modelConfigFromEnv(failingEnv), modelEnv: failingEnv, optimizeAhead: false },
      );
      for (let i = 1; i <= 6; i++) {
        await collect(session.sendMessage({ type: "text", text: `Code R${i} is garnet-10${i}0.` }));
      }
      expect(failing.requests.some((r) => isSummaryRequest(r.body))).toBe(true);
      const summary = session
        .messages({ view: "optimized" })
        .messages.find((m) => m.body.message_type === "system_control")!;
      expect(summary.body).toMatchObject({ data: { summarizer: "extractive" } });
      expect(JSON.stringify(summary.body)).toContain("summary model exploded");
      expect(JSON.stringify(summary.body)).toContain("garnet-1010");
    } finally {
      await failing.close();
    }
  });
});

describe("files re-read after an optimization", () => {
  it("the newest summary holds the files the summarized turns read, as they are now, secrets redacted", async () => {
    const secret = "sk-ant-test-file-secret-0042";
    const workspace = mkdtempSync(join(tmpdir(), "arbor-recent-"));
    writeFileSync(join(workspace, "config.md"), `mode = fast\napi key = ${secret}\n`);
    const keyEnv = { ANTHROPIC_API_KEY: secret, ANTHROPIC_BASE_URL: fake.url };
    // the default tools' definitions take ~1,500 tokens: a window that leaves room for them
    const session = await sessionWith(
      {
        workspace,
        approval_policy: { type: "auto_approve_all" },
        model: { protocol: "anthropic-messages", model: "claude-main", context_window: 6_000 },
      },
      {
        model: modelConfigFromEnv(keyEnv),
        modelEnv: keyEnv,
        tools: () => createDefaultTools({ workspaceRoot: workspace, env: keyEnv }),
        optimizeAhead: false,
      },
    );
    let first = true;
    fake.setScript((view) => {
      const last = JSON.stringify((view.body as { messages: unknown[] }).messages.at(-1));
      if (first && last.includes("Read config.md")) {
        first = false;
        return {
          blocks: [{ type: "toolCall", name: "read_file", arguments: { path: "config.md" } }],
        };
      }
      return { blocks: [{ type: "text", text: `Noted. ${LONG}` }] };
    });
    await collect(session.sendMessage({ type: "text", text: "Read config.md please." }));
    // the file changes after it was read: the summary gets it as it is now
    writeFileSync(join(workspace, "config.md"), `mode = careful\napi key = ${secret}\n`);
    for (let i = 1; i <= 10; i++) {
      await collect(session.sendMessage({ type: "text", text: `Code R${i} is garnet-10${i}0.` }));
    }
    const summary = session
      .messages({ view: "optimized" })
      .messages.find((m) => m.body.message_type === "system_control")!;
    const summaryText = summary.body.message_type === "system_control" ? summary.body.text : "";
    expect(summaryText).toContain("### config.md\nmode = careful\napi key = [redacted]");
    expect(summaryText).not.toContain(secret);
    expect(summaryText).not.toContain("mode = fast");
    expect(summary.body).toMatchObject({ data: { recent_files: ["config.md"] } });
  });
});

describe("optimizing ahead", () => {
  it("after an answer past the trigger, summarizes while the answer is shown, not when the next message is sent", async () => {
    const session = await sessionWith();
    fake.setScript(() => ({ blocks: [{ type: "text", text: `Noted. ${LONG}` }] }));
    let aheadSummaries = 0;
    for (let i = 1; i <= 4; i++) {
      const before = summaryRequests().length;
      const events = await collect(
        session.sendMessage({
          type: "text",
          text: `The vault code for room R${i} is garnet-10${i}0.`,
        }),
      );
      // the send itself never waited for a summary that could be made ahead
      const inSend = summaryRequests().length - before;
      const pastBefore = optimizationUpdates(events).some((m) => m.ahead !== true);
      if (inSend > 0) expect(pastBefore).toBe(true);
      const shown = summaryRequests().length;
      await session.idle();
      aheadSummaries += summaryRequests().length - shown;
    }
    expect(aheadSummaries).toBeGreaterThan(0);
    // stored like any optimization, its update saying it was made ahead
    const updates = optimizationUpdates(await collect(eventsSoFar(session)));
    expect(updates.some((m) => m.ahead === true)).toBe(true);
    const usage = session.contextUsage();
    expect(usage.total).toBeLessThanOrEqual(usage.trigger);
  });

  it("a message sent before the summary is ready takes the optimization over instead of making it again", async () => {
    const slow = await startFakeLlmServer({ summaryDelayMs: 300 });
    try {
      const slowEnv = { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: slow.url };
      const session = await sessionWith(
        {},
        { model: modelConfigFromEnv(slowEnv), modelEnv: slowEnv },
      );
      slow.setScript(() => ({ blocks: [{ type: "text", text: `Noted. ${LONG}` }] }));
      const asked = () => slow.requests.filter((r) => isSummaryRequest(r.body)).length;
      let events: SessionEvent[] = [];
      for (let i = 1; i <= 8; i++) {
        // no idle() between turns: the next message comes while the summary is being written
        events = await collect(
          session.sendMessage({ type: "text", text: `Code R${i} is cobalt-20${i}0.` }),
        );
        if (optimizationUpdates(events).some((m) => m.ahead === true)) break;
      }
      // the send stored the optimization made ahead, and made none of its own
      expect(optimizationUpdates(events).filter((m) => m.ahead === true)).toHaveLength(1);
      expect(optimizationUpdates(events).filter((m) => m.ahead !== true)).toHaveLength(0);
      await session.idle();
      // one summary request per stored summary: nothing was summarized twice
      const records = session.messages().optimizations;
      expect(asked()).toBe(records.filter((r) => r.summaries.length > 0).length);
      const summary = session
        .messages({ view: "optimized" })
        .messages.find((m) => m.body.message_type === "system_control")!;
      expect(JSON.stringify(summary.body)).toContain("cobalt-2010");
    } finally {
      await slow.close();
    }
  });
});

function eventsSoFar(
  session: Awaited<ReturnType<typeof sessionWith>>,
): AsyncIterable<SessionEvent> {
  const last = session.lastSequence;
  const events = session.events(0);
  return {
    async *[Symbol.asyncIterator]() {
      for await (const event of events) {
        yield event;
        if (event.sequence >= last) return;
      }
    },
  };
}
