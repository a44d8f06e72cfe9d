import { SearchQuerySchema } from "@arbor/core";
import { handle, json, validate } from "@/lib/server/http";
import { visibleSessions } from "@/lib/server/people/access";
import { searchResponse } from "@/lib/server/results";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Full-text search over every session's messages: ?q=words&limit=N (default 50). */
export const GET = handle("GET /api/search", async (request, _context, actor) => {
  const params = new URL(request.url).searchParams;
  const query = validate(SearchQuerySchema, {
    ...(params.has("q") ? { q: params.get("q") } : {}),
    ...(params.get("limit") ? { limit: params.get("limit") } : {}),
  });
  const arbor = await getRuntime();
  const visible = new Set(
    (await visibleSessions(arbor, actor, await arbor.manager.list())).map((s) => s.id),
  );
  const hits = await arbor.manager.search(query.q, query.limit, (id) => visible.has(id));
  return json(searchResponse(query.q, hits));
});
