import { handle, json } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The skills the workspace's sessions use (read now), with malformed SKILL.md files and why. */
export const GET = handle("GET /api/skills", async () => {
  const { listSkills } = await getRuntime();
  return json(listSkills());
});
