import type { EvaluationStrategy } from "../../agent/evaluation.js";
import {
  ElaborateEvaluation,
  PickFirstEvaluation,
  TokenEfficientEvaluation,
} from "../../agent/evaluation.js";
import { LlmJudgeEvaluation } from "../../agent/judge.js";
import { effectiveConfigId } from "../../agent/loop-id.js";
import type { AgentLoopConfig } from "../../agent/types.js";
import { sessionModelConfig } from "../../llm/env-config.js";
import type { ModelConfig } from "../../model/llm-config.js";
import type {
  ParallelCandidate,
  ParallelJudge,
  ParallelMessageRequest,
  ParallelStrategyName,
} from "../../protocol/parallel.js";
import { OperationRejected, type StoredSession } from "./stored-session.js";

// Ask N ways (parallel-ask.ts): what a request's candidates and judge become — the models they
// name (checked before anything is stored), their labels, and the evaluation strategy.

/** A candidate's or the judge's model that cannot be used: the request field and why. */
export interface ParallelRequestProblem {
  field: string;
  message: string;
}

/** Checks the models a request names (keys present) before anything is stored. */
export function parallelRequestProblem(
  core: StoredSession,
  request: Pick<ParallelMessageRequest, "candidates" | "judge">,
): ParallelRequestProblem | undefined {
  const check = (field: string, choice: ParallelCandidate["model"]) => {
    if (choice === undefined) return undefined;
    try {
      sessionModelConfig(core.deps.model(), choice, core.deps.modelEnv());
      return undefined;
    } catch (error) {
      return { field, message: error instanceof Error ? error.message : String(error) };
    }
  };
  for (const [i, candidate] of request.candidates.entries()) {
    const problem = check(`candidates.${i}.model`, candidate.model);
    if (problem) return problem;
  }
  return check("judge.model", request.judge.model);
}

export function modelFor(core: StoredSession, choice: ParallelCandidate["model"]): ModelConfig {
  const session = core.config.model;
  const wanted = choice ?? session;
  if (wanted === undefined) return core.deps.model();
  try {
    return sessionModelConfig(core.deps.model(), wanted, core.deps.modelEnv());
  } catch (error) {
    throw new OperationRejected("invalid_request", (error as Error).message);
  }
}

export function labelOf(candidate: ParallelCandidate, index: number): string {
  return candidate.label ?? `Candidate ${index + 1}`;
}

/** The llm_judge's loop config (its own config id: the judge never takes a candidate's number). */
export function judgeConfigOf(
  core: StoredSession,
  judge: ParallelJudge,
  loop: Omit<AgentLoopConfig, "model">,
): AgentLoopConfig {
  const model = modelFor(core, judge.model);
  return {
    ...loop,
    model,
    thinkingLevel: "off",
    configId: `judge-${effectiveConfigId({ ...loop, model, thinkingLevel: "off" })}`,
    executionLimits: null,
  };
}

/**
 * The request's strategy. `judgeLoopId` is the llm_judge's loop id, numbered from the store with
 * the candidates' (parallel-ask.ts), so a restart or another instance never reuses it.
 */
export function strategyFor(
  core: StoredSession,
  judge: ParallelJudge,
  loop: Omit<AgentLoopConfig, "model">,
  judgeLoopId?: string,
): EvaluationStrategy {
  const name: ParallelStrategyName = judge.strategy;
  switch (name) {
    case "pick_first":
      return new PickFirstEvaluation();
    case "token_efficient":
      return new TokenEfficientEvaluation();
    case "elaborate":
      return new ElaborateEvaluation();
    case "llm_judge":
      return new LlmJudgeEvaluation({
        judgeConfig: judgeConfigOf(core, judge, loop),
        ...(judge.system_prompt !== undefined ? { systemPrompt: judge.system_prompt } : {}),
        ...(judgeLoopId !== undefined ? { loopId: judgeLoopId } : {}),
      });
    default:
      return name satisfies never;
  }
}
