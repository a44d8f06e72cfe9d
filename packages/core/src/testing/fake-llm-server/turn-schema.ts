import { z } from "zod";
import type { ScriptedTurn } from "../script.js";

// Turns arriving over HTTP (POST /__fake/script) or from a CLI script file are parsed here, so a
// malformed script fails loudly at the boundary instead of producing a confusing stream later.

const BlockSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({
    type: z.literal("thinking"),
    thinking: z.string(),
    signature: z.string().optional(),
  }),
  z.object({
    type: z.literal("toolCall"),
    id: z.string().optional(),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
  }),
]);

const count = z.number().int().nonnegative();

export const ScriptedTurnSchema = z.object({
  blocks: z.array(BlockSchema).optional(),
  stopReason: z.enum(["stop", "length", "toolUse"]).optional(),
  usage: z
    .object({
      input: count.optional(),
      output: count.optional(),
      cacheRead: count.optional(),
      cacheWrite: count.optional(),
    })
    .optional(),
  chunkSize: z.number().int().positive().optional(),
  chunkDelayMs: z.number().nonnegative().optional(),
  firstChunkDelayMs: z.number().nonnegative().optional(),
  error: z
    .object({
      status: z.number().int().min(100).max(599),
      message: z.string().optional(),
      body: z.string().optional(),
      headers: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  interruptAfterChunks: count.optional(),
  holdAfterChunks: count.optional(),
  model: z.string().optional(),
}) satisfies z.ZodType<ScriptedTurn>;

/** The body of POST /__fake/script, and the shape of a CLI script file. */
export const ScriptFileSchema = z.object({ turns: z.array(ScriptedTurnSchema) });

/** The body of POST /__fake/context-window: the window in tokens, or null for none. */
export const ContextWindowSchema = z.object({ tokens: z.number().int().positive().nullable() });
