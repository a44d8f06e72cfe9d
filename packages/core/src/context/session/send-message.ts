import { mcpPromptMessages } from "../../mcp/prompt-messages.js";
import { type McpResourceReader, mcpResourceBody } from "../../mcp/resource-message.js";
import { attachmentBody } from "../../model/attachments.js";
import type { AgentMessage } from "../../model/llm-messages.js";
import type { ContinuationKind } from "../../model/loop-records.js";
import type { AttachedFile, ContextMessage } from "../../model/message-types.js";
import type { ContextState } from "../../model/states.js";
import type { SessionEventBody } from "../../protocol/events.js";
import {
  MAX_TEXT_CHARS,
  type McpPromptPayload,
  type McpResourcePayload,
  type MessagePayload,
} from "../../protocol/requests.js";
import type { AnyAgentTool } from "../../tools/tool.js";
import { FILE_REFERENCE_PROCESSOR } from "../file-reference-processor.js";
import { type PipelineContext, type ProcessorTiming, runPipeline } from "../pipeline.js";
import {
  OPTIMIZATION_PROCESSOR,
  SYSTEM_PROMPT_PROCESSOR,
  TOOL_ENHANCEMENT_PROCESSOR,
} from "../pipeline-processors.js";
import { toolsForMode } from "../plan-act.js";
import { shortTitle } from "../session-title.js";
import { buildSystemPrompt } from "../system-prompt.js";
import {
  filesWorkedOn,
  readWorkspaceInstructions,
  type WorkspaceInstructions,
} from "../workspace-instructions.js";
import { HeldMoves } from "./held-moves.js";
import { RunDriver, type RunResult } from "./run-driver.js";
import { refreshExtensions, skillsPrompt, skillsSection } from "./session-extensions.js";
import {
  optimizationUpdates,
  optimizationWrite,
  optimizeActiveBranch,
} from "./session-optimization.js";
import type { StoredSession } from "./stored-session.js";
import { OperationRejected } from "./stored-session.js";
import { toAgentMessage, toAgentMessages } from "./to-agent-messages.js";
import { storeWorkflowCall, type WorkflowPayload } from "./workflows.js";

// The sendMessage flow: the processing pipeline (ProcessingUserMessage → ResolvingFileReferences →
// EnhancingSystemPrompt → OptimizingContext), the message entering the pool only once processed,
// then the agent loop run by a RunDriver. Also the workflow payload and continuing a run.

/** What the model request needs from the pipeline. */
export interface TurnSetup {
  systemPrompt: string;
  tools: AnyAgentTool[];
  /**
   * The write of the processed message, still in flight: the run starts (and its model request
   * goes out) meanwhile, and stores each of its steps after it (RunContext). Settled by `respond`.
   */
  stored?: Promise<void>;
  /** the processed message that write stores: the model's view holds it meanwhile */
  message?: ContextMessage;
  /**
   * The active branch's view the pipeline's optimization step made for this message's first
   * request (the message in it as processed): the run sends it as it is instead of optimizing
   * again (optimization runs once per request). Absent: the run optimizes before that request.
   */
  optimized?: ContextMessage[];
}

/** Validates a text/file_reference payload and builds its (unprocessed) message. */
export function messageFromPayload(core: StoredSession, payload: MessagePayload): ContextMessage {
  const now = core.nowIso();
  const base = {
    id: core.newId(),
    session_id: core.id,
    role: "user" as const,
    status: "pending" as const,
    created_at: now,
  };
  switch (payload.type) {
    case "text":
      if (payload.text.trim() === "")
        throw new OperationRejected("invalid_request", "the message is empty");
      if (payload.text.length > MAX_TEXT_CHARS) {
        throw new OperationRejected(
          "invalid_request",
          `the message is longer than ${MAX_TEXT_CHARS} characters`,
        );
      }
      return {
        ...base,
        body: {
          message_type: "text",
          text: payload.text,
          ...(payload.attachments !== undefined && payload.attachments.length > 0
            ? { attachments: payload.attachments.map((file) => attachedFile(file)) }
            : {}),
        },
      };
    case "file_reference":
      return {
        ...base,
        body: {
          message_type: "file_reference",
          path: payload.path,
          ...(payload.range ? { range: payload.range } : {}),
          ...(payload.display_text !== undefined ? { display_text: payload.display_text } : {}),
        },
      };
    case "attachment": {
      // checked by the payload schema already; checked again for callers that skip it
      const checked = attachmentBody(payload);
      if (!checked.ok) throw new OperationRejected("invalid_request", checked.message);
      return { ...base, body: checked.body };
    }
    case "mcp_resource":
    case "mcp_prompt":
    case "workflow":
      throw new OperationRejected("internal", `${payload.type} payloads are not plain messages`);
    default:
      return payload satisfies never;
  }
}

/** A file sent with a text, checked (again, for callers that skip the payload schema). */
function attachedFile(file: { name: string; mime_type: string; data: string }): AttachedFile {
  const checked = attachmentBody(file);
  if (!checked.ok) throw new OperationRejected("invalid_request", checked.message);
  const { message_type: _type, ...rest } = checked.body;
  return rest;
}

/**
 * Reads the resource an `mcp_resource` payload names and builds its (unprocessed) MCPResource
 * message; an unknown server or URI is refused (invalid_request), nothing stored.
 */
export async function mcpResourceMessage(
  core: StoredSession,
  payload: McpResourcePayload,
  signal: AbortSignal,
): Promise<ContextMessage> {
  const reader = core.deps.mcp;
  if (reader === undefined) {
    throw new OperationRejected("invalid_request", "this server has no MCP servers configured");
  }
  let read: Awaited<ReturnType<McpResourceReader["readResource"]>>;
  try {
    read = await reader.readResource(payload.server_name, payload.resource_uri, signal);
  } catch (error) {
    throw new OperationRejected("invalid_request", (error as Error).message);
  }
  return {
    id: core.newId(),
    session_id: core.id,
    role: "user",
    status: "pending",
    created_at: core.nowIso(),
    body: mcpResourceBody(read, payload, core.nowIso()),
  };
}

/**
 * Expands the prompt an `mcp_prompt` payload names (prompts/get) into its messages, each its own
 * (unprocessed) message with its role (mcp/prompt-messages.ts); an unknown server or prompt, or a
 * missing required argument, is refused (invalid_request), nothing stored. Never empty.
 */
export async function mcpPromptMessagesOf(
  core: StoredSession,
  payload: McpPromptPayload,
): Promise<ContextMessage[]> {
  const reader = core.deps.mcp;
  if (reader === undefined) {
    throw new OperationRejected("invalid_request", "this server has no MCP servers configured");
  }
  let result: Awaited<ReturnType<McpResourceReader["getPrompt"]>>;
  try {
    result = await reader.getPrompt(
      payload.server_name,
      payload.prompt_name,
      payload.arguments ?? {},
    );
  } catch (error) {
    throw new OperationRejected("invalid_request", (error as Error).message);
  }
  const now = core.nowIso();
  const messages = mcpPromptMessages(
    result,
    { server: payload.server_name, prompt: payload.prompt_name },
    now,
  ).map(
    (m): ContextMessage => ({
      id: core.newId(),
      session_id: core.id,
      role: m.role,
      status: "pending",
      created_at: now,
      body: m.body,
    }),
  );
  if (messages.length === 0) {
    throw new OperationRejected(
      "invalid_request",
      `the prompt ${payload.prompt_name} of ${payload.server_name} has no messages`,
    );
  }
  return messages;
}

/**
 * Stores `messages` as they are (complete, on the active branch) in one write, with their
 * lifecycle events; the session's state does not move. The earlier messages of a prompt.
 */
export async function storePlainMessages(
  core: StoredSession,
  messages: readonly ContextMessage[],
): Promise<void> {
  if (messages.length === 0) return;
  const now = core.nowIso();
  const complete = messages.map(
    (m): ContextMessage => ({ ...m, status: "complete", completed_at: now }),
  );
  const branchId = core.activeBranchId;
  // a new session takes its title from the first user text, as from a text message
  const title = complete.map((m) => titleFrom(core, m)).find((t): t is string => t !== undefined);
  await core.commit({
    write: {
      messages: complete,
      branch_appends: [{ branch_id: branchId, message_ids: complete.map((m) => m.id) }],
      ...(title === undefined ? {} : { session: { title } }),
    },
    events: complete.flatMap((m) => core.messageEvents(m, branchId, core.state)),
  });
}

/** The title a session still called DEFAULT_SESSION_TITLE takes from its first user text. */
export const DEFAULT_SESSION_TITLE = "New session";

/** The title to store with `message` (session-title.ts shortTitle); undefined to keep. */
export function titleFrom(core: StoredSession, message: ContextMessage): string | undefined {
  if (core.title !== DEFAULT_SESSION_TITLE || message.role !== "user") return undefined;
  if (message.body.message_type !== "text") return undefined;
  return shortTitle(message.body.text);
}

/** The tools and system prompt of a turn without running the pipeline (workflows, continuations). */
export function turnSetup(core: StoredSession): TurnSetup {
  refreshExtensions(core);
  const { config } = core;
  const branch = core.activeBranch();
  return {
    tools: toolsForMode(core.tools, config.agent_mode, core.role),
    systemPrompt: buildSystemPrompt({
      basePrompt: config.system_prompt,
      branchPrompt: branch.system_prompt,
      mode: config.agent_mode,
      role: core.role,
      tools: core.tools,
      ...(core.workspace
        ? {
            workspace: {
              path: core.workspace.root,
              instructions: instructionsFor(core)?.text ?? "",
            },
          }
        : {}),
      skills: skillsFor(core),
    }),
  };
}

/** The system prompt's skills section, when the session offers the skill tool. */
function skillsFor(core: StoredSession): string {
  const block = skillsPrompt(core, core.tools);
  return block === "" ? "" : skillsSection(block);
}

/**
 * The workspace instructions for the active branch's next request (`pending`: a message not
 * stored yet). Read afresh each time; unchanged files come from the mtime cache.
 */
export function instructionsFor(
  core: StoredSession,
  pending?: ContextMessage,
): WorkspaceInstructions | undefined {
  if (!core.workspace) return undefined;
  const messages = core.branchMessages();
  return readWorkspaceInstructions(core.workspace.root, {
    nearFiles: filesWorkedOn(pending ? [...messages, pending] : messages),
  });
}

function stateFor(processor: string, message: ContextMessage): ContextState | undefined {
  switch (processor) {
    case FILE_REFERENCE_PROCESSOR:
      return message.body.message_type === "file_reference" && !message.body.resolved
        ? { type: "ResolvingFileReferences", count: 1 }
        : undefined;
    case TOOL_ENHANCEMENT_PROCESSOR:
    case SYSTEM_PROMPT_PROCESSOR:
      return { type: "EnhancingSystemPrompt" };
    case OPTIMIZATION_PROCESSOR:
      return { type: "OptimizingContext" };
    default:
      return undefined;
  }
}

/**
 * Runs `message` through the branch's pipeline with its states, then stores it (unless `stored`:
 * an edited message that the fork already stored). Returns undefined when a processor failed:
 * the state is then back to what it was before processing, with an error event, and the message
 * is not in the pool.
 *
 * Interrupts: the store write of the message is the boundary. An interrupt that arrives while the
 * pipeline runs (the running processor finishes first, like a running tool) rolls back cleanly:
 * the state returns to what it was before processing, the message is not stored, and no error is
 * reported. Once the message is stored the interrupt is the run's: the RunDriver moves
 * Interrupting → Paused{interrupted} with the message kept, and `resume` sends it to the model.
 */
export async function processMessage(
  core: StoredSession,
  message: ContextMessage,
  options: { stored?: boolean; queued?: boolean; signal?: AbortSignal } = {},
): Promise<TurnSetup | undefined> {
  const before = core.state;
  const composed = core.deps.processors.compose(core.activeBranch().pipeline);
  if (!composed.ok) throw new OperationRejected("invalid_request", composed.error);
  const held = new HeldMoves(core);
  const refused = held.hold(
    { type: "ProcessingUserMessage" },
    { message_id: message.id, message_type: message.body.message_type },
  );
  if (refused !== undefined) throw new OperationRejected("invalid_transition", refused);
  let current = message;
  // the view the optimization step made, and the message as it was in it
  let optimized: { view: ContextMessage[]; body: ContextMessage["body"] } | undefined;
  refreshExtensions(core);
  const ctx: PipelineContext = {
    mode: core.config.agent_mode,
    role: core.role,
    tools: core.tools,
    skillsPrompt: skillsFor(core),
    ...(core.workspace ? { workspace: core.workspace } : {}),
    ...(core.workspace
      ? { workspaceInstructions: instructionsFor(core, message)?.text ?? "" }
      : {}),
    ...(core.config.system_prompt !== undefined ? { basePrompt: core.config.system_prompt } : {}),
    ...(core.activeBranch().system_prompt !== undefined
      ? { branchPrompt: core.activeBranch().system_prompt }
      : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    optimize: async () => {
      const step = await optimizeActiveBranch(core, {
        systemPrompt: ctx.systemPrompt ?? "",
        tools: ctx.turnTools ?? [],
        signal: options.signal ?? new AbortController().signal,
        ...(options.stored ? {} : { pending: current }),
      });
      optimized = { view: step.view, body: current.body };
      if (step.stored.length === 0) return;
      // the moves so far are stored first, so the optimization's update follows them
      await held.flush();
      await core.commit({
        write: optimizationWrite(step),
        events: optimizationUpdates(core, step),
      });
    },
  };
  // run one processor at a time (each has its state); the timings go on the stored message
  const timings: ProcessorTiming[] = [];
  let completedBy: string | undefined;
  for (const processor of composed.processors) {
    const state = stateFor(processor.name, current);
    if (state && state.type !== held.current.type) held.hold(state);
    const result = await runPipeline([processor], current, ctx);
    timings.push(...result.timings);
    if (options.signal?.aborted) {
      // an edited message is stored already: the run pauses with it (see above)
      if (options.stored) break;
      await rollBack(core, before, held, { interrupted: true, processor: processor.name });
      return undefined;
    }
    if (!result.ok) {
      const { error } = result;
      core.deps.logger.error("the message pipeline failed", {
        session: core.id,
        message_id: message.id,
        processor: error.processor,
        error: error.message,
        recoverable: error.recoverable,
        timings,
        ...(error.stack ? { trace: error.stack } : {}),
      });
      const code = error.processor === FILE_REFERENCE_PROCESSOR ? "file_read" : "internal";
      await rollBack(core, before, held, { processor: error.processor }, [
        core.errorEvent(code, error.message, error.recoverable),
      ]);
      return undefined;
    }
    current = result.message;
    // Conditional processor execution: `complete` means ready for the model, the rest is skipped
    if (result.completedBy !== undefined) {
      completedBy = result.completedBy;
      break;
    }
  }
  // the workspace's UserPromptSubmit hooks (docs/hooks.md): a block refuses the prompt before it
  // is stored (the person reads why, the model never sees it); context joins the prompt's text
  const hooked = await userPromptSubmit(core, current, options);
  if (hooked.type === "blocked") {
    await rollBack(core, before, held, { hook: "UserPromptSubmit" }, [
      core.errorEvent(
        "invalid_request",
        `A UserPromptSubmit hook refused the message: ${hooked.reason}`,
        true,
      ),
    ]);
    return undefined;
  }
  current = hooked.message;
  current = {
    ...current,
    meta: {
      ...current.meta,
      pipeline: {
        processors: timings.map((t) => ({
          processor: t.processor,
          ms: Math.round(t.ms * 1000) / 1000,
        })),
        ...(completedBy !== undefined ? { completed_by: completedBy } : {}),
      },
    },
  };
  for (const type of ["EnhancingSystemPrompt", "OptimizingContext"] as const) {
    if (held.current.type !== type) held.hold({ type });
  }
  if (options.stored) await held.flush();
  let inFlight: Pick<TurnSetup, "stored" | "message"> = {};
  if (!options.stored) {
    if (options.signal?.aborted) {
      await rollBack(core, before, held, { interrupted: true });
      return undefined;
    }
    const now = core.nowIso();
    const processed: ContextMessage = { ...current, status: "complete", completed_at: now };
    const branchId = core.activeBranchId;
    const title = titleFrom(core, processed);
    // the processing states and the message land in ONE write (see HeldMoves), which the
    // model request does not wait for (TurnSetup.stored)
    const after = held.current;
    const moves = held.take();
    const stored = core
      .commit({
        states: moves.states,
        write: {
          // a queued message (message-queue.ts) is in the pool already: it only joins the branch
          ...(options.queued
            ? {
                message_updates: [
                  { id: processed.id, status: "complete" as const, completed_at: now },
                ],
              }
            : { messages: [processed] }),
          branch_appends: [{ branch_id: branchId, message_ids: [processed.id] }],
          ...(title === undefined ? {} : { session: { title } }),
        },
        events: [...moves.events, ...core.messageEvents(processed, branchId, after)],
      })
      .then(() => undefined);
    // handled where it is awaited (the run); this keeps an early return from leaving it unhandled
    stored.catch(() => undefined);
    inFlight = { stored, message: processed };
  }
  // a pipeline without the prompt or tool steps: the turn's own (computed only then)
  const fallback =
    ctx.systemPrompt === undefined || ctx.turnTools === undefined ? turnSetup(core) : undefined;
  const final = inFlight.message ?? current;
  return {
    systemPrompt: ctx.systemPrompt ?? fallback?.systemPrompt ?? "",
    tools: ctx.turnTools ?? fallback?.tools ?? [],
    ...inFlight,
    // the optimized view holds the message as it is sent, unless a hook changed its text since
    ...(optimized !== undefined && optimized.body === final.body
      ? { optimized: optimized.view.map((m) => (m.id === final.id ? final : m)) }
      : {}),
  };
}

/** The UserPromptSubmit hooks' verdict on a new text message (an edit was judged when sent). */
async function userPromptSubmit(
  core: StoredSession,
  message: ContextMessage,
  options: { stored?: boolean; signal?: AbortSignal },
): Promise<{ type: "blocked"; reason: string } | { type: "go"; message: ContextMessage }> {
  const hooks = core.deps.commandHooks?.(core.config);
  if (hooks === undefined || options.stored || message.body.message_type !== "text") {
    return { type: "go", message };
  }
  const verdict = await hooks.userPromptSubmit(
    {
      session_id: core.id,
      permission_mode: core.config.agent_mode === "plan" ? "plan" : "default",
    },
    message.body.text,
    options.signal,
  );
  if (verdict.block !== undefined) return { type: "blocked", reason: verdict.block };
  if (verdict.context === undefined) return { type: "go", message };
  const text = `${message.body.text}\n\n<user-prompt-submit-hook>\n${verdict.context}\n</user-prompt-submit-hook>`;
  return { type: "go", message: { ...message, body: { ...message.body, text } } };
}

/**
 * Back to the state before processing (the table's way when it allows it, a reset otherwise).
 * An interrupt rolls back the same way as a failing processor, without an error event: being
 * interrupted is not a failure, and the context_update says `interrupted: true`.
 */
async function rollBack(
  core: StoredSession,
  before: ContextState,
  held: HeldMoves,
  metadata: Record<string, unknown>,
  errors: SessionEventBody[] = [],
): Promise<void> {
  const previous = held.current;
  const moves = held.take();
  const chain = [...moves.states, before];
  const back = core.checkChain(chain) === undefined ? { states: chain } : { reset: before };
  await core.commit({
    ...back,
    events: [
      ...moves.events,
      core.contextUpdateEvent(before, previous, undefined, { rolled_back: true, ...metadata }),
      ...errors,
    ],
  });
}

/**
 * How a run answering a stored prompt continues an earlier loop (REQ-180): regenerate is a
 * `rerun` of the loop that answered the prompt, edit & resend a `branch` off the loop that
 * answered the edited message. The prompt is in the history already (the fork stored it), so the
 * run is a continuation of it, not a new origin call.
 */
export interface PromptContinuation {
  kind: ContinuationKind;
  /** absent when no loop answered there (an imported conversation) */
  parentLoopId?: string;
}

/** Runs the agent loop for the active branch: with `prompt` as a new message, or continuing. */
export async function respond(
  core: StoredSession,
  setup: TurnSetup,
  options: { prompt?: ContextMessage; signal?: AbortSignal; continuation?: PromptContinuation },
): Promise<RunResult> {
  const branch = core.branchMessages();
  let prompts: AgentMessage[] | undefined;
  let history: AgentMessage[];
  if (options.continuation) {
    history = toAgentMessages(branch);
  } else if (options.prompt) {
    const converted = toAgentMessage(options.prompt);
    prompts = converted ? [converted] : [];
    history = toAgentMessages(branch.filter((m) => m.id !== options.prompt?.id));
  } else {
    history = toAgentMessages(branch);
    const last = history.at(-1);
    const continuable =
      last !== undefined &&
      (last.role !== "assistant" || last.content.some((b) => b.type === "toolCall"));
    if (!continuable)
      throw new OperationRejected("invalid_request", "there is nothing to continue");
  }
  // a continuation is a child of the loop that stopped (it wrote the last assistant row)
  const parentLoopId =
    options.continuation !== undefined
      ? options.continuation.parentLoopId
      : prompts === undefined
        ? lastLoopId(branch)
        : undefined;
  const { stored, message } = setup;
  // the first request's view, optimized while the message was processed (TurnSetup.optimized)
  let prepared = setup.optimized;
  const stop = await new RunDriver(core).run({
    ...(prompts !== undefined ? { prompts } : {}),
    ...(parentLoopId !== undefined ? { parentLoopId } : {}),
    ...(options.continuation !== undefined ? { continuationKind: options.continuation.kind } : {}),
    ...(stored !== undefined ? { stored } : {}),
    ...(options.prompt ? { promptId: options.prompt.id } : {}),
    history,
    systemPrompt: setup.systemPrompt,
    tools: setup.tools,
    ...(options.signal ? { signal: options.signal } : {}),
    view: async (signal, steered) => {
      // prepared before the run began: it holds no message the run steered in at its start
      const ready = steered ? undefined : prepared;
      prepared = undefined;
      if (ready !== undefined) return toAgentMessages(ready);
      // the prompt may still be on its way into the pool (TurnSetup.stored)
      const pooled = message === undefined ? undefined : core.pool.get(message.id);
      const pending =
        message !== undefined && (pooled === undefined || pooled.status === "queued")
          ? message
          : undefined;
      const step = await optimizeActiveBranch(core, {
        systemPrompt: setup.systemPrompt,
        tools: setup.tools,
        signal,
        ...(pending ? { pending } : {}),
      });
      if (step.stored.length > 0) {
        // after the message: an optimization's update follows it
        await stored;
        await core.commit({
          write: optimizationWrite(step),
          events: optimizationUpdates(core, step),
        });
      }
      return toAgentMessages(step.view);
    },
  });
  return { type: "ran", stop };
}

/**
 * The loop that answered `messageId` on a branch: the first loop to write a row after it, before
 * the next user message; undefined when none did.
 */
export function answeringLoopId(
  messages: readonly ContextMessage[],
  messageId: string,
): string | undefined {
  const index = messages.findIndex((m) => m.id === messageId);
  if (index < 0) return undefined;
  for (const message of messages.slice(index + 1)) {
    if (message.role === "user") return undefined;
    if (message.meta?.loop_id) return message.meta.loop_id;
  }
  return undefined;
}

/** The loop that wrote the rows since the last user message; undefined when there is none. */
function lastLoopId(messages: readonly ContextMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.meta?.loop_id) return message.meta.loop_id;
    // an earlier conversation's loop is not the parent of a run that starts after a new prompt
    if (message?.role === "user") return undefined;
  }
  return undefined;
}

/**
 * A workflow payload: the user's own tool call, through the same gate as the model's
 * (workflows.ts, docs/decisions/0008). Its call is stored with the policy's approval, then the
 * loop continues from it: a pending call ends the operation in AwaitingToolApproval; an approved
 * one runs and the model continues from its result. Refused (nothing stored) when the tool is not
 * offered in this mode, unknown, or given parameters its schema rejects.
 */
export async function runWorkflow(
  core: StoredSession,
  payload: WorkflowPayload,
  signal: AbortSignal,
  extra: Pick<ContextMessage, "client_metadata"> = {},
): Promise<RunResult> {
  const setup = turnSetup(core);
  await storeWorkflowCall(core, payload, setup.tools, extra);
  return respond(core, setup, { signal });
}
