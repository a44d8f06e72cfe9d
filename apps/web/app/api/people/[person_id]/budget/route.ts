import { type BudgetResponse, PutBudgetRequestSchema } from "@arbor/core";
import { handle, json, readBody } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// A person's monthly token budget (docs/agent-authorization.md): both routes are
// `people.manage` (admins), checked by handle(); a person reads their own at GET /api/me/usage.

type Context = { params: Promise<{ person_id: string }> };

/** A person's monthly token budget and this month's usage. */
export const GET = handle(
  "GET /api/people/{person_id}/budget",
  async (_request, context: Context) => {
    const { person_id } = await context.params;
    const arbor = await getRuntime();
    const body: BudgetResponse = await arbor.budgets.view(person_id);
    return json(body);
  },
);

/** Sets (or, with null, lifts) a person's monthly token budget. */
export const PUT = handle(
  "PUT /api/people/{person_id}/budget",
  async (request, context: Context, actor) => {
    const { person_id } = await context.params;
    const body = await readBody(request, PutBudgetRequestSchema);
    const arbor = await getRuntime();
    const view: BudgetResponse = await arbor.budgets.set(person_id, body.monthly_tokens);
    arbor.logger.info("token budget set", {
      person: person_id,
      monthly_tokens: body.monthly_tokens,
      by: actor.id,
    });
    return json(view);
  },
);
