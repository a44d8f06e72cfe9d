import { type ConfigResponse, PatchConfigRequestSchema } from "@arbor/core";
import { audit } from "@/lib/server/audit";
import { handle, json, loadSession, readBody, resultOf } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

export const PATCH = handle(
  "PATCH /api/sessions/{id}/config",
  async (request, context: Context, actor) => {
    const { id } = await context.params;
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    const patch = await readBody(request, PatchConfigRequestSchema);
    const config = await resultOf(arbor, session.updateConfig(patch), patch);
    await audit(arbor, actor, "session_config_changed", `session:${id}`, {
      fields: Object.keys(patch).sort(),
    });
    const body: ConfigResponse = { config };
    return json(body);
  },
);
