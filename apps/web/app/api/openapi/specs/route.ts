import type { OpenApiSpecsResponse } from "@arbor/core";
import { handle, json } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The OpenAPI specs of .arbor/openapi.json: state, error, credential variable, tools. */
export const GET = handle("GET /api/openapi/specs", async () => {
  const { openapi } = await getRuntime();
  const configErrors = openapi.configErrors();
  const body: OpenApiSpecsResponse = {
    specs: openapi.specs(),
    ...(configErrors.length > 0
      ? { config_errors: configErrors.map(({ field, message }) => ({ field, message })) }
      : {}),
  };
  return json(body);
});
