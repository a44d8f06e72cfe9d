import { ChooseParallelAnswerRequestSchema } from "@arbor/core";
import { handle, json, loadSession, readBody, resultOf } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ id: string; group_id: string }> };

/**
 * Ask N ways, after the verdict: the conversation goes on with another candidate's answer
 * (issue #27, case 9). Answers the new choice and the branch that keeps each answer.
 */
export const POST = handle(
  "POST /api/sessions/{id}/parallel/{group_id}/choose",
  async (request, context: Context) => {
    const { id, group_id } = await context.params;
    const arbor = await getRuntime();
    const session = await loadSession(arbor, id);
    const body = await readBody(request, ChooseParallelAnswerRequestSchema);
    const choice = await resultOf(
      arbor,
      session.chooseParallelAnswer(group_id, body.candidate),
      // a refusal names `group_id` (the path's) or `candidate`
      { ...body, group_id },
    );
    return json(choice);
  },
);
