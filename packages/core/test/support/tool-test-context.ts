import type { ToolContext, ToolResult } from "../../src/tools/tool.js";

/** A ToolContext for exercising tools outside the agent loop, recording what they emit. */
export interface RecordingToolContext extends ToolContext {
  readonly updates: ToolResult[];
  readonly progress: string[];
  readonly controller: AbortController;
}

export function createRecordingContext(toolName = "tool"): RecordingToolContext {
  const controller = new AbortController();
  const updates: ToolResult[] = [];
  const progress: string[] = [];
  return {
    toolCallId: "call-1",
    toolName,
    signal: controller.signal,
    controller,
    updates,
    progress,
    onUpdate: (partial) => updates.push(partial),
    onProgress: (text) => progress.push(text),
  };
}
