import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { collect, silent } from "../../../test/support/session-harness.js";
import { modelConfigFromEnv } from "../../llm/env-config.js";
import { createDefaultProviderRegistry } from "../../llm/registry.js";
import type { SessionConfigInput } from "../../model/session-config.js";
import type { SessionEvent } from "../../protocol/events.js";
import { InMemorySessionStore } from "../../store/memory-store.js";
import { AgentLibrary, defaultAgentDirs } from "../../subagents/agent-files.js";
import { estimateInputTokens } from "../../testing/fake-llm-server/request-body.js";
import { startFakeLlmServer } from "../../testing/fake-llm-server/server.js";
import { isSummaryRequest } from "../../testing/fake-llm-server/summarize.js";
import type { FakeLlmServer, RecordedRequest } from "../../testing/fake-llm-server/types.js";
import type { ScriptedTurn } from "../../testing/script.js";
import { type AnyAgentTool, defineTool } from "../../tools/tool.js";
import { SessionManager } from "./session-manager.js";

// Issue #26 finding 4: a child loop (a sub-agent, a fold, an ask-N-ways candidate) whose own
// conversation outgrows the model's context window recovers as the session's run does, instead
// of failing. The real Anthropic adapter talks to the fake LLM server, which refuses a request
// larger than its window with Anthropic's own "prompt is too long" error. The session believes
// the window is large (its configured context_window), so nothing is optimized before the
// provider refuses: what is tested is the recovery from the provider's refusal.

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

/** The provider's real window, in the fake's count (tokens ≈ JSON characters / 4). */
const WINDOW = 3_000;
/** Reads a child makes; their outputs together are well past the window. */
const READS = 6;

/** One page of a long log: ≈ 1,000 tokens, in lines as a tool's output comes. */
function logPage(part: number): string {
  return Array.from(
    { length: 40 },
    (_, i) => `${part}.${i} the service logged a routine heartbeat with nothing to report here`,
  ).join("\n");
}

const readLog: AnyAgentTool = defineTool({
  name: "read_log",
  label: "Read log",
  description: "Reads one page of the service log",
  category: "read",
  parameters: z.object({ part: z.number() }),
  execute: async ({ part }) => ({ content: [{ type: "text", text: logPage(part) }] }),
});

function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), "arbor-child-context-"));
  mkdirSync(join(ws, ".arbor", "agents"), { recursive: true });
  writeFileSync(
    join(ws, ".arbor", "agents", "researcher.md"),
    "---\nname: researcher\ndescription: Reads logs\ntools: read_log\n---\nYou research logs.\n",
  );
  return ws;
}

async function sessionWith(config: SessionConfigInput = {}) {
  const agents = new AgentLibrary(defaultAgentDirs(workspace()));
  const manager = new SessionManager({
    store: new InMemorySessionStore(),
    provider: createDefaultProviderRegistry(),
    model: modelConfigFromEnv(env()),
    modelEnv: env(),
    tools: () => [readLog],
    agents: () => agents,
    logger: silent,
    titles: "first_message",
    retryConfig: { maxRetries: 0, initialDelayMs: 1, backoffMultiplier: 2, maxDelayMs: 1 },
  });
  return manager.create({
    config: {
      model: { protocol: "anthropic-messages", model: "claude-main", context_window: 200_000 },
      approval_policy: { type: "auto_approve_all" },
      ...config,
    },
  });
}

function systemText(request: RecordedRequest): string {
  const system = (request.body as { system?: unknown }).system;
  if (typeof system === "string") return system;
  if (!Array.isArray(system)) return "";
  return system.map((b) => (b as { text?: string }).text ?? "").join("\n");
}

const conversation = () => fake.requests.filter((r) => !isSummaryRequest(r.body));
const tokens = (r: RecordedRequest) => estimateInputTokens(r.body);
const readCall = (part: number): ScriptedTurn => ({
  blocks: [{ type: "toolCall", name: "read_log", arguments: { part } }],
});
const say = (text: string): ScriptedTurn => ({ blocks: [{ type: "text", text }] });

/**
 * The child's requests: at least one refused as too long, each followed by one that fits and was
 * answered; none answered past the window.
 */
function expectRecovered(child: RecordedRequest[]) {
  const refused = child.filter((r) => tokens(r) > WINDOW);
  expect(refused.length).toBeGreaterThan(0);
  for (const request of refused) {
    const next = child[child.indexOf(request) + 1];
    expect(next).toBeDefined();
    expect(tokens(next!)).toBeLessThanOrEqual(WINDOW);
  }
}

const named = <N extends SessionEvent["name"]>(events: readonly SessionEvent[], name: N) =>
  events.flatMap((e) =>
    e.name === name ? [e.payload as Extract<SessionEvent, { name: N }>["payload"]] : [],
  );

describe("a child loop that outgrows the model's window recovers", () => {
  it("a sub-agent: reads past the window, is optimized, answers", async () => {
    const session = await sessionWith();
    fake.setContextWindow(WINDOW);
    let childTurn = 0;
    let parentTurn = 0;
    fake.setScript((view) => {
      const request = fake.requests[view.index]!;
      if (systemText(request).startsWith("You research logs.")) {
        const turn = childTurn++;
        return turn < READS ? readCall(turn) : say("The log holds only heartbeats.");
      }
      return parentTurn++ === 0
        ? {
            blocks: [
              { type: "toolCall", name: "researcher", arguments: { task: "Read the log." } },
            ],
          }
        : say("Only heartbeats, says the researcher.");
    });
    const events = await collect(
      session.sendMessage({ type: "text", text: "What is in the log?" }),
    );

    const ended = named(events, "subagent_update").filter((u) => u.kind === "ended");
    expect(ended).toMatchObject([{ status: "completed" }]);
    const result = session
      .messages()
      .messages.find(
        (m) => m.body.message_type === "tool_result" && m.body.tool_name === "researcher",
      );
    expect(result?.body).toMatchObject({
      status: "success",
      content: [{ type: "text", text: "The log holds only heartbeats." }],
    });
    expect(childTurn).toBe(READS + 1);
    expectRecovered(conversation().filter((r) => systemText(r).startsWith("You research logs.")));
    expect(session.state.type).toBe("Idle");
  });

  it("a fold: reads past the window, is optimized, returns", async () => {
    const session = await sessionWith({
      folding: { enabled: true, default_budget: 1_000_000, max_budget: 1_000_000 },
    });
    fake.setContextWindow(WINDOW);
    let foldTurn = 0;
    let parentTurn = 0;
    // a fold is offered `return`; the parent is not
    const isFold = (r: RecordedRequest) =>
      ((r.body as { tools?: Array<{ name: string }> }).tools ?? []).some(
        (t) => t.name === "return",
      );
    fake.setScript((view) => {
      const request = fake.requests[view.index]!;
      if (isFold(request)) {
        const turn = foldTurn++;
        return turn < READS
          ? readCall(turn)
          : {
              blocks: [
                { type: "toolCall", name: "return", arguments: { message: "Only heartbeats." } },
              ],
            };
      }
      return parentTurn++ === 0
        ? {
            blocks: [
              {
                type: "toolCall",
                name: "branch",
                arguments: { description: "read the log", prompt: "Read every page of the log." },
              },
            ],
          }
        : say("The fold found only heartbeats.");
    });
    const events = await collect(
      session.sendMessage({ type: "text", text: "What is in the log?" }),
    );

    expect(named(events, "fold_returned")).toMatchObject([
      { forced: false, reason: null, message: "Only heartbeats." },
    ]);
    expect(foldTurn).toBe(READS + 1);
    expectRecovered(conversation().filter(isFold));
    expect(session.state.type).toBe("Idle");
  });

  it("an ask-N-ways candidate: reads past the window, is optimized, answers", async () => {
    const session = await sessionWith();
    fake.setContextWindow(WINDOW);
    const turns = [0, 0];
    fake.setScript((view) => {
      const request = fake.requests[view.index]!;
      const candidate = systemText(request).startsWith("Candidate B") ? 1 : 0;
      const turn = turns[candidate]!++;
      // candidate A reads the whole log; candidate B answers at once
      if (candidate === 0 && turn < READS) return readCall(turn);
      return say(candidate === 0 ? "A: only heartbeats." : "B: no idea.");
    });
    const operation = session.askParallel({
      session_id: session.id,
      payload: { type: "text", text: "What is in the log?" },
      candidates: [{ system_prompt: "Candidate A reads logs." }, { system_prompt: "Candidate B." }],
      judge: { strategy: "pick_first" },
    });
    const events = await collect(operation);
    const result = await operation.result;

    const finished = named(events, "candidate_finished").find((f) => f.candidate === 0);
    expect(finished).toMatchObject({ status: "complete", text: "A: only heartbeats." });
    expect(result).toMatchObject({ ok: true, value: { type: "chosen", selected: 0 } });
    expect(turns[0]).toBe(READS + 1);
    expectRecovered(conversation().filter((r) => systemText(r).startsWith("Candidate A")));
    expect(session.state.type).toBe("Idle");
  });

  it("a sub-agent is optimized with the session's settings before the provider refuses", async () => {
    // the session knows the window: its trigger (0.6 of it) is passed before the provider's limit
    const session = await sessionWith({
      model: { protocol: "anthropic-messages", model: "claude-main", context_window: WINDOW },
      optimization: { strategy: { type: "recent_n", n: 2 }, trigger_ratio: 0.6, target_ratio: 0.4 },
    });
    fake.setContextWindow(WINDOW);
    let childTurn = 0;
    let parentTurn = 0;
    fake.setScript((view) => {
      const request = fake.requests[view.index]!;
      if (systemText(request).startsWith("You research logs.")) {
        const turn = childTurn++;
        return turn < READS ? readCall(turn) : say("The log holds only heartbeats.");
      }
      return parentTurn++ === 0
        ? {
            blocks: [
              { type: "toolCall", name: "researcher", arguments: { task: "Read the log." } },
            ],
          }
        : say("Only heartbeats, says the researcher.");
    });
    const events = await collect(
      session.sendMessage({ type: "text", text: "What is in the log?" }),
    );

    expect(named(events, "subagent_update").filter((u) => u.kind === "ended")).toMatchObject([
      { status: "completed" },
    ]);
    const child = conversation().filter((r) => systemText(r).startsWith("You research logs."));
    // nothing refused: every request of the child fit, though its reads together do not
    expect(child.every((r) => tokens(r) <= WINDOW)).toBe(true);
    expect(child).toHaveLength(READS + 1);
    expect(READS * tokens({ ...child[0]!, body: logPage(0) })).toBeGreaterThan(WINDOW);
    // the strategy kept the 2 most recent messages whole: the last read's output is sent as it is
    const last = JSON.stringify(child.at(-1)!.body);
    expect(last).toContain(logPage(READS - 1).split("\n")[0]);
    expect(last).not.toContain(logPage(0).split("\n")[5]);
    // the child's steps are stored as they happened: the session's branch holds no child summary
    expect(session.messages({ view: "optimized" }).optimizations).toEqual([]);
  });
});
