import { z } from "zod";
import { strictRequest } from "./strict.js";

// Provider keys an admin keeps in Settings › Model providers (issue #27, docs/decisions/0054):
// GET /api/settings/provider-keys, PUT and DELETE /api/settings/provider-keys/{provider}. A key is
// sent once, in a PUT body; no answer, event or log ever carries it again: the list shows a hint
// (its last four characters), who set it and when.

/** The providers whose key can be kept in Settings, each standing for one variable (llm/provider-keys.ts). */
export const KEY_PROVIDERS = [
  "anthropic",
  "openai",
  "google",
  "azure",
  "vertex",
  "bedrock",
] as const;
export type KeyProvider = (typeof KEY_PROVIDERS)[number];

export const KeyProviderSchema = z
  .enum(KEY_PROVIDERS)
  .describe("the provider: anthropic, openai, google, azure, vertex or bedrock");

export const ProviderKeySourceSchema = z
  .enum(["settings", "environment", "none"])
  .describe(
    "the key in force: `settings` (kept here; it wins over the variable), `environment` (the variable), `none`",
  );
export type ProviderKeySource = z.infer<typeof ProviderKeySourceSchema>;

export const ProviderKeyViewSchema = z
  .object({
    provider: KeyProviderSchema,
    label: z.string().describe("the provider's name as people know it"),
    variable: z.string().describe("the environment variable the key stands for"),
    source: ProviderKeySourceSchema,
    environment: z
      .boolean()
      .describe(
        "whether the server's environment sets the variable (in force unless a key is kept here)",
      ),
    hint: z
      .string()
      .nullable()
      .describe("the kept key's last four characters (`…abcd`); null when none is kept"),
    set_by: z
      .object({ id: z.string(), name: z.string() })
      .nullable()
      .describe("who kept the key; null when none is kept"),
    set_at: z.string().nullable().describe("when, ISO 8601 UTC; null when none is kept"),
    problem: z
      .string()
      .optional()
      .describe(
        "present when a key is kept but does not open on this instance (another key file: instances must share it)",
      ),
    needs: z
      .array(z.string())
      .describe("other variables the provider needs besides its key (set in the environment)"),
  })
  .describe("One provider's key: where the key in force comes from, never the key.");
export type ProviderKeyView = z.infer<typeof ProviderKeyViewSchema>;

export const ProviderKeysResponseSchema = z
  .object({
    providers: z.array(ProviderKeyViewSchema),
    model: z
      .object({ name: z.string(), protocol: z.string() })
      .describe("the model a session without one of its own uses now"),
  })
  .describe("Answer of GET /api/settings/provider-keys and of its PUT and DELETE.");
export type ProviderKeysResponse = z.infer<typeof ProviderKeysResponseSchema>;

export const PutProviderKeyRequestSchema = strictRequest(
  z
    .object({
      key: z
        .string()
        .trim()
        .min(8, "a provider key has at least 8 characters")
        .max(4096)
        .regex(/^[\x21-\x7e]+$/, "a provider key is printable ASCII with no spaces or line breaks")
        .describe("the key, sent once: never answered, logged or shown again"),
    })
    .strict()
    .describe("Body of PUT /api/settings/provider-keys/{provider}."),
);
export type PutProviderKeyRequest = z.infer<typeof PutProviderKeyRequestSchema>;
