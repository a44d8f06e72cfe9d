import type { ProviderKeysResponse } from "@arbor/core";
import { handle, json } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// Settings › Model providers (docs/decisions/0054): `install.configure` (the owner and admins),
// checked by handle(). The answer names where each key in force comes from; never a key.

/** Each provider's key: its source (Settings, the environment, none) and, when kept, its hint. */
export const GET = handle("GET /api/settings/provider-keys", async () => {
  const arbor = await getRuntime();
  await arbor.providerKeys.refresh();
  const body: ProviderKeysResponse = arbor.providerKeys.view();
  return json(body);
});
