import type { Actor } from "./actor";
import { isAdmin } from "./authorize";

// Who may read a person's token budget (issue #25): setting one is `people.manage` (handle()
// asks authorize()); reading is an admin's, or the person's own.

/** Whether `actor` may read the monthly token budget of person `personId`. */
export function mayReadBudget(actor: Actor, personId: string): boolean {
  return actor.id === personId || isAdmin(actor);
}
