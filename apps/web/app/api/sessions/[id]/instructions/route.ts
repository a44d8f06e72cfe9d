import type { WorkspaceInstructionsResponse } from "@arbor/core";
import { handle, json, loadSession } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/** The workspace instructions in use (AGENTS.md, CLAUDE.md, .arbor/instructions.md), read now. */
export const GET = handle(
  "GET /api/sessions/{id}/instructions",
  async (_request, context: Context) => {
    const { id } = await context.params;
    const session = await loadSession(await getRuntime(), id);
    const body: WorkspaceInstructionsResponse = session.workspaceInstructions();
    return json(body);
  },
);
