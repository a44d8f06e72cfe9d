import { handle, json } from "@/lib/server/http";
import { sharedBranch } from "@/lib/server/people/sharing";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ token: string }> };

/** The linked branch, read-only and live; 404 when the link is unknown, revoked or expired. */
export const GET = handle("GET /api/links/{token}", async (_request, context: Context) => {
  const { token } = await context.params;
  return json(await sharedBranch(await getRuntime(), token));
});
