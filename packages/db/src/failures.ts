// What kind of failure a database error is, on either database. Prisma wraps driver errors (and
// raw statements report them as P2010 with the driver's text), so both the code and the text are
// matched.

export type Failure = "unique" | "retry" | "other";

/** What kind of failure a database error is. Prisma wraps driver errors; match on code and text. */
export function classifyFailure(error: unknown): Failure {
  if (typeof error !== "object" || error === null) return "other";
  const code = Reflect.get(error, "code");
  if (code === "P2002") return "unique";
  // P2034: write conflict or deadlock (PostgreSQL serialization failure)
  if (code === "P2034") return "retry";
  const text = String(Reflect.get(error, "message") ?? "");
  if (/unique constraint|UNIQUE constraint failed|duplicate key value/i.test(text)) return "unique";
  if (/SQLITE_BUSY|database is locked|deadlock detected|could not serialize/i.test(text)) {
    return "retry";
  }
  return "other";
}

/** A UNIQUE or primary key violation, from a query or a raw statement. */
export function isUniqueViolation(error: unknown): boolean {
  return classifyFailure(error) === "unique";
}
