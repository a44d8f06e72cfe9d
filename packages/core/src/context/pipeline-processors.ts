import type { MessageProcessor } from "./pipeline.js";
import { toolsForMode } from "./plan-act.js";
import { buildSystemPrompt } from "./system-prompt.js";

// The pipeline's context-building processors. They leave the message as it is and record what
// the model request needs in the PipelineContext: the turn's tools, the system prompt, and the
// optimized view (through the session's `optimize` seam).

export const TOOL_ENHANCEMENT_PROCESSOR = "tool_enhancement";
export const SYSTEM_PROMPT_PROCESSOR = "system_prompt";
export const OPTIMIZATION_PROCESSOR = "optimization";

/** Records in `ctx.turnTools` the tools for this turn, filtered by mode and role. */
export const toolEnhancementProcessor: MessageProcessor = {
  name: TOOL_ENHANCEMENT_PROCESSOR,
  async process(message, ctx) {
    ctx.turnTools = toolsForMode(ctx.tools, ctx.mode, ctx.role);
    return { kind: "continue", message };
  },
};

/**
 * Builds the system prompt into `ctx.systemPrompt` from the turn's tools (or, when no
 * tool_enhancement ran before it, from all tools; buildSystemPrompt filters them the same way).
 */
export const systemPromptProcessor: MessageProcessor = {
  name: SYSTEM_PROMPT_PROCESSOR,
  async process(message, ctx) {
    ctx.systemPrompt = buildSystemPrompt({
      basePrompt: ctx.basePrompt,
      branchPrompt: ctx.branchPrompt,
      mode: ctx.mode,
      role: ctx.role,
      tools: ctx.turnTools ?? ctx.tools,
      workspace: ctx.workspace
        ? { path: ctx.workspace.root, instructions: ctx.workspaceInstructions }
        : undefined,
      examples: ctx.examples,
      skills: ctx.skillsPrompt,
    });
    return { kind: "continue", message };
  },
};

/**
 * A seam: the optimization strategy is the session's (`ctx.optimize`); absent → nothing to do.
 * It completes the pipeline ("Conditional processor execution"): the view it optimized was
 * measured with the message as it is now, so a processor listed after it (which could grow the
 * message past the budget it just met) is skipped. Put such processors before it.
 */
export const optimizationProcessor: MessageProcessor = {
  name: OPTIMIZATION_PROCESSOR,
  async process(message, ctx) {
    await ctx.optimize?.();
    return { kind: "complete", message };
  },
};
