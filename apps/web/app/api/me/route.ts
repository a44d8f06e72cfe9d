import { handle, json } from "@/lib/server/http";
import { meWire } from "@/lib/server/people/wire";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The person asking: who, which role, how they proved it, how they can sign in. */
export const GET = handle("GET /api/me", async (_request, _context, actor) => {
  return json(await meWire(await getRuntime(), actor));
});
