import { RevokeTrustRequestSchema, TrustDefinitionRequestSchema } from "@arbor/core";
import { conflict, HttpError, handle, json, notFound, readBody } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// The workspace's executable configuration and the trust given to it (docs/security.md,
// "Workspace trust"): nothing of mcp_servers.json, .mcp.json or .arbor/openapi.json starts, is
// read or is fetched until a person trusts that definition as it is now.

/** Every definition, what it would do, and whether it is trusted. */
export const GET = handle("GET /api/workspace/trust", async () => {
  const arbor = await getRuntime();
  return json(await arbor.workspaceTrust());
});

/** Trusts one definition as it is now: its server starts, its spec is read. */
export const POST = handle("POST /api/workspace/trust", async (request, _context, actor) => {
  const body = await readBody(request, TrustDefinitionRequestSchema);
  const arbor = await getRuntime();
  // the trust names the person who gave it (shown in the session settings' list)
  const answer = await arbor.trustDefinition(body, actor.name);
  if (answer === "not_found") {
    throw new HttpError(notFound(`${body.file} defines nothing named ${body.name}`));
  }
  if (answer === "changed") {
    throw new HttpError(
      conflict(
        `${body.name} of ${body.file} changed since it was shown: look at it again before trusting it`,
      ),
    );
  }
  return json(answer);
});

/** Takes the trust back: the server stops, the spec's tools go away. */
export const DELETE = handle("DELETE /api/workspace/trust", async (request) => {
  const body = await readBody(request, RevokeTrustRequestSchema);
  const arbor = await getRuntime();
  const answer = await arbor.revokeTrust(body);
  if (answer === "not_found") {
    throw new HttpError(notFound(`no trust is recorded for ${body.name} of ${body.file}`));
  }
  return json(answer);
});
