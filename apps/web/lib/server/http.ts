import { randomBytes } from "node:crypto";
import {
  EmptyRequestSchema,
  type ErrorResponse,
  type FieldError,
  type Operation,
  type ParseResult,
  parseRequest,
  ROOT_FIELD,
  type Session,
} from "@arbor/core";
import { audit } from "./audit";
import { createRedactingLogger } from "./logger";
import { check, isSessionAction } from "./people/access";
import type { Actor } from "./people/actor";
import { type Admission, admit } from "./people/admission";
import { routeAction } from "./people/route-actions";
import { maxBodyBytes } from "./request-gate";
import { getRuntime, type Runtime } from "./runtime";
import { securityHeaders } from "./security-headers";
import { isDraining, servedWhileDraining } from "./shutdown";

// JSON answers and the pieces every route handler shares: reading and validating a body, loading
// the session (404), the admin check (401), and the wrapper that turns any thrown error into a
// 500 with a generic message: stack traces and internal messages stay in the server log.

/** A zod schema, as parseRequest takes it (this app does not depend on zod itself). */
type Schema = Parameters<typeof parseRequest>[0];
/** What a schema parses to. */
type Output<S extends Schema> =
  ReturnType<typeof parseRequest<S>> extends ParseResult<infer T> ? T : never;

export function json(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  return Response.json(body, {
    status,
    headers: { "cache-control": "no-store", ...Object.fromEntries(new Headers(headers)) },
  });
}

export function noContent(): Response {
  return new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
}

function errorBody(
  error: ErrorResponse["error"],
  message: string,
  fields?: FieldError[],
): ErrorResponse {
  return fields === undefined ? { error, message } : { error, message, fields };
}

export function badRequest(fields: FieldError[], message?: string): Response {
  const summary = message ?? `invalid ${fields.map((f) => f.field).join(", ") || "request"}`;
  return json(errorBody("invalid_request", summary, fields), 400);
}

export function notFound(message: string): Response {
  return json(errorBody("not_found", message), 404);
}

export function conflict(message: string): Response {
  return json(errorBody("conflict", message), 409);
}

export function forbidden(message: string): Response {
  return json(errorBody("forbidden", message), 403);
}

export function tooLarge(limit: number): Response {
  return json(
    errorBody("payload_too_large", `the body is larger than ${limit} bytes (ARBOR_MAX_BODY_BYTES)`),
    413,
  );
}

export function internalError(): Response {
  return json(errorBody("internal", "internal server error"), 500);
}

/** Thrown by the helpers below to answer at once with `response`. */
export class HttpError extends Error {
  readonly response: Response;
  constructor(response: Response) {
    super(`HTTP ${response.status}`);
    this.name = "HttpError";
    this.response = response;
  }
}

/** Reads a JSON body and validates it; throws HttpError(400) naming each bad field. */
export async function readBody<S extends Schema>(request: Request, schema: S): Promise<Output<S>> {
  const text = await readText(request, maxBodyBytes(process.env));
  let body: unknown;
  if (text.trim() !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      throw new HttpError(badRequest([{ field: ROOT_FIELD, message: "Malformed JSON" }]));
    }
  }
  return validate(schema, body);
}

/**
 * The body as text, read no further than `limit` bytes: a longer one answers 413 at once (the
 * proxy already refuses a Content-Length above it; this catches bodies sent without one).
 */
export async function readText(request: Request, limit: number): Promise<string> {
  if (Number(request.headers.get("content-length")) > limit) throw new HttpError(tooLarge(limit));
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new HttpError(tooLarge(limit));
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Validates a value (a body or query parameters); throws HttpError(400) naming each bad field. */
export function validate<S extends Schema>(schema: S, value: unknown): Output<S> {
  const parsed: ParseResult<Output<S>> = parseRequest(schema, value);
  if (!parsed.ok) throw new HttpError(badRequest(parsed.errors));
  return parsed.value;
}

/** The session named in the URL, loaded (and recovered) by the manager; 404 when unknown. */
export async function loadSession(runtime: Runtime, id: string): Promise<Session> {
  const session = await runtime.manager.get(id);
  if (session === undefined) throw new HttpError(notFound(`session ${id} does not exist`));
  // a DELETE has begun: nothing more is accepted (the session's own operations refuse too)
  if (session.deleting) throw new HttpError(conflict(`session ${id} is being deleted`));
  return session;
}

/**
 * Waits for a non-streaming operation and returns its typed result. Its refusal (the error it
 * reported) becomes the HTTP answer: invalid_request → 400, invalid_transition → 409, anything
 * else → 500 (logged). `body` is the request body the operation was given: a 400 names the body
 * fields whose values its message speaks of (a branch id that does not exist), else the body as
 * a whole.
 */
export async function resultOf<R>(
  runtime: Runtime,
  operation: Operation<R>,
  body?: Record<string, unknown>,
): Promise<R> {
  const result = await operation.result;
  if (result.ok) return result.value;
  const { code, message } = result.error;
  if (code === "invalid_request")
    throw new HttpError(badRequest(fieldsNamedIn(message, body), message));
  if (code === "invalid_transition") throw new HttpError(conflict(message));
  runtime.logger.error("operation failed", { code, error: message });
  throw new HttpError(internalError());
}

/** The top-level body fields whose (string) value the message quotes; the root when none. */
function fieldsNamedIn(message: string, body: Record<string, unknown> | undefined): FieldError[] {
  // "pipeline.processors: …": a message that starts with a path into the body names that field
  const path = /^([a-z_]+(?:\.[a-z_]+)*): /.exec(message)?.[1];
  if (path !== undefined && body !== undefined && (path.split(".")[0] as string) in body) {
    return [{ field: path, message }];
  }
  const named = Object.entries(body ?? {})
    .filter(([, value]) => typeof value === "string" && value !== "" && message.includes(value))
    .map(([field]) => ({ field, message }));
  return named.length > 0 ? named : [{ field: ROOT_FIELD, message }];
}

type Handler<C> = (request: Request, context: C, actor: Actor) => Promise<Response>;
type SignInHandler<C> = (
  request: Request,
  context: C,
  actor: Actor | undefined,
) => Promise<Response>;
type Route<C> = (request: Request, context: C) => Promise<Response>;

/**
 * Wraps a route handler: HttpError answers as thrown; anything else is logged (message only,
 * through the redacting logger) and answered 500 with a generic body.
 */
export function handle<C>(name: string, handler: Handler<C>): Route<C>;
/** A sign-in route (request-gate.ts isSignInPath): reached without a person. */
export function handle<C>(
  name: string,
  handler: SignInHandler<C>,
  options: { signIn: true },
): Route<C>;
export function handle<C>(
  name: string,
  handler: Handler<C> | SignInHandler<C>,
  options?: { signIn: true },
): Route<C> {
  return async (request, context) => withSecurityHeaders(await answer(request, context));

  async function answer(request: Request, context: C): Promise<Response> {
    // the proxy's gate, again: requests with a body do not pass the proxy (see proxy.ts)
    let admission: Admission;
    try {
      admission = await admit(request);
    } catch (error) {
      return failed(error);
    }
    const { verdict, actor } = admission;
    if (verdict.type === "refuse") {
      const headers = new Headers(verdict.headers);
      return json({ error: verdict.error, message: verdict.message }, verdict.status, headers);
    }
    if (actor === undefined && options?.signIn !== true) {
      return json(
        { error: "unauthorized", message: "this endpoint needs a signed-in person" },
        401,
        new Headers({ "www-authenticate": 'Bearer realm="arbor"' }),
      );
    }
    if (actor !== undefined && options?.signIn !== true) {
      const refused = await authorized(name, actor, context).catch(failed);
      if (refused !== undefined) return refused;
    }
    if (isDraining() && !servedWhileDraining(request.method, new URL(request.url).pathname)) {
      return json(
        {
          error: "shutting_down",
          message: "this server is shutting down; try again (another instance may answer)",
        },
        503,
        new Headers({ "retry-after": "1" }),
      );
    }
    try {
      // a person is there unless the route is a sign-in route, whose handler takes undefined
      return await (handler as SignInHandler<C>)(request, context, actor);
    } catch (error) {
      return failed(error);
    }
  }

  async function failed(error: unknown): Promise<Response> {
    if (error instanceof HttpError) return error.response;
    const message = error instanceof Error ? error.message : String(error);
    // when the runtime itself failed to start, its logger is not there: scrub with a new one
    const logger = await getRuntime().then(
      (runtime) => runtime.logger,
      () => createRedactingLogger(),
    );
    logger.error("request failed", { route: name, error: message });
    return internalError();
  }
}

/**
 * authorize() for a route (people/route-actions.ts names each route's action): undefined when the
 * person may, else the answer: 403 naming why, or 404 for a session they may not know of.
 */
async function authorized(
  name: string,
  actor: Actor,
  context: unknown,
): Promise<Response | undefined> {
  const action = routeAction(name);
  if (action === undefined) throw new Error(`route ${name} has no action in route-actions.ts`);
  const runtime = await getRuntime();
  const params = (context as { params?: Promise<Record<string, string>> } | undefined)?.params;
  const sessionId = isSessionAction(action) ? (await params)?.id : undefined;
  const outcome = await check(runtime, actor, action, sessionId);
  if (!outcome.decision.allowed) {
    return outcome.hidden
      ? notFound(`session ${sessionId} does not exist`)
      : forbidden(outcome.decision.reason);
  }
  if (outcome.adminRead) {
    await audit(runtime, actor, "session_opened_by_admin", `session:${sessionId}`, {
      route: name,
    });
  }
  return undefined;
}

/** The security headers (security-headers.ts) on a route's answer. */
function withSecurityHeaders(response: Response): Response {
  const nonce = randomBytes(16).toString("base64");
  try {
    for (const [name, value] of Object.entries(securityHeaders(nonce))) {
      response.headers.set(name, value);
    }
    return response;
  } catch {
    // an answer with immutable headers: copy it
    const copy = new Response(response.body, response);
    for (const [name, value] of Object.entries(securityHeaders(nonce)))
      copy.headers.set(name, value);
    return copy;
  }
}

/** A route that takes no body: nothing or `{}` passes; any field is a 400 naming it. */
export async function readNoBody(request: Request): Promise<void> {
  await readBody(request, EmptyRequestSchema);
}
