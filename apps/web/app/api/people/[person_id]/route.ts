import { UpdatePersonRequestSchema } from "@arbor/core";
import { forbidden, handle, json, notFound, readBody } from "@/lib/server/http";
import { personWire } from "@/lib/server/people/wire";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ person_id: string }> };

/**
 * Changes a person's role or disables them (admins). Nobody changes the owner; only the owner
 * makes or unmakes admins; nobody disables themselves. A change ends the person's browser
 * sessions, so it holds on every instance at once.
 */
export const PATCH = handle(
  "PATCH /api/people/{person_id}",
  async (request, context: Context, actor) => {
    const { person_id } = await context.params;
    const body = await readBody(request, UpdatePersonRequestSchema);
    const arbor = await getRuntime();
    const { store } = arbor.people;
    const person = await store.person(person_id);
    if (person === undefined) return notFound(`person ${person_id} does not exist`);
    if (person.role === "owner") return forbidden("the owner's role and access cannot be changed");
    const touchesAdmin = person.role === "admin" || body.role === "admin";
    if (touchesAdmin && actor.role !== "owner") {
      return forbidden("only the owner makes or unmakes admins");
    }
    if (person.id === actor.id) return forbidden("you cannot change your own role or access");
    let updated = person;
    if (body.role !== undefined && body.role !== person.role) {
      updated = (await store.setRole(person.id, body.role)) ?? updated;
      await store.endSessionsOf(person.id);
      arbor.logger.info("role changed", {
        by: actor.id,
        person: person.id,
        from: person.role,
        to: body.role,
      });
    }
    if (body.disabled !== undefined && body.disabled !== person.disabled) {
      updated = (await store.setDisabled(person.id, body.disabled)) ?? updated;
      arbor.logger.info(body.disabled ? "person disabled" : "person enabled", {
        by: actor.id,
        person: person.id,
      });
    }
    return json(personWire(updated));
  },
);
