import type { z } from "zod";
import {
  ContentDeltaSchema,
  ContentFinalSchema,
  ContextUpdateSchema,
  ErrorEventSchema,
  FoldBudgetWarningSchema,
  FoldReturnedSchema,
  FoldStartedSchema,
  FoldToolSchema,
  type SessionEventName,
  SubAgentUpdateSchema,
  ToolProgressSchema,
} from "./events.js";
import { PARALLEL_EVENT_SCHEMAS } from "./parallel.js";

/**
 * Every session event's payload schema, with what it means (docs/protocol.md): a Record, so a new
 * event name must be added here. Stored events are read back through it (stored-events.ts).
 */
export const SESSION_EVENT_SCHEMAS: Record<SessionEventName, { schema: z.ZodType; about: string }> =
  {
    context_update: {
      schema: ContextUpdateSchema,
      about:
        "Every state transition and message lifecycle step. Carries state and metadata only, never message text. A message's lifecycle: `created`, `status_changed` on each change of status, `completed` once it is final and complete. A stored message gets `created` and then `completed` (or its `status_changed`). A streamed answer is announced when its stream begins, before its first `content_delta`: `created` (message_type `text`, on the active branch, so a client can place its card) and `status_changed` to `streaming`; when it is stored, `status_changed` to its final status and, when complete, `completed`. An answer that calls tools is stored as `tool_request` under the same id; an announced attempt that is not kept (retried, or failed before any content) ends with `status_changed` to `failed`.",
    },
    content_delta: {
      schema: ContentDeltaSchema,
      about: "One chunk of a streaming assistant message.",
    },
    content_final: {
      schema: ContentFinalSchema,
      about: "The end of a streaming assistant message.",
    },
    error: {
      schema: ErrorEventSchema,
      about: "A failure during the operation, with whether the session can recover from it.",
    },
    fold_started: {
      schema: FoldStartedSchema,
      about: "A fold started: a `branch` call's child loop, working in its own context and budget.",
    },
    fold_budget_warning: {
      schema: FoldBudgetWarningSchema,
      about: "A fold used 80% of its budget; its next model request is told to finish and return.",
    },
    fold_returned: {
      schema: FoldReturnedSchema,
      about:
        "A fold returned, normally or forced (with the reason), with its tokens used and the scrubbed message its parent received.",
    },
    fold_tool: {
      schema: FoldToolSchema,
      about:
        "A tool call inside a fold that the session's approval policy holds for a person: `pending_approval` while it waits (the fold waits with it; its timeout is paused), then `approved` or `denied` once POST `/approvals` decides it (that request's stream carries the decision's event; `remember` adds the tool to the white list), or `denied` with `cancelled: true` when the fold ended while it waited (interrupt, budget). The approval is stored on the fold's tool_request too.",
    },
    tool_progress: {
      schema: ToolProgressSchema,
      about:
        "A running tool reported progress (an MCP server's `notifications/progress`, the bash tool's output lines); the tool card shows the latest message until the call's result arrives. While one is being stored, newer ones of the same call replace each other, so a fast tool does not flood the log.",
    },
    ...PARALLEL_EVENT_SCHEMAS,
    subagent_update: {
      schema: SubAgentUpdateSchema,
      about:
        "A sub-agent call's child loop: `started`, its streamed `text` and `progress` (its own tool calls), then `ended` with its status, turns and usage. The call's final text arrives as its tool_result message; the child loop appears under its parent in the admin loop tree.",
    },
  };
