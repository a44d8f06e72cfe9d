// Issue #15, context quality: what the model still knows after optimization. 250 turns, each
// stating a fact ("the vault code for room R12 is garnet-1084"), a file read every fifth turn, a
// 20,000-token window; a session over HTTP (the real Anthropic adapter against the fake LLM
// server, which answers summary requests by summarizing what it is shown). Two runs: summaries
// by the model, and the offline/extractive path. Measured on the wire: the planted codes the last
// request still holds (recall), requests over the window, requests not starting with a user
// message, broken tool call/result pairs, and the summary requests made while a message waited
// for its answer (the critical path; a summary model answers after 40 ms here).
import { createDefaultProviderRegistry, LlmSummarizer, modelConfigFromEnv } from "../src/index.js";
import { startFakeLlmServer } from "../src/testing/index.js";
import { type PlantedFactResult, runPlantedFacts } from "../test/support/planted-facts.js";
import { type BenchFigure, median } from "./figure.js";

const TURNS = 250;
const WINDOW = 20_000;
const SUMMARY_LATENCY_MS = 40;

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function figures(label: string, result: PlantedFactResult, recallGoal: number): BenchFigure[] {
  const percent = Math.round(result.recall * 1000) / 10;
  const valid =
    result.requestsOverWindow === 0 &&
    result.requestsNotStartingWithUser === 0 &&
    result.requestsWithBrokenPairs === 0 &&
    result.failedSends === 0;
  return [
    {
      name: `planted-fact recall, ${label}`,
      value: percent,
      unit: "%",
      target: `≥ ${recallGoal}%`,
      pass: percent >= recallGoal,
      notes: `${result.recalled}/${result.turns} codes in the last request (${result.lastRequestTokens} tokens)`,
    },
    {
      name: `planted-fact requests valid, ${label}`,
      value: result.requests - result.requestsOverWindow - result.requestsWithBrokenPairs,
      unit: "requests",
      target: `all ${result.requests}`,
      pass: valid,
      notes: `over ${WINDOW}: ${result.requestsOverWindow} (max ${result.maxRequestTokens}); not starting with user: ${result.requestsNotStartingWithUser}; broken tool pairs: ${result.requestsWithBrokenPairs}; failed sends: ${result.failedSends}`,
    },
    {
      name: `summary requests on the critical path, ${label}`,
      value: result.summaryRequestsInSends,
      unit: "requests",
      target: "0",
      pass: result.summaryRequestsInSends === 0,
      notes: `${result.summaryRequests} summary requests in all; send median ${median(result.sendMs).toFixed(1)} ms, max ${Math.max(...result.sendMs).toFixed(1)} ms`,
    },
  ];
}

export async function run(): Promise<BenchFigure[]> {
  const fake = await startFakeLlmServer({ summaryDelayMs: SUMMARY_LATENCY_MS });
  try {
    const env = { ANTHROPIC_API_KEY: "sk-ant-bench", ANTHROPIC_BASE_URL: fake.url };
    const model = { ...modelConfigFromEnv(env), model: "claude-bench" };
    const withModel = await runPlantedFacts({
      fake,
      turns: TURNS,
      contextWindow: WINDOW,
      logger: quiet,
      waitBetweenTurns: true,
      deps: {
        summarizer: new LlmSummarizer({ provider: createDefaultProviderRegistry(), model }),
      },
    });
    const extractive = await runPlantedFacts({
      fake,
      turns: TURNS,
      contextWindow: WINDOW,
      logger: quiet,
      waitBetweenTurns: true,
    });
    return [...figures("model summaries", withModel, 90), ...figures("extractive", extractive, 70)];
  } finally {
    await fake.close();
  }
}
