import { ExtensionSwitchRequestSchema } from "@arbor/core";
import { audit } from "@/lib/server/audit";
import { HttpError, handle, json, notFound, readBody } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ name: string }> };

/**
 * Switches a sub-agent off (no session can start it from its next turn, on every instance) or on again
 * (docs/decisions/0057); `install.configure`, checked by handle(). Answers the list as GET does.
 */
export const PATCH = handle(
  "PATCH /api/agents/{name}",
  async (request, context: Context, actor) => {
    const { name } = await context.params;
    const { enabled } = await readBody(request, ExtensionSwitchRequestSchema);
    const arbor = await getRuntime();
    if (!arbor.listAgents().agents.some((s) => s.name === name)) {
      throw new HttpError(notFound(`no sub-agent is named ${name}`));
    }
    await arbor.switches.set("agent", name, enabled, { id: actor.id, name: actor.name });
    await audit(arbor, actor, enabled ? "agent_enabled" : "agent_disabled", `agent:${name}`);
    return json(arbor.listAgents());
  },
);
