import type { Actor } from "./actor";

// Who may set people's token budgets (issue #25). TODO(lead): move under authorize(actor,
// "budget.manage", person); until then the install's admins (owner and admin roles) may.

/** Whether `actor` may read and set other people's monthly token budgets. */
export function mayManageBudgets(actor: Actor): boolean {
  return actor.role === "owner" || actor.role === "admin";
}
