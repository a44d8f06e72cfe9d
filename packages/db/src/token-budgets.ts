import type { PersonRef, TokenBudget } from "@arbor/core";
import type { Database } from "./database.js";

// Per-person monthly token budgets (issue #25): `person_budgets` holds a person's budget,
// `person_token_usage` what their runs used per calendar month (UTC). The core checks a request
// against `remaining` before sending it and adds each response's tokens through `record`
// (llm/token-budget.ts). `record` is one INSERT … ON CONFLICT DO UPDATE statement, the same SQL
// on SQLite and PostgreSQL: several instances adding at once never lose a count.

/** A person's budget and this month's usage, as GET /api/people/{id}/budget answers it. */
export interface BudgetView {
  person_id: string;
  /** tokens per calendar month (UTC); null: no limit */
  monthly_tokens: number | null;
  used_tokens: number;
  /** "YYYY-MM", UTC */
  month: string;
}

/** The calendar month (UTC) of `date`: "2026-11". */
export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

const BUDGET_OF = 'SELECT "monthly_tokens" FROM "person_budgets" WHERE "person_id" = ?';
const USED_IN_MONTH =
  'SELECT "used_tokens" FROM "person_token_usage" WHERE "person_id" = ? AND "month" = ?';

/** Adds a response's tokens to the month's usage: the database adds, so no count is lost. */
const RECORD_USAGE = `INSERT INTO "person_token_usage" ("person_id", "month", "used_tokens")
  VALUES (?, ?, ?)
  ON CONFLICT ("person_id", "month")
  DO UPDATE SET "used_tokens" = "person_token_usage"."used_tokens" + excluded."used_tokens"`;

export class TokenBudgets implements TokenBudget {
  readonly #db: Database;
  readonly #now: () => Date;

  constructor(db: Database, options: { now?: () => Date } = {}) {
    this.#db = db;
    this.#now = options.now ?? (() => new Date());
  }

  /** The person's budget and what they used this month. */
  async view(personId: string): Promise<BudgetView> {
    const month = monthOf(this.#now());
    const [budget, usage] = await Promise.all([
      this.#db.client.personBudget.findUnique({ where: { personId } }),
      this.#db.client.personTokenUsage.findUnique({
        where: { personId_month: { personId, month } },
      }),
    ]);
    const monthly = budget?.monthlyTokens ?? null;
    return {
      person_id: personId,
      monthly_tokens: monthly === null ? null : Number(monthly),
      used_tokens: Number(usage?.usedTokens ?? 0n),
      month,
    };
  }

  /** Sets (a number) or lifts (null) the person's monthly budget. */
  async set(personId: string, monthlyTokens: number | null): Promise<BudgetView> {
    const values = {
      monthlyTokens: monthlyTokens === null ? null : BigInt(monthlyTokens),
      updatedAt: this.#now().toISOString(),
    };
    await this.#db.client.personBudget.upsert({
      where: { personId },
      create: { personId, ...values },
      update: values,
    });
    return this.view(personId);
  }

  async remaining(
    person: PersonRef,
  ): Promise<{ monthlyTokens: number; usedTokens: number } | undefined> {
    const direct = this.#db.direct;
    if (direct !== undefined) {
      // checked before every model request, on its way out: SQLite answers from two prepared
      // SELECTs (usage only when there is a budget) instead of two Prisma queries
      const month = monthOf(this.#now());
      return direct.read((conn) => {
        const budget = conn.statement(BUDGET_OF).raw(true).get(person.id) as
          | [number | bigint | null]
          | undefined;
        const monthly = budget?.[0];
        if (monthly === null || monthly === undefined) return undefined;
        const usage = conn.statement(USED_IN_MONTH).raw(true).get(person.id, month) as
          | [number | bigint]
          | undefined;
        return { monthlyTokens: Number(monthly), usedTokens: Number(usage?.[0] ?? 0) };
      });
    }
    const view = await this.view(person.id);
    if (view.monthly_tokens === null) return undefined;
    return { monthlyTokens: view.monthly_tokens, usedTokens: view.used_tokens };
  }

  async record(person: PersonRef, tokens: number): Promise<void> {
    if (!Number.isSafeInteger(tokens) || tokens <= 0) return;
    const month = monthOf(this.#now());
    const used = BigInt(tokens);
    const direct = this.#db.direct;
    if (direct !== undefined) {
      // after every model response: the same statement, prepared once, in the turn's group
      // commit instead of a Prisma query of its own
      await direct.write((conn) => conn.statement(RECORD_USAGE).run(person.id, month, used));
      return;
    }
    // one statement: the database adds, so concurrent responses (any instance) all count
    await this.#db.client.$executeRaw`
      INSERT INTO "person_token_usage" ("person_id", "month", "used_tokens")
      VALUES (${person.id}, ${month}, ${used})
      ON CONFLICT ("person_id", "month")
      DO UPDATE SET "used_tokens" = "person_token_usage"."used_tokens" + excluded."used_tokens"`;
  }
}
