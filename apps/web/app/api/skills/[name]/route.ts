import { ExtensionSwitchRequestSchema } from "@arbor/core";
import { audit } from "@/lib/server/audit";
import { HttpError, handle, json, notFound, readBody } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ name: string }> };

/**
 * Switches a skill off (no session offers it from its next turn, on every instance) or on again
 * (docs/decisions/0057); `install.configure`, checked by handle(). Answers the list as GET does.
 */
export const PATCH = handle(
  "PATCH /api/skills/{name}",
  async (request, context: Context, actor) => {
    const { name } = await context.params;
    const { enabled } = await readBody(request, ExtensionSwitchRequestSchema);
    const arbor = await getRuntime();
    if (!arbor.listSkills().skills.some((s) => s.name === name)) {
      throw new HttpError(notFound(`no skill is named ${name}`));
    }
    await arbor.switches.set("skill", name, enabled, { id: actor.id, name: actor.name });
    await audit(arbor, actor, enabled ? "skill_enabled" : "skill_disabled", `skill:${name}`);
    return json(arbor.listSkills());
  },
);
