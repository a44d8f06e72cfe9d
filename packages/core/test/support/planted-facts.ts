import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { estimateTextTokens } from "../../src/agent/token-count.js";
import type { Logger } from "../../src/agent/types.js";
import type { Session } from "../../src/context/session/session.js";
import type { SessionDeps } from "../../src/context/session/session-deps.js";
import { SessionManager } from "../../src/context/session/session-manager.js";
import { modelConfigFromEnv } from "../../src/llm/env-config.js";
import { createDefaultProviderRegistry } from "../../src/llm/registry.js";
import type { SessionConfigInput } from "../../src/model/session-config.js";
import { InMemorySessionStore } from "../../src/store/memory-store.js";
import { isSummaryRequest } from "../../src/testing/fake-llm-server/summarize.js";
import type { FakeLlmServer, RecordedRequest } from "../../src/testing/fake-llm-server/types.js";
import type { ScriptedTurn, ScriptRequestView } from "../../src/testing/script.js";
import { createDefaultTools } from "../../src/tools/builtin/default-tools.js";

// The planted-fact run of issue #15: a session over HTTP (the real Anthropic adapter against the
// fake LLM server) where each user turn states one fact ("the vault code for room R12 is
// garnet-1084"), every fifth turn the model reads a file (a tool call with a long result), and the
// last turn asks for every code. Measured on what the model was sent: how many planted codes the
// last request still holds (recall), whether every request fits the window, starts with a user
// message and keeps each tool call with its result.

const WORDS = ["garnet", "cobalt", "amber", "slate", "ivory", "onyx", "jade", "umber", "coral"];

export interface PlantedFact {
  turn: number;
  code: string;
  text: string;
}

export function plantedFact(turn: number): PlantedFact {
  const code = `${WORDS[turn % WORDS.length]}-${1000 + ((turn * 7919) % 9000)}`;
  return {
    turn,
    code,
    text: `Turn ${turn}: the vault code for room R${turn} is ${code}. Please keep it in mind while we continue the review of the archive.`,
  };
}

export const FINAL_QUESTION = "List every vault code you know, room by room.";

/** A workspace with notes/room-N.md files of ~60 lines each: what the fifth turns read. */
export function factWorkspace(turns: number): string {
  const root = mkdtempSync(join(tmpdir(), "arbor-facts-"));
  mkdirSync(join(root, "notes"));
  for (let turn = 5; turn <= turns; turn += 5) {
    const lines = Array.from(
      { length: 60 },
      (_, i) => `Line ${i + 1} of the archive inventory for room ${turn}: crates, shelves, labels.`,
    );
    writeFileSync(join(root, "notes", `room-${turn}.md`), `${lines.join("\n")}\n`);
  }
  return root;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

type WireMessage = { role: string; content: unknown };

function wireMessages(body: unknown): WireMessage[] {
  if (!isRecord(body) || !Array.isArray(body.messages)) return [];
  return body.messages.filter(isRecord).map((m) => ({ role: String(m.role), content: m.content }));
}

function blocks(content: unknown): Record<string, unknown>[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

const FILLER =
  "The archive review goes on as planned, shelf after shelf, and nothing here changes what we already know. ";

/**
 * The fake model's part: reads a file on every fifth turn, otherwise acknowledges (briefly, or at
 * `answerChars` length: long answers push a conversation past the trigger after the answer).
 */
export function factScript(view: ScriptRequestView, answerChars = 0): ScriptedTurn {
  const messages = wireMessages(view.body);
  const last = messages.at(-1);
  const lastBlocks = blocks(last?.content);
  if (lastBlocks.some((b) => b.type === "tool_result")) {
    return {
      blocks: [{ type: "text", text: "I read the inventory; nothing in it changes the plan." }],
    };
  }
  const text = lastBlocks.flatMap((b) => (typeof b.text === "string" ? [b.text] : [])).join("\n");
  const turn = Number(text.match(/^Turn (\d+):/)?.[1] ?? Number.NaN);
  if (Number.isInteger(turn) && turn % 5 === 0) {
    return {
      blocks: [
        { type: "text", text: "Let me look at the inventory for that room." },
        { type: "toolCall", name: "read_file", arguments: { path: `notes/room-${turn}.md` } },
      ],
    };
  }
  if (text === FINAL_QUESTION) {
    return { blocks: [{ type: "text", text: "Here are the codes I still have." }] };
  }
  const brief = "Noted, I will keep that in mind.";
  const long = answerChars > 0 ? ` ${FILLER.repeat(Math.ceil(answerChars / FILLER.length))}` : "";
  return { blocks: [{ type: "text", text: `${brief}${long}`.trim() }] };
}

/** Tokens of a wire request the way Arbor counts its parts: system, messages, tool definitions. */
export function wireRequestTokens(body: unknown): number {
  if (!isRecord(body)) return 0;
  const parts: string[] = [];
  const system = body.system;
  if (typeof system === "string") parts.push(system);
  else
    for (const block of blocks(system)) if (typeof block.text === "string") parts.push(block.text);
  let overhead = 0;
  for (const message of wireMessages(body)) {
    overhead += 4;
    for (const block of blocks(message.content)) {
      if (typeof block.text === "string") parts.push(block.text);
      else if (block.type === "tool_use")
        parts.push(`${block.name}(${JSON.stringify(block.input)})`);
      else if (block.type === "tool_result") {
        for (const inner of blocks(block.content)) {
          if (typeof inner.text === "string") parts.push(inner.text);
        }
      }
    }
  }
  if (Array.isArray(body.tools)) {
    for (const tool of body.tools.filter(isRecord)) {
      parts.push(
        JSON.stringify({
          name: tool.name,
          description: tool.description,
          parameters: tool.input_schema,
        }),
      );
    }
  }
  return overhead + parts.reduce((sum, part) => sum + estimateTextTokens(part), 0);
}

export interface RequestCheck {
  firstIsUser: boolean;
  pairsIntact: boolean;
  tokens: number;
}

/** Whether the request starts with a user message and each tool_use has its tool_result next. */
export function checkRequest(body: unknown): RequestCheck {
  const messages = wireMessages(body);
  let pairsIntact = true;
  messages.forEach((message, i) => {
    const uses = blocks(message.content).filter((b) => b.type === "tool_use");
    const results = blocks(message.content).filter((b) => b.type === "tool_result");
    if (message.role === "assistant" && uses.length > 0) {
      const answered = new Set(
        blocks(messages[i + 1]?.content)
          .filter((b) => b.type === "tool_result")
          .map((b) => b.tool_use_id),
      );
      if (messages[i + 1]?.role !== "user" || uses.some((u) => !answered.has(u.id))) {
        pairsIntact = false;
      }
    }
    if (results.length > 0) {
      const asked = new Set(
        blocks(messages[i - 1]?.content)
          .filter((b) => b.type === "tool_use")
          .map((b) => b.id),
      );
      if (results.some((r) => !asked.has(r.tool_use_id))) pairsIntact = false;
    }
  });
  return {
    firstIsUser: messages[0]?.role === "user",
    pairsIntact,
    tokens: wireRequestTokens(body),
  };
}

export interface PlantedFactOptions {
  fake: FakeLlmServer;
  turns: number;
  contextWindow: number;
  /** config of the session (optimization settings, summary model) over the defaults here */
  config?: SessionConfigInput;
  deps?: Partial<SessionDeps>;
  /** between turns, wait for the session's background work (a user reading the answer) */
  waitBetweenTurns?: boolean;
  /** the length of the model's plain answers (default: one short sentence) */
  answerChars?: number;
  logger: Logger;
}

export interface PlantedFactResult {
  turns: number;
  /** planted codes in the last request, of `turns` */
  recalled: number;
  recall: number;
  /** the conversation's requests (summary requests not included) */
  requests: number;
  summaryRequests: number;
  /**
   * summary requests made while a message waited for its answer, when the context was past the
   * trigger already before it was sent (the ones optimizing ahead is for)
   */
  summaryRequestsInSends: number;
  /** summary requests made while a message waited, the turn itself crossing the trigger */
  summaryRequestsCrossing: number;
  requestsOverWindow: number;
  maxRequestTokens: number;
  lastRequestTokens: number;
  requestsNotStartingWithUser: number;
  requestsWithBrokenPairs: number;
  /** ms of sendMessage operations, each turn */
  sendMs: number[];
  failedSends: number;
  session: Session;
}

export async function runPlantedFacts(options: PlantedFactOptions): Promise<PlantedFactResult> {
  const { fake, turns, contextWindow } = options;
  fake.reset();
  fake.setScript((view) => factScript(view, options.answerChars));
  const workspace = factWorkspace(turns);
  const env = { ANTHROPIC_API_KEY: "sk-ant-bench", ANTHROPIC_BASE_URL: fake.url };
  const manager = new SessionManager({
    store: new InMemorySessionStore(),
    provider: createDefaultProviderRegistry(),
    model: modelConfigFromEnv(env),
    modelEnv: env,
    tools: () => createDefaultTools({ workspaceRoot: workspace }),
    logger: options.logger,
    titles: "first_message",
    retryConfig: { maxRetries: 0, initialDelayMs: 1, backoffMultiplier: 2, maxDelayMs: 1 },
    ...options.deps,
  });
  const session = await manager.create({
    config: {
      workspace,
      approval_policy: { type: "auto_approve_all" },
      model: {
        protocol: "anthropic-messages",
        model: "claude-bench",
        context_window: contextWindow,
      },
      ...options.config,
    },
  });
  const sendMs: number[] = [];
  const inSends = new Set<RecordedRequest>();
  const crossing = new Set<RecordedRequest>();
  let failedSends = 0;
  const send = async (text: string): Promise<void> => {
    const before = fake.requests.length;
    const usage = session.contextUsage();
    const pastTrigger = usage.total > usage.trigger;
    const started = performance.now();
    const result = await session.sendMessage({ type: "text", text }).result;
    sendMs.push(performance.now() - started);
    if (!result.ok) failedSends++;
    for (const request of fake.requests.slice(before)) {
      (pastTrigger ? inSends : crossing).add(request);
    }
    if (options.waitBetweenTurns) await session.idle();
  };
  for (let turn = 1; turn <= turns; turn++) await send(plantedFact(turn).text);
  await send(FINAL_QUESTION);
  await session.idle();

  const conversation = fake.requests.filter((r) => !isSummaryRequest(r.body));
  const summaries = fake.requests.filter((r) => isSummaryRequest(r.body));
  const checks = conversation.map((r) => checkRequest(r.body));
  const last = JSON.stringify(conversation.at(-1)?.body ?? {});
  let recalled = 0;
  for (let turn = 1; turn <= turns; turn++) if (last.includes(plantedFact(turn).code)) recalled++;
  return {
    turns,
    recalled,
    recall: recalled / turns,
    requests: conversation.length,
    summaryRequests: summaries.length,
    summaryRequestsInSends: summaries.filter((r) => inSends.has(r)).length,
    summaryRequestsCrossing: summaries.filter((r) => crossing.has(r)).length,
    requestsOverWindow: checks.filter((c) => c.tokens > contextWindow).length,
    maxRequestTokens: Math.max(...checks.map((c) => c.tokens)),
    lastRequestTokens: checks.at(-1)?.tokens ?? 0,
    requestsNotStartingWithUser: checks.filter((c) => !c.firstIsUser).length,
    requestsWithBrokenPairs: checks.filter((c) => !c.pairsIntact).length,
    sendMs,
    failedSends,
    session,
  };
}
