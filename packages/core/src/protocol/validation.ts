import type { z } from "zod";

// Turning zod failures into what a client can act on: one entry per problem, naming the field by
// its path ("payload.path", "decisions.0.tool_call_id"). Route handlers answer 400 with these.

export interface FieldError {
  /** dotted path into the body; "(root)" for the body itself */
  field: string;
  message: string;
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

export const ROOT_FIELD = "(root)";

type Issue = z.core.$ZodIssue;

function joinPath(path: readonly PropertyKey[]): string {
  // an empty key is named as JSON writes it, so a field is never the empty string
  return path.length === 0
    ? ROOT_FIELD
    : path.map((key) => (String(key) === "" ? '""' : String(key))).join(".");
}

function maxDepth(issues: readonly Issue[]): number {
  let depth = 0;
  for (const issue of issues) depth = Math.max(depth, issue.path.length);
  return depth;
}

/**
 * The union branch the input most plausibly meant: one that failed only on unknown keys (it fits
 * but for them, so naming them is the answer); else the one whose deepest issue is deepest (it
 * got furthest before failing), then the one with fewest issues. Undefined when that is a tie or
 * when every branch failed on the value itself: then the union's own message is the honest answer.
 */
function closestBranch(branches: readonly (readonly Issue[])[]): readonly Issue[] | undefined {
  const fitsButForUnknownKeys = branches.filter(
    (issues) => issues.length > 0 && issues.every((i) => i.code === "unrecognized_keys"),
  );
  if (fitsButForUnknownKeys.length === 1) return fitsButForUnknownKeys[0];
  const ranked = branches
    .map((issues) => ({ issues, depth: maxDepth(issues), count: issues.length }))
    .sort((a, b) => b.depth - a.depth || a.count - b.count);
  const [best, second] = ranked;
  if (best === undefined || best.depth === 0) return undefined;
  if (second !== undefined && second.depth === best.depth && second.count === best.count) {
    return undefined;
  }
  return best.issues;
}

/** The top-level keys every branch of a union reported as unrecognized. */
function unknownToEveryBranch(branches: readonly (readonly Issue[])[]): string[] {
  const keysOf = (issues: readonly Issue[]) =>
    issues.flatMap((i) => (i.code === "unrecognized_keys" && i.path.length === 0 ? i.keys : []));
  const [first, ...rest] = branches;
  if (first === undefined) return [];
  return keysOf(first).filter((key) => rest.every((issues) => keysOf(issues).includes(key)));
}

function flatten(
  issues: readonly Issue[],
  prefix: readonly PropertyKey[],
  out: FieldError[],
): void {
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      const branch = closestBranch(issue.errors);
      if (branch !== undefined) {
        flatten(branch, path, out);
        continue;
      }
      const expected = issue.errors
        .flatMap((b) => b.filter((i) => i.path.length === 0 && i.code === "invalid_type"))
        .map((i) => (i.code === "invalid_type" ? i.expected : ""));
      const message =
        issue.message !== "Invalid input" || expected.length === 0
          ? issue.message
          : `Invalid input: expected ${[...new Set(expected)].join(" or ")}`;
      out.push({ field: joinPath(path), message });
      // a key no shape of the union knows is named too
      for (const key of unknownToEveryBranch(issue.errors)) {
        out.push({ field: joinPath([...path, key]), message: "Unrecognized field" });
      }
      continue;
    }
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        out.push({ field: joinPath([...path, key]), message: "Unrecognized field" });
      }
      continue;
    }
    out.push({ field: joinPath(path), message: issue.message });
  }
}

/** One entry per problem, each naming its field. Unions report the branch the input came closest to. */
export function formatZodError(error: z.ZodError): FieldError[] {
  const out: FieldError[] = [];
  flatten(error.issues, [], out);
  return out;
}

/** "payload.path: Required; payload.range.end_line: …" — for logs and error events. */
export function describeFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join("; ");
}

/**
 * The error map parseRequest uses: a missing field says "Required" (zod's default, "expected
 * string, received undefined", hides the point); an unknown discriminator names the value sent.
 */
const requestErrorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === "invalid_type" && issue.input === undefined) return "Required";
  if (issue.code === "invalid_union" && "discriminator" in issue && "options" in issue) {
    const discriminator = String(issue.discriminator);
    const input = issue.input;
    const sent =
      typeof input === "object" && input !== null && discriminator in input
        ? JSON.stringify((input as Record<string, unknown>)[discriminator])
        : undefined;
    const options = Array.isArray(issue.options) ? issue.options.map(String).join(", ") : "";
    return sent === undefined
      ? `Required; expected one of: ${options}`
      : `Unknown ${discriminator} ${sent}; expected one of: ${options}`;
  }
  return undefined;
};

/** Validates a request body. Never throws; the caller answers 400 with `errors` on failure. */
export function parseRequest<S extends z.ZodType>(
  schema: S,
  body: unknown,
): ParseResult<z.output<S>> {
  const result = schema.safeParse(body, { error: requestErrorMap });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, errors: formatZodError(result.error) };
}
