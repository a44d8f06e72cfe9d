import { type BudgetResponse, PutBudgetRequestSchema } from "@arbor/core";
import { forbidden, HttpError, handle, json, readBody } from "@/lib/server/http";
import { mayManageBudgets } from "@/lib/server/people/budgets";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string }> };

/** A person's monthly token budget and this month's usage: admins, or the person themselves. */
export const GET = handle(
  "GET /api/people/{id}/budget",
  async (_request, context: Context, actor) => {
    const { id } = await context.params;
    if (id !== actor.id && !mayManageBudgets(actor)) {
      throw new HttpError(forbidden("only an admin may read another person's budget"));
    }
    const arbor = await getRuntime();
    const body: BudgetResponse = await arbor.budgets.view(id);
    return json(body);
  },
);

/** Sets (or, with null, lifts) a person's monthly token budget: admins only. */
export const PUT = handle(
  "PUT /api/people/{id}/budget",
  async (request, context: Context, actor) => {
    const { id } = await context.params;
    if (!mayManageBudgets(actor)) {
      throw new HttpError(forbidden("only an admin may set a person's token budget"));
    }
    const body = await readBody(request, PutBudgetRequestSchema);
    const arbor = await getRuntime();
    const view: BudgetResponse = await arbor.budgets.set(id, body.monthly_tokens);
    arbor.logger.info("token budget set", {
      person: id,
      monthly_tokens: body.monthly_tokens,
      by: actor.id,
    });
    return json(view);
  },
);
