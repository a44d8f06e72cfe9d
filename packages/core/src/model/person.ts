import { z } from "zod";

// A person as the core records them: who decided a tool call (`decided_by`), who started a run
// (`startedBy` on the loop record), whose token budget a model request counts against. Only the
// id and the display name: the core knows nothing of accounts, roles or credentials (the web
// app's Actor has those and hands the core this much).

export const PersonRefSchema = z.object({
  /** the person's id (users.id in the web app) */
  id: z.string().min(1),
  /** their display name as cards show it ("Approved by Ana") */
  name: z.string(),
});
export type PersonRef = z.infer<typeof PersonRefSchema>;

/** Only id and name, whatever else `person` carries (an Actor has email, role, address …). */
export function personRef(person: PersonRef): PersonRef {
  return { id: person.id, name: person.name };
}
