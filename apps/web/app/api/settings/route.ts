import type { SettingsResponse } from "@arbor/core";
import { handle, json } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** How tools run here: bash's sandbox, and the names of the variables tool processes get. */
export const GET = handle("GET /api/settings", async () => {
  const arbor = await getRuntime();
  const settings: SettingsResponse = arbor.settings;
  return json(settings);
});
