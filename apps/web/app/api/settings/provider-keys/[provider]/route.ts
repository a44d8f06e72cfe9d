import {
  KeyProviderSchema,
  type ProviderKeysResponse,
  PutProviderKeyRequestSchema,
} from "@arbor/core";
import { audit } from "@/lib/server/audit";
import {
  badRequest,
  conflict,
  HttpError,
  handle,
  json,
  notFound,
  readBody,
  readNoBody,
} from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// A provider's key kept in Settings (docs/decisions/0054): `install.configure`, checked by
// handle(). The key is sealed into the database and used by the next model request of every
// instance; the answer is the list as GET gives it, with the hint in place of the key.

type Context = { params: Promise<{ provider: string }> };

/** The provider named in the URL; an unknown one is a 400 naming `provider`. */
async function providerOf(context: Context) {
  const { provider } = await context.params;
  const parsed = KeyProviderSchema.safeParse(provider);
  if (!parsed.success) {
    const message = parsed.error.issues[0]?.message ?? "unknown provider";
    throw new HttpError(badRequest([{ field: "provider", message }]));
  }
  return parsed.data;
}

/** Keeps (or replaces) the provider's key. */
export const PUT = handle(
  "PUT /api/settings/provider-keys/{provider}",
  async (request, context: Context, actor) => {
    const provider = await providerOf(context);
    const { key } = await readBody(request, PutProviderKeyRequestSchema);
    const arbor = await getRuntime();
    await arbor.providerKeys.set(provider, key, { id: actor.id, name: actor.name });
    const body: ProviderKeysResponse = arbor.providerKeys.view();
    const hint = body.providers.find((p) => p.provider === provider)?.hint ?? null;
    await audit(arbor, actor, "provider_key_set", `provider_key:${provider}`, { hint });
    arbor.logger.info("provider key kept", { provider, hint, by: actor.id });
    return json(body);
  },
);

/** Forgets the provider's kept key: the environment's variable, if set, is in force after. */
export const DELETE = handle(
  "DELETE /api/settings/provider-keys/{provider}",
  async (request, context: Context, actor) => {
    const provider = await providerOf(context);
    await readNoBody(request);
    const arbor = await getRuntime();
    const outcome = await arbor.providerKeys.remove(provider);
    if (outcome === "not_found") return notFound(`no ${provider} key is kept in Settings`);
    if (typeof outcome === "object") return conflict(outcome.refused);
    await audit(arbor, actor, "provider_key_removed", `provider_key:${provider}`);
    arbor.logger.info("provider key removed", { provider, by: actor.id });
    const body: ProviderKeysResponse = arbor.providerKeys.view();
    return json(body);
  },
);
