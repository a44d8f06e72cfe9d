import type {
  AddMcpServerRequest,
  AgentsResponse,
  ApiTokenResponse,
  ApprovalDecision,
  AuditAction,
  AuditListResponse,
  AuditVerifyResponse,
  Branch,
  BranchListResponse,
  BudgetResponse,
  ConfigResponse,
  CreatedInvitationResponse,
  CreatedLink,
  CreatedTokenResponse,
  CreateSessionRequest,
  CreateSessionResponse,
  ErrorResponse,
  FileContentResponse,
  FileListResponse,
  FoldListResponse,
  ForkLinkResponse,
  ImportSessionResponse,
  InterruptResponse,
  InvitationListResponse,
  KeyProvider,
  LoopTreeResponse,
  McpPromptResponse,
  McpServersResponse,
  McpServerView,
  MergeRequest,
  MergeResponse,
  MessageDelivery,
  MessagePayload,
  MessagesResponse,
  MessageType,
  OpenApiSpecsResponse,
  OptimizeResponse,
  ParallelCandidate,
  ParallelChoice,
  ParallelJudge,
  PatchConfigRequest,
  PeopleResponse,
  PersonResponse,
  ProviderKeysResponse,
  ResolveMergeRequest,
  SearchResponse,
  SessionAccessResponse,
  SessionDetail,
  SessionSummary,
  SettingsResponse,
  SharedBranchResponse,
  SharedPerson,
  ShareRole,
  SharesResponse,
  SkillsResponse,
  TokenListResponse,
  UpdateBranchRequest,
  WorkspaceInstructionsResponse,
  WorkspaceTrustResponse,
} from "@arbor/core/browser";
import { readSseEvents, type StreamedEvent } from "./sse";

// Typed fetch wrappers for every endpoint of docs/api.md. Types only come from @arbor/core (the
// browser bundle must not pull the runtime). A non-2xx answer throws ApiError carrying the
// server's {error, message, fields}, so a form can show which field was wrong.

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorResponse["error"] | "network";
  readonly fields: NonNullable<ErrorResponse["fields"]>;

  constructor(status: number, body: ErrorResponse | { error: "network"; message: string }) {
    super(body.message);
    this.name = "ApiError";
    this.status = status;
    this.code = body.error;
    this.fields = "fields" in body && body.fields ? body.fields : [];
  }

  /** "message (field: problem; …)" for a banner */
  describe(): string {
    if (this.fields.length === 0) return this.message;
    const details = this.fields.map((f) => `${f.field}: ${f.message}`).join("; ");
    return `${this.message} (${details})`;
  }
}

function isErrorResponse(value: unknown): value is ErrorResponse {
  return (
    typeof value === "object" &&
    value !== null &&
    "error" in value &&
    "message" in value &&
    typeof value.message === "string"
  );
}

/** Bad Gateway, Service Unavailable, Gateway Timeout: what a proxy says for an app server gone */
const GATEWAY_STATUSES = new Set([502, 503, 504]);

async function errorFrom(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => "");
  try {
    const body: unknown = JSON.parse(text);
    if (isErrorResponse(body)) return new ApiError(response.status, body);
  } catch {
    // not JSON: a proxy's page or an empty body; fall through to the status line
  }
  if (GATEWAY_STATUSES.has(response.status)) {
    // a proxy in front answered for an app server that is gone: to the person, the same as a
    // server that cannot be reached (a text waits and goes when it is back; Retry is offered)
    return new ApiError(response.status, {
      error: "network",
      message: `The server could not be reached (${response.status} ${response.statusText || "from the proxy"}).`,
    });
  }
  return new ApiError(response.status, {
    error: response.status === 404 ? "not_found" : "internal",
    message: `${response.status} ${response.statusText || "request failed"}`,
  });
}

export interface RequestOptions {
  signal?: AbortSignal | undefined;
  /** a Bearer token to send instead of the browser's session cookie */
  token?: string | undefined;
}

async function request(
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  body: unknown,
  options: RequestOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      cache: "no-store",
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new ApiError(0, { error: "network", message: "The server could not be reached." });
  }
  if (!response.ok) throw await errorFrom(response);
  return response;
}

async function json<T>(
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
  options?: RequestOptions,
): Promise<T> {
  const response = await request(method, path, body, options);
  // the caller names T after the endpoint's documented answer schema
  return (await response.json()) as T;
}

async function stream(
  path: string,
  body: unknown,
  options?: RequestOptions,
): Promise<AsyncIterable<StreamedEvent>> {
  const response = await request("POST", path, body, options);
  return readSseEvents(response, options?.signal);
}

const enc = encodeURIComponent;
const sessionPath = (id: string) => `/api/sessions/${enc(id)}`;

export type CreateSessionBody = { title?: string; config?: CreateSessionRequest["config"] };

export const api = {
  createSession: (body: CreateSessionBody = {}) =>
    json<CreateSessionResponse>("POST", "/api/sessions", body),
  /** a new session from a file written by Export › JSON (the parsed file, as it was written) */
  importSession: (file: unknown) =>
    json<ImportSessionResponse>("POST", "/api/sessions/import", file),
  /** how the server runs tools (the sandbox, the tool environment's names) */
  getSettings: (options?: RequestOptions) =>
    json<SettingsResponse>("GET", "/api/settings", undefined, options),
  /** the caller's monthly token budget and what they used of it (the usage meter) */
  myUsage: (options?: RequestOptions) =>
    json<BudgetResponse>("GET", "/api/me/usage", undefined, options),
  /** the MCP servers, their states and what each offers */
  listMcpServers: (options?: RequestOptions) =>
    json<McpServersResponse>("GET", "/api/mcp/servers", undefined, options),
  expandMcpPrompt: (server: string, prompt: string, args: Record<string, string>) =>
    json<McpPromptResponse>("POST", `/api/mcp/servers/${enc(server)}/prompts/${enc(prompt)}`, {
      arguments: args,
    }),
  /** the skills the sessions use, with malformed SKILL.md files and why */
  listSkills: (options?: RequestOptions) =>
    json<SkillsResponse>("GET", "/api/skills", undefined, options),
  /** the agent files' sub-agents, with malformed files and why */
  listAgents: (options?: RequestOptions) =>
    json<AgentsResponse>("GET", "/api/agents", undefined, options),
  /** switches a skill on or off for every session (admins) */
  setSkillEnabled: (name: string, enabled: boolean) =>
    json<SkillsResponse>("PATCH", `/api/skills/${enc(name)}`, { enabled }),
  /** switches a sub-agent on or off for every session (admins) */
  setAgentEnabled: (name: string, enabled: boolean) =>
    json<AgentsResponse>("PATCH", `/api/agents/${enc(name)}`, { enabled }),
  /** the OpenAPI specs of .arbor/openapi.json, their states and tools */
  listOpenApiSpecs: (options?: RequestOptions) =>
    json<OpenApiSpecsResponse>("GET", "/api/openapi/specs", undefined, options),
  /** the workspace's executable configuration and its trust */
  workspaceTrust: (options?: RequestOptions) =>
    json<WorkspaceTrustResponse>("GET", "/api/workspace/trust", undefined, options),
  trustDefinition: (definition: { file: string; name: string; hash: string }) =>
    json<WorkspaceTrustResponse>("POST", "/api/workspace/trust", {
      file: definition.file,
      name: definition.name,
      hash: definition.hash,
    }),
  revokeTrust: (definition: { file: string; name: string }) =>
    json<WorkspaceTrustResponse>("DELETE", "/api/workspace/trust", {
      file: definition.file,
      name: definition.name,
    }),
  reconnectMcpServer: (name: string) =>
    json<McpServerView>("POST", `/api/mcp/servers/${enc(name)}/reconnect`),
  /** admins: a server for the app's own config, trusted by this act */
  addMcpServer: (server: AddMcpServerRequest) =>
    json<McpServerView>("POST", "/api/mcp/servers", server),
  setMcpServerEnabled: (name: string, enabled: boolean) =>
    json<McpServerView>("PATCH", `/api/mcp/servers/${enc(name)}`, { enabled }),
  removeMcpServer: async (name: string): Promise<void> => {
    await request("DELETE", `/api/mcp/servers/${enc(name)}`, undefined);
  },
  listSessions: (options?: RequestOptions) =>
    json<SessionSummary[]>("GET", "/api/sessions", undefined, options),
  getSession: (id: string, options?: RequestOptions) =>
    json<SessionDetail>("GET", sessionPath(id), undefined, options),
  renameSession: (id: string, title: string) =>
    json<SessionDetail>("PATCH", sessionPath(id), { title }),
  searchMessages: (q: string, options?: RequestOptions) =>
    json<SearchResponse>(
      "GET",
      `/api/search?${new URLSearchParams({ q, limit: "30" })}`,
      undefined,
      options,
    ),
  deleteSession: async (id: string) => {
    await request("DELETE", sessionPath(id), undefined);
  },
  /** the caller's relation to the session and what it lets them do (docs/sharing.md) */
  getAccess: (id: string, options?: RequestOptions) =>
    json<SessionAccessResponse>("GET", `${sessionPath(id)}/access`, undefined, options),
  listShares: (id: string, options?: RequestOptions) =>
    json<SharesResponse>("GET", `${sessionPath(id)}/shares`, undefined, options),
  shareSession: (id: string, body: { email?: string; user_id?: string; role: ShareRole }) =>
    json<SharedPerson>("POST", `${sessionPath(id)}/shares`, body),
  unshareSession: async (id: string, userId: string) => {
    await request("DELETE", `${sessionPath(id)}/shares/${enc(userId)}`, undefined);
  },
  createLink: (id: string, body: { branch_id: string; expires_at?: string }) =>
    json<CreatedLink>("POST", `${sessionPath(id)}/links`, body),
  revokeLink: async (id: string, linkId: string) => {
    await request("DELETE", `${sessionPath(id)}/links/${enc(linkId)}`, undefined);
  },
  /** the branch behind a read-only link, as it is now */
  openLink: (token: string, options?: RequestOptions) =>
    json<SharedBranchResponse>("GET", `/api/links/${enc(token)}`, undefined, options),
  forkLink: (token: string) => json<ForkLinkResponse>("POST", `/api/links/${enc(token)}/fork`),

  getMessages: (
    id: string,
    query: {
      branch?: string | undefined;
      view?: "full" | "optimized";
      /** only messages of these types */
      types?: readonly MessageType[];
    } = {},
    options?: RequestOptions,
  ) => {
    const params = new URLSearchParams();
    if (query.branch) params.set("branch", query.branch);
    if (query.view) params.set("view", query.view);
    if (query.types && query.types.length > 0) params.set("type", query.types.join(","));
    const suffix = params.size > 0 ? `?${params}` : "";
    return json<MessagesResponse>(
      "GET",
      `${sessionPath(id)}/messages${suffix}`,
      undefined,
      options,
    );
  },
  /** the operation's events, as the server streams them */
  /** `delivery`: what a text sent while the agent works becomes (steer by default; see docs/api.md) */
  sendMessage: (
    id: string,
    payload: MessagePayload,
    options?: RequestOptions & { delivery?: MessageDelivery | undefined },
  ) =>
    stream(
      `${sessionPath(id)}/messages`,
      {
        session_id: id,
        payload,
        ...(options?.delivery ? { delivery: options.delivery } : {}),
      },
      options,
    ),
  /** ask N ways: the candidates' and the verdict's events, as the server streams them */
  askParallel: (
    id: string,
    text: string,
    body: { candidates: ParallelCandidate[]; judge?: Partial<ParallelJudge> },
    options?: RequestOptions,
  ) =>
    stream(
      `${sessionPath(id)}/messages/parallel`,
      { session_id: id, payload: { type: "text", text }, ...body },
      options,
    ),
  /** ask N ways, after the verdict: the conversation goes on with another candidate's answer */
  chooseParallelAnswer: (id: string, groupId: string, candidate: number) =>
    json<ParallelChoice>("POST", `${sessionPath(id)}/parallel/${enc(groupId)}/choose`, {
      candidate,
    }),
  decideToolCalls: (id: string, decisions: ApprovalDecision[], options?: RequestOptions) =>
    stream(`${sessionPath(id)}/approvals`, { decisions }, options),
  interrupt: (id: string) => json<InterruptResponse>("POST", `${sessionPath(id)}/interrupt`),
  /** "Approve plan and switch to Act": the run that follows, as it streams */
  approvePlan: (id: string, messageId: string, options?: RequestOptions) =>
    stream(`${sessionPath(id)}/plan/approve`, { message_id: messageId }, options),
  /** regenerate: the fork at the user's message this one answers, and the new answer */
  regenerate: (id: string, messageId: string, options?: RequestOptions) =>
    stream(`${sessionPath(id)}/messages/${enc(messageId)}/regenerate`, {}, options),
  /** edit & resend: the fork with the new text and the model's answer, as they stream */
  editAndResend: (id: string, messageId: string, text: string, options?: RequestOptions) =>
    stream(`${sessionPath(id)}/messages/${enc(messageId)}/edit`, { text }, options),
  listFiles: (
    id: string,
    query: { query?: string | undefined; limit?: number | undefined } = {},
    options?: RequestOptions,
  ) => {
    const params = new URLSearchParams();
    if (query.query) params.set("query", query.query);
    if (query.limit !== undefined) params.set("limit", String(query.limit));
    const suffix = params.size > 0 ? `?${params}` : "";
    return json<FileListResponse>("GET", `${sessionPath(id)}/files${suffix}`, undefined, options);
  },
  /** the session's folds (context folding) with their steps, for the fold cards */
  folds: (id: string) => json<FoldListResponse>("GET", `${sessionPath(id)}/folds`),
  /** the workspace instructions in use (AGENTS.md, CLAUDE.md, .arbor/instructions.md) */
  instructions: (id: string) =>
    json<WorkspaceInstructionsResponse>("GET", `${sessionPath(id)}/instructions`),
  /** a workspace file for the file view */
  readFile: (id: string, path: string, options?: RequestOptions) =>
    json<FileContentResponse>(
      "GET",
      `${sessionPath(id)}/files/content?${new URLSearchParams({ path })}`,
      undefined,
      options,
    ),
  resume: (id: string, options?: RequestOptions) =>
    stream(`${sessionPath(id)}/resume`, undefined, options),
  /** "Optimize now": the active branch, even below the trigger */
  optimize: (id: string) => json<OptimizeResponse>("POST", `${sessionPath(id)}/optimize`),
  patchConfig: (id: string, patch: PatchConfigRequest) =>
    json<ConfigResponse>("PATCH", `${sessionPath(id)}/config`, patch),

  listBranches: (id: string) => json<BranchListResponse>("GET", `${sessionPath(id)}/branches`),
  createBranch: (id: string, body: { from_message_id: string; name?: string }) =>
    json<Branch>("POST", `${sessionPath(id)}/branches`, body),
  checkoutBranch: (id: string, branchId: string) =>
    json<BranchListResponse>("POST", `${sessionPath(id)}/branches/${enc(branchId)}/checkout`),
  updateBranch: (id: string, branchId: string, patch: UpdateBranchRequest) =>
    json<Branch>("PATCH", `${sessionPath(id)}/branches/${enc(branchId)}`, patch),
  deleteBranch: async (id: string, branchId: string) => {
    await request("DELETE", `${sessionPath(id)}/branches/${enc(branchId)}`, undefined);
  },
  merge: (id: string, body: MergeRequest) =>
    json<MergeResponse>("POST", `${sessionPath(id)}/merges`, body),
  resolveMerge: (id: string, mergeId: string, body: ResolveMergeRequest) =>
    json<MergeResponse>("POST", `${sessionPath(id)}/merges/${enc(mergeId)}/resolve`, body),

  adminSessions: (options?: RequestOptions) =>
    json<SessionSummary[]>("GET", "/api/admin/sessions", undefined, options),
  adminLoops: (id: string, options?: RequestOptions) =>
    json<LoopTreeResponse>("GET", `/api/admin/sessions/${enc(id)}/loops`, undefined, options),
  /** the audit log, newest first: one page, filtered (owners and admins) */
  audit: (query: AuditListQuery, options?: RequestOptions) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined && value !== "") params.set(name, String(value));
    }
    const suffix = params.size > 0 ? `?${params}` : "";
    return json<AuditListResponse>("GET", `/api/audit${suffix}`, undefined, options);
  },
  /** the caller's personal API tokens (Settings › Tokens) */
  listTokens: (options?: RequestOptions) =>
    json<TokenListResponse>("GET", "/api/me/tokens", undefined, options),
  createToken: (body: {
    name: string;
    scope: ApiTokenResponse["scope"];
    expires_at?: string | null;
  }) => json<CreatedTokenResponse>("POST", "/api/me/tokens", body),
  revokeToken: async (id: string) => {
    await request("DELETE", `/api/me/tokens/${enc(id)}`, undefined);
  },
  /** admins: everyone, their roles and budgets; invitations */
  listPeople: (options?: RequestOptions) =>
    json<PeopleResponse>("GET", "/api/people", undefined, options),
  updatePerson: (id: string, patch: { role?: "admin" | "member" | "viewer"; disabled?: boolean }) =>
    json<PersonResponse>("PATCH", `/api/people/${enc(id)}`, patch),
  personBudget: (id: string, options?: RequestOptions) =>
    json<BudgetResponse>("GET", `/api/people/${enc(id)}/budget`, undefined, options),
  setPersonBudget: (id: string, monthlyTokens: number | null) =>
    json<BudgetResponse>("PUT", `/api/people/${enc(id)}/budget`, { monthly_tokens: monthlyTokens }),
  listInvitations: (options?: RequestOptions) =>
    json<InvitationListResponse>("GET", "/api/invitations", undefined, options),
  createInvitation: (body: {
    email?: string | null;
    role: "admin" | "member" | "viewer";
    expires_in_hours?: number;
  }) => json<CreatedInvitationResponse>("POST", "/api/invitations", body),
  revokeInvitation: async (id: string) => {
    await request("DELETE", `/api/invitations/${enc(id)}`, undefined);
  },
  /** checks the audit chain */
  auditVerify: (options?: RequestOptions) =>
    json<AuditVerifyResponse>("GET", "/api/audit/verify", undefined, options),
  /** Settings › Model providers: where each key in force comes from, never a key */
  providerKeys: (options?: RequestOptions) =>
    json<ProviderKeysResponse>("GET", "/api/settings/provider-keys", undefined, options),
  keepProviderKey: (provider: KeyProvider, key: string) =>
    json<ProviderKeysResponse>("PUT", `/api/settings/provider-keys/${enc(provider)}`, { key }),
  removeProviderKey: (provider: KeyProvider) =>
    json<ProviderKeysResponse>("DELETE", `/api/settings/provider-keys/${enc(provider)}`),
};

/** GET /api/audit's parameters (times ISO 8601). */
export interface AuditListQuery {
  cursor?: string | undefined;
  limit?: number | undefined;
  actor?: string | undefined;
  action?: AuditAction | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

/** A message for a banner from anything a request can throw. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.describe();
  if (error instanceof Error) return error.message;
  return String(error);
}
