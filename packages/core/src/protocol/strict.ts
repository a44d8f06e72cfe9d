import { z } from "zod";

// Request bodies are strict (issue #26, decision 0041): a field the server does not know is a 400
// that names it, never dropped in silence. The wire's bodies are built from model schemas
// (SessionConfigSchema, ContextMessageSchema, …) that also read stored data, and stored data must
// stay tolerant (an older or newer instance's row still loads). So strictness is applied where a
// schema becomes a request body: strictRequest() copies the schema with every object in it strict.

type AnySchema = z.core.$ZodType;

/**
 * A copy of `schema` in which every object, at every depth (inside optionals, defaults, arrays,
 * unions, records' values, pipes, …), rejects unknown keys as `z.strictObject` does: zod reports an
 * `unrecognized_keys` issue, which parseRequest names `path.to.key`. Descriptions, refinements and
 * defaults are kept; an object that already says what its extra keys are (a catchall) keeps it.
 * The schema given is not changed.
 */
export function strictRequest<S extends z.ZodType>(schema: S): S {
  return strictCopy(schema, new Map()) as S;
}

function strictCopy(schema: AnySchema, done: Map<AnySchema, AnySchema>): AnySchema {
  const seen = done.get(schema);
  if (seen !== undefined) return seen;
  const copy = copied(schema, done);
  if (copy !== schema) {
    const meta = z.globalRegistry.get(schema);
    if (meta !== undefined) z.globalRegistry.add(copy, meta);
  }
  done.set(schema, copy);
  return copy;
}

function copied(schema: AnySchema, done: Map<AnySchema, AnySchema>): AnySchema {
  const inner = (s: AnySchema) => strictCopy(s, done);
  const def = schema._zod.def;
  const clone = (changes: object): AnySchema => new schema._zod.constr({ ...def, ...changes });
  switch (def.type) {
    case "object": {
      const { shape, catchall } = def as z.core.$ZodObjectDef;
      const strictShape = Object.fromEntries(
        Object.entries(shape).map(([key, value]) => [key, inner(value)]),
      );
      return clone({ shape: strictShape, catchall: catchall ?? z.never() });
    }
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "nonoptional":
    case "readonly":
    case "catch":
    case "success":
      return clone({ innerType: inner((def as z.core.$ZodOptionalDef).innerType) });
    case "array":
      return clone({ element: inner((def as z.core.$ZodArrayDef).element) });
    case "union":
      return clone({ options: (def as z.core.$ZodUnionDef).options.map(inner) });
    case "intersection": {
      const { left, right } = def as z.core.$ZodIntersectionDef;
      return clone({ left: inner(left), right: inner(right) });
    }
    case "record":
      return clone({ valueType: inner((def as z.core.$ZodRecordDef).valueType) });
    case "tuple": {
      const { items, rest } = def as z.core.$ZodTupleDef;
      return clone({ items: items.map(inner), rest: rest === null ? null : inner(rest) });
    }
    case "pipe": {
      const pipe = def as z.core.$ZodPipeDef;
      return clone({ in: inner(pipe.in), out: inner(pipe.out) });
    }
    case "lazy": {
      const { getter } = def as z.core.$ZodLazyDef;
      return clone({ getter: () => inner(getter()) });
    }
    default:
      // strings, numbers, enums, literals, unknown, transforms, …: nothing inside to make strict
      return schema;
  }
}

/**
 * The body of a route that takes none (interrupt, resume, a DELETE, …): nothing, or `{}` as some
 * clients send; any field is a 400 naming it, as on every other route.
 */
export const EmptyRequestSchema = z
  .strictObject({})
  .optional()
  .describe("No body (or `{}`): a field sent is refused, naming it.");
