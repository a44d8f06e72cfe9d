import { describe, expect, it } from "vitest";
import { text, toolPair } from "../../../test/support/random-context-history.js";
import {
  defaultTokenCounter,
  heuristicTokenCounter,
  TOOL_RESULT_OVERHEAD,
  USER_ASSISTANT_OVERHEAD,
} from "../../agent/token-count.js";
import { OptimizationConfigSchema } from "../../model/session-config.js";
import { toModelText } from "./model-view.js";
import {
  cachedContextMessageTokens,
  contextMessageTokens,
  countRequestTokens,
  needsOptimization,
  optimizationTarget,
  requestTokensAtMost,
  toolDefinitionTokens,
} from "./request-tokens.js";

describe("Token limit detection", () => {
  const counter = defaultTokenCounter();
  const messages = [
    text("u1", "user", "read the parser please"),
    ...toolPair("t1", [
      { name: "read_file", args: { path: "src/a.ts" }, output: "export const a = 1;" },
    ]),
  ];
  const tool = {
    name: "read_file",
    description: "Read a file from the workspace",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  };

  it("counts the system prompt, the messages and the tool definitions", () => {
    const systemPrompt = "You are a careful coding agent.";
    const counts = countRequestTokens({ systemPrompt, messages, tools: [tool] });
    expect(counts.systemPrompt).toBe(counter.countText(systemPrompt));
    expect(counts.tools).toBe(counter.countText(JSON.stringify(tool)));
    expect(counts.messages).toBe(
      USER_ASSISTANT_OVERHEAD * 2 +
        TOOL_RESULT_OVERHEAD +
        messages.reduce((a, m) => a + counter.countText(toModelText(m)), 0),
    );
    expect(counts.total).toBe(counts.systemPrompt + counts.tools + counts.messages);
    // each part moves the total
    expect(countRequestTokens({ systemPrompt: "", messages, tools: [tool] }).total).toBeLessThan(
      counts.total,
    );
    expect(countRequestTokens({ systemPrompt, messages, tools: [] }).total).toBeLessThan(
      counts.total,
    );
  });

  it("tokenizes accurately: the runtime's tokenizer, not a length heuristic", () => {
    const base64ish = "QUJD".repeat(500);
    const message = text("x", "user", base64ish);
    expect(contextMessageTokens(message)).toBe(
      USER_ASSISTANT_OVERHEAD + counter.countText(base64ish),
    );
    expect(contextMessageTokens(message)).not.toBe(
      USER_ASSISTANT_OVERHEAD + Math.ceil(base64ish.length / 4),
    );
  });

  it("caches per message and per tool definition (content is immutable)", () => {
    let calls = 0;
    const counting = {
      countText: (t: string) => {
        calls++;
        return t.length;
      },
    };
    const message = text("c", "user", "hello");
    contextMessageTokens(message, counting);
    contextMessageTokens(message, counting);
    toolDefinitionTokens(tool, counting);
    toolDefinitionTokens(tool, counting);
    expect(calls).toBe(2);
  });

  it("triggers above trigger_ratio × window and aims at target_ratio × window", () => {
    const config = OptimizationConfigSchema.parse({ trigger_ratio: 0.8, target_ratio: 0.5 });
    expect(needsOptimization(80_000, config, 100_000)).toBe(false);
    expect(needsOptimization(80_001, config, 100_000)).toBe(true);
    expect(optimizationTarget(config, 100_000)).toBe(50_000);
    // a target configured above the trigger is clamped to it
    expect(
      optimizationTarget(
        OptimizationConfigSchema.parse({ trigger_ratio: 0.6, target_ratio: 0.9 }),
        1000,
      ),
    ).toBe(600);
  });

  it("bounds a request from above without tokenizing messages not counted yet", () => {
    const systemPrompt = "You are a careful coding agent.";
    const fresh = [
      text("b1", "user", "check module m3 for unused exports: read its 4 files 😀"),
      ...toolPair("b2", [
        {
          name: "read_file",
          args: { path: "m3/f0.ts" },
          output: "export const v = 1;\n".repeat(30),
        },
      ]),
    ];
    const request = { systemPrompt, messages: fresh, tools: [tool] };
    const most = requestTokensAtMost(request);
    for (const m of fresh) expect(cachedContextMessageTokens(m)).toBeUndefined();
    const exact = countRequestTokens(request).total;
    expect(most).toBeGreaterThanOrEqual(exact);
    // once counted, a message counts as counted: the bound is the count
    expect(requestTokensAtMost(request)).toBe(exact);
    // the heuristic counter's bound is its count; a counter of unknown bound has none
    const heuristic = heuristicTokenCounter();
    expect(requestTokensAtMost(request, heuristic)).toBe(
      countRequestTokens(request, heuristic).total,
    );
    expect(requestTokensAtMost(request, { countText: (t) => t.length })).toBeUndefined();
  });
});
