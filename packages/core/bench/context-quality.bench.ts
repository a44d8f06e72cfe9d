// Issue #15, context quality: what the model still knows after optimization. 250 turns, each
// stating a fact ("the vault code for room R12 is garnet-1084"), a file read every fifth turn, a
// 20,000-token window; a session over HTTP (the real Anthropic adapter against the fake LLM
// server, which answers summary requests by summarizing what it is shown). Two runs: summaries
// by the model, and the offline/extractive path. Measured on the wire: the planted codes the last
// request still holds (recall), requests over the window, requests not starting with a user
// message, broken tool call/result pairs, and the summary requests made while a message waited
// for its answer although the context was past the trigger before it was sent (the critical path
// that optimizing ahead removes; a summary model answers after 40 ms here). Between turns the run
// waits for the session's background work, as a user reading the answer would.

import { OptimizationConfigSchema } from "../src/index.js";
import { type FakeLlmServer, startFakeLlmServer } from "../src/testing/index.js";
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
      notes: `sends that began past the trigger; ${result.summaryRequestsCrossing} more in sends whose own turn crossed it; ${result.summaryRequests} summary requests in all; send median ${median(result.sendMs).toFixed(1)} ms, max ${Math.max(...result.sendMs).toFixed(1)} ms`,
    },
  ];
}

const AHEAD_TURNS = 60;

async function aheadFigures(fake: FakeLlmServer): Promise<BenchFigure[]> {
  const runWith = (optimizeAhead: boolean) =>
    runPlantedFacts({
      fake,
      turns: AHEAD_TURNS,
      contextWindow: WINDOW,
      logger: quiet,
      waitBetweenTurns: true,
      answerChars: 2_400,
      deps: { optimizeAhead },
    });
  const on = await runWith(true);
  const off = await runWith(false);
  const sendNotes = (r: PlantedFactResult) =>
    `median send ${median(r.sendMs).toFixed(1)} ms, max ${Math.max(...r.sendMs).toFixed(1)} ms; recall ${Math.round(r.recall * 100)}%`;
  return [
    {
      name: "summary requests on the critical path, long answers, optimizing ahead",
      value: on.summaryRequestsInSends,
      unit: "requests",
      target: "0",
      pass: on.summaryRequestsInSends === 0 && on.summaryRequests > 0,
      notes: `${on.summaryRequests} summary requests in all, made while the answer was shown; ${sendNotes(on)}`,
    },
    {
      name: "summary requests on the critical path, long answers, not ahead",
      value: off.summaryRequestsInSends,
      unit: "requests",
      target: "-",
      pass: true,
      informational: true,
      notes: `${off.summaryRequests} summary requests in all; ${sendNotes(off)}`,
    },
  ];
}

export async function run(): Promise<BenchFigure[]> {
  const fake = await startFakeLlmServer({ summaryDelayMs: SUMMARY_LATENCY_MS });
  try {
    // the session's own model writes the summaries (the default with a configured provider)
    const withModel = await runPlantedFacts({
      fake,
      turns: TURNS,
      contextWindow: WINDOW,
      logger: quiet,
      waitBetweenTurns: true,
    });
    // summary_model on the offline protocol: the extractive summarizer, no model call
    const extractive = await runPlantedFacts({
      fake,
      turns: TURNS,
      contextWindow: WINDOW,
      logger: quiet,
      waitBetweenTurns: true,
      config: {
        optimization: OptimizationConfigSchema.parse({
          summary_model: { protocol: "offline", model: "offline" },
        }),
      },
    });
    // long answers (~2,400 characters) leave the context past the trigger after an answer: with
    // optimizing ahead the summaries are made while the user reads; without, when they send
    const ahead = await aheadFigures(fake);
    // the small window: 6,000 tokens, of which the fixed part takes ~1,700; the requests
    // must stay valid (the recall has no goal here: the room holds a few facts at most)
    const small = await runPlantedFacts({
      fake,
      turns: 100,
      contextWindow: 6_000,
      logger: quiet,
      waitBetweenTurns: true,
    });
    const smallValid =
      small.requestsOverWindow +
      small.requestsNotStartingWithUser +
      small.requestsWithBrokenPairs +
      small.failedSends;
    return [
      ...figures("model summaries", withModel, 90),
      {
        name: "planted-fact requests valid, 6,000-token window (100 turns)",
        value: small.requests - smallValid,
        unit: "requests",
        target: `all ${small.requests}`,
        pass: smallValid === 0,
        notes: `over the window: ${small.requestsOverWindow} (max ${small.maxRequestTokens}); not starting with user: ${small.requestsNotStartingWithUser}; broken pairs: ${small.requestsWithBrokenPairs}; recall ${small.recalled}/100 (informational)`,
      },
      ...figures("extractive", extractive, 70),
      ...ahead,
    ];
  } finally {
    await fake.close();
  }
}
