import { handle, json } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The sub-agents of the workspace's agent files (read now), with malformed files and why. */
export const GET = handle("GET /api/agents", async () => {
  const { listAgents } = await getRuntime();
  return json(listAgents());
});
