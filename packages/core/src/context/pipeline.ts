import type { ContextMessage } from "../model/message-types.js";
import type { AgentMode, AgentRole } from "../model/session-config.js";
import type { AnyAgentTool } from "../tools/tool.js";
import type { Workspace } from "../tools/workspace.js";

// The message processing pipeline (context-manager "Message Processing Pipeline"). A message
// passes through an ordered list of processors before it enters the pool and before the model
// sees it. Processors are small and independent; a branch picks its own list by name (see
// processor-registry.ts). Contract with the caller (the Session): when `runPipeline` returns
// ok: false, the message must NOT go into the pool and the session returns to the state it had
// before processing.

/**
 * What processors read and write for one message. The inputs are fixed when the Session builds
 * the context for this message (so a mode switch applies to the next message at once); the
 * outputs are filled by the processors that own them.
 */
export interface PipelineContext {
  readonly mode: AgentMode;
  readonly role: AgentRole;
  /** every tool the session has; tool_enhancement filters them for the turn */
  readonly tools: readonly AnyAgentTool[];
  /** file references resolve inside it; without one they are refused */
  readonly workspace?: Workspace;
  /** workspace-specific instructions for the system prompt */
  readonly workspaceInstructions?: string;
  /** the session's base prompt and the current branch's override */
  readonly basePrompt?: string;
  readonly branchPrompt?: string;
  /** the skills section of the system prompt ("" or absent: none) */
  readonly skillsPrompt?: string;
  /** tool usage examples for the prompt, by tool name */
  readonly examples?: Readonly<Record<string, readonly string[]>>;
  /** the optimization seam: the session's strategy, run by the `optimization` processor */
  readonly optimize?: () => Promise<void>;
  /** checked between processors */
  readonly signal?: AbortSignal;
  /** output of tool_enhancement: the tools the model gets for this turn */
  turnTools?: AnyAgentTool[];
  /** output of system_prompt */
  systemPrompt?: string;
}

/**
 * continue: hand the (possibly new) message to the next processor.
 * complete: the message is ready for the model; the remaining processors are skipped.
 * Processors never mutate the message they get: they return a new object.
 */
export type ProcessResult =
  | { kind: "continue"; message: ContextMessage }
  | { kind: "complete"; message: ContextMessage };

export interface MessageProcessor {
  readonly name: string;
  /** Throws ProcessorError on failure (any other error is treated as not recoverable). */
  process(message: ContextMessage, ctx: PipelineContext): Promise<ProcessResult>;
}

/**
 * A processor's failure. `recoverable` means the same message may succeed when tried again
 * (e.g. the file appears, an I/O hiccup passes); false means it never can as it stands (a path
 * outside the workspace, no workspace configured).
 */
export class ProcessorError extends Error {
  readonly processor: string;
  readonly recoverable: boolean;
  constructor(
    processor: string,
    message: string,
    options: { recoverable?: boolean; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "ProcessorError";
    this.processor = processor;
    this.recoverable = options.recoverable ?? false;
  }
}

export interface ProcessorTiming {
  processor: string;
  ms: number;
}

export interface PipelineFailure {
  processor: string;
  message: string;
  recoverable: boolean;
  /** the thrown error's stack, for the server's log (never sent to clients) */
  stack?: string;
}

export type PipelineResult =
  | {
      ok: true;
      message: ContextMessage;
      /** one entry per processor that ran, in order */
      timings: ProcessorTiming[];
      /** the processor that returned `complete`, if one did */
      completedBy?: string;
    }
  | { ok: false; error: PipelineFailure; timings: ProcessorTiming[] };

/**
 * Runs `processors` in order over `message`. Stops at the first `complete` or the first failure;
 * the failing processor's time is included in `timings`. Never throws: errors are returned.
 */
export async function runPipeline(
  processors: readonly MessageProcessor[],
  message: ContextMessage,
  ctx: PipelineContext,
): Promise<PipelineResult> {
  const timings: ProcessorTiming[] = [];
  let current = message;
  for (const processor of processors) {
    if (ctx.signal?.aborted) {
      return {
        ok: false,
        error: { processor: processor.name, message: "processing cancelled", recoverable: true },
        timings,
      };
    }
    const started = performance.now();
    let result: ProcessResult;
    try {
      result = await processor.process(current, ctx);
    } catch (err) {
      timings.push({ processor: processor.name, ms: performance.now() - started });
      return { ok: false, error: toFailure(processor.name, err), timings };
    }
    timings.push({ processor: processor.name, ms: performance.now() - started });
    current = result.message;
    switch (result.kind) {
      case "continue":
        break;
      case "complete":
        return { ok: true, message: current, timings, completedBy: processor.name };
      default:
        return result satisfies never;
    }
  }
  return { ok: true, message: current, timings };
}

function toFailure(processor: string, err: unknown): PipelineFailure {
  const stack = err instanceof Error && err.stack ? { stack: err.stack } : {};
  if (err instanceof ProcessorError) {
    return {
      processor: err.processor,
      message: err.message,
      recoverable: err.recoverable,
      ...stack,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { processor, message, recoverable: false, ...stack };
}
