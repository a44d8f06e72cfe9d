import { redact, redactValue } from "./secrets.js";
import { type AnyAgentTool, type ToolContext, ToolError, type ToolResult } from "./tool.js";

// Tool output leaves the tool layer redacted. The wrapper sits around the tool itself, not in the
// agent loop, so every caller gets the same scrubbed result: the loop (whose results are stored
// and sent to the model), workflows that call `execute` directly, streamed partial results and
// progress lines, and the text of a failure (a timed-out command's output travels in its error).

/** The secret values to redact: a fixed list, or a function asked at each call (a token that appears later). */
export type SecretSource = readonly string[] | (() => readonly string[]);

function secretsOf(source: SecretSource): readonly string[] {
  return typeof source === "function" ? source() : source;
}

/** The same tool, with every string it returns, streams or throws redacted. */
export function withRedactedOutput<T extends AnyAgentTool>(tool: T, secrets: SecretSource): T {
  const wrapped: AnyAgentTool = {
    name: tool.name,
    label: tool.label,
    description: tool.description,
    parameters: tool.parameters,
    ...(tool.category !== undefined ? { category: tool.category } : {}),
    ...(tool.inputSchema !== undefined ? { inputSchema: tool.inputSchema } : {}),
    ...(tool.origin !== undefined ? { origin: tool.origin } : {}),
    ...(tool.describeCall !== undefined
      ? {
          describeCall: async (params: Record<string, unknown>) => {
            const preview = await tool.describeCall?.(params);
            return preview === undefined ? undefined : redactValue(preview, secretsOf(secrets));
          },
        }
      : {}),
    async execute(params: unknown, ctx: ToolContext): Promise<ToolResult> {
      const list = secretsOf(secrets);
      if (list.length === 0) return tool.execute(params, ctx);
      const scrubbed: ToolContext = {
        ...ctx,
        onUpdate: (partial) => ctx.onUpdate(redactResult(partial, list)),
        onProgress: (text) => ctx.onProgress(redact(text, list)),
      };
      let result: ToolResult;
      try {
        result = await tool.execute(params, scrubbed);
      } catch (err) {
        throw redactError(err, list);
      }
      return redactResult(result, list);
    },
  };
  return wrapped as T;
}

export function redactResult(result: ToolResult, secrets: readonly string[]): ToolResult {
  const out: ToolResult = {
    ...result,
    content: result.content.map((part) =>
      part.type === "text" ? { ...part, text: redact(part.text, secrets) } : part,
    ),
  };
  if (result.details !== undefined) out.details = redactValue(result.details, secrets);
  return out;
}

function redactError(err: unknown, secrets: readonly string[]): ToolError {
  if (err instanceof ToolError) return new ToolError(err.kind, redact(err.message, secrets));
  const message = err instanceof Error ? err.message || err.name : String(err);
  return ToolError.failed(redact(message, secrets));
}
