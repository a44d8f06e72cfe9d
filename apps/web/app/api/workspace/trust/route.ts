import {
  RevokeTrustRequestSchema,
  TrustDefinitionRequestSchema,
  type WorkspaceTrustResponse,
} from "@arbor/core";
import { conflict, HttpError, handle, json, notFound, readBody } from "@/lib/server/http";
import { getRuntime, type Runtime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// The workspace's executable configuration and the trust given to it (docs/security.md,
// "Workspace trust"): nothing of mcp_servers.json, .mcp.json or .arbor/openapi.json starts, is
// read or is fetched until a person trusts that definition as it is now.

/** Rereads the files first: the answer shows them as they are now, not as last watched. */
async function current(arbor: Runtime): Promise<WorkspaceTrustResponse> {
  await Promise.all([arbor.mcp.reload(), arbor.openapi.reviewTrust()]);
  return {
    workspace: arbor.workspace,
    trust_all: arbor.trust.trustAll,
    definitions: arbor.trustDefinitions(),
  };
}

/** Every definition, what it would do, and whether it is trusted. */
export const GET = handle("GET /api/workspace/trust", async () => {
  return json(await current(await getRuntime()));
});

/** Trusts one definition as it is now: its server starts, its spec is read. */
export const POST = handle("POST /api/workspace/trust", async (request) => {
  const body = await readBody(request, TrustDefinitionRequestSchema);
  const arbor = await getRuntime();
  const { definitions } = await current(arbor);
  const definition = definitions.find((d) => d.file === body.file && d.name === body.name);
  if (definition === undefined) {
    throw new HttpError(notFound(`${body.file} defines nothing named ${body.name}`));
  }
  if (definition.hash !== body.hash) {
    throw new HttpError(
      conflict(
        `${body.name} of ${body.file} changed since it was shown (hash ${definition.hash.slice(0, 12)}…): look at it again before trusting it`,
      ),
    );
  }
  const { status: _status, trusted_by: _by, trusted_at: _at, ...trusted } = definition;
  // no people yet: whoever holds the install token (or its cookie) is the owner
  await arbor.trust.trust(trusted, "owner");
  arbor.logger.info("workspace definition trusted", {
    file: definition.file,
    name: definition.name,
    hash: definition.hash,
  });
  // the trust's listeners start the server / read the spec; answer once the files are reread
  return json(await current(arbor));
});

/** Takes the trust back: the server stops, the spec's tools go away. */
export const DELETE = handle("DELETE /api/workspace/trust", async (request) => {
  const body = await readBody(request, RevokeTrustRequestSchema);
  const arbor = await getRuntime();
  if (arbor.trust.record(body) === undefined) {
    throw new HttpError(notFound(`no trust is recorded for ${body.name} of ${body.file}`));
  }
  await arbor.trust.revoke(body);
  arbor.logger.info("workspace definition trust revoked", { file: body.file, name: body.name });
  return json(await current(arbor));
});
