import {
  type APIRequestContext,
  expect,
  type Locator,
  type Page,
  type TestInfo,
} from "@playwright/test";

// What the flows share: setting up a session through the HTTP API (docs/api.md) when the flow is
// about something else, and the chat page's landmarks, found by role and label as a user (or a
// screen reader) finds them.

export interface CreatedSession {
  session_id: string;
  branch_id: string;
}

export type ApprovalPolicy =
  | { type: "manual" }
  | { type: "auto_approve_all" }
  | { type: "white_list"; tools: string[] }
  | { type: "limited_auto"; max_depth: number };

export interface SessionConfigPatch {
  agent_mode?: "plan" | "act";
  approval_policy?: ApprovalPolicy;
  optimization?: Record<string, unknown>;
  folding?: Record<string, unknown>;
  tool_execution?: "sequential" | "parallel_read_only" | "parallel";
  approve_read_only?: boolean;
  allow_rules?: string[];
  model?: { protocol: string; model: string; context_window?: number; max_tokens?: number };
}

export async function createSession(
  request: APIRequestContext,
  body: { title?: string; config?: SessionConfigPatch } = {},
): Promise<CreatedSession> {
  const response = await request.post("/api/sessions", { data: body });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()) as CreatedSession;
}

export async function patchConfig(
  request: APIRequestContext,
  sessionId: string,
  patch: SessionConfigPatch,
): Promise<void> {
  const response = await request.patch(`/api/sessions/${sessionId}/config`, { data: patch });
  expect(response.status(), await response.text()).toBe(200);
}

export interface StreamedEvent {
  id: number | undefined;
  event: string;
  data: unknown;
}

/** Parses a finished text/event-stream body into its events (comments and blanks skipped). */
export function parseSse(body: string): StreamedEvent[] {
  const events: StreamedEvent[] = [];
  for (const block of body.split(/\r?\n\r?\n/)) {
    let id: number | undefined;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("id:")) id = Number(line.slice(3).trim());
      else if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
    }
    if (event !== undefined) events.push({ id, event, data: JSON.parse(data.join("\n")) });
  }
  return events;
}

/**
 * Sends a text message through the API and waits for the operation to end (the response is the
 * operation's event stream, which closes when it does). For setting up history.
 */
export async function sendViaApi(
  request: APIRequestContext,
  sessionId: string,
  text: string,
): Promise<StreamedEvent[]> {
  const response = await request.post(`/api/sessions/${sessionId}/messages`, {
    data: { session_id: sessionId, payload: { type: "text", text } },
  });
  expect(response.status()).toBe(200);
  const events = parseSse(await response.text());
  const errors = events.filter((e) => e.event === "error");
  expect(errors, JSON.stringify(errors)).toEqual([]);
  return events;
}

export interface ApiMessage {
  id: string;
  role: "user" | "assistant" | "system" | "tool";
  status: string;
  body: { message_type: string; text?: string } & Record<string, unknown>;
}

export async function branchMessages(
  request: APIRequestContext,
  sessionId: string,
  query: { branch?: string; view?: "full" | "optimized" } = {},
): Promise<ApiMessage[]> {
  const params = new URLSearchParams(query);
  const response = await request.get(`/api/sessions/${sessionId}/messages?${params}`);
  expect(response.status()).toBe(200);
  return ((await response.json()) as { messages: ApiMessage[] }).messages;
}

export interface ApiBranch {
  id: string;
  name: string;
  message_ids: string[];
}

export async function listBranches(
  request: APIRequestContext,
  sessionId: string,
): Promise<{ active_branch_id: string; branches: ApiBranch[] }> {
  const response = await request.get(`/api/sessions/${sessionId}/branches`);
  expect(response.status()).toBe(200);
  return (await response.json()) as { active_branch_id: string; branches: ApiBranch[] };
}

// ---- the chat page -----------------------------------------------------------------------
//
// The landmarks read while an answer streams are found by their role and label attributes with
// CSS rather than getByRole: measured on this page, each getByRole query took the whole length
// of a stream (~7 s) to answer while deltas arrived, so a state seen mid-stream was already gone.

export function stateLine(page: Page): Locator {
  return page.locator('[role="status"][aria-label="Session state"]');
}

export function messageBox(page: Page): Locator {
  return page.getByRole("textbox", { name: "Message", exact: true });
}

export function transcript(page: Page): Locator {
  return page.locator('section[aria-label="Transcript"]');
}

export function assistantMessages(page: Page): Locator {
  return transcript(page).locator('article[aria-label="Assistant message"]');
}

export function userMessages(page: Page): Locator {
  return transcript(page).locator('article[aria-label="You message"]');
}

/** Opens a session's chat page and waits until it can take a message. */
export async function openSession(page: Page, sessionId: string): Promise<void> {
  await page.goto(`/sessions/${sessionId}`);
  await expect(messageBox(page)).toBeEnabled();
  // below 640 px the status row (state, meter, model) opens from the header's status button
  if ((page.viewportSize()?.width ?? 1280) < 640) {
    await page.getByRole("button", { name: /: status and tools$/ }).click();
  }
  await expect(stateLine(page)).toBeVisible();
}

/** Types a message into the composer and sends it with Enter, as a user does. */
export async function sendFromComposer(page: Page, text: string): Promise<void> {
  const box = messageBox(page);
  await box.fill(text);
  await box.press("Enter");
  await expect(box).toHaveValue("");
}

/** Keeps a screenshot of the key moment next to the test's other output. */
export async function keepScreenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await page.screenshot({ path: testInfo.outputPath(`${name}.png`), fullPage: true });
}

/**
 * Records every text the state line shows, from before the page's scripts run, so a test can
 * check states that last only a moment (the line re-renders at most once per animation frame).
 * The e2e typecheck has no DOM library, so the browser globals are typed here by what is used.
 */
export async function recordStateLine(page: Page): Promise<void> {
  await page.addInitScript(() => {
    interface BrowserGlobals {
      document: { querySelector(selector: string): { textContent: string | null } | null };
      MutationObserver: new (
        callback: () => void,
      ) => { observe(target: unknown, options: Record<string, boolean>): void };
      __arborStates?: string[];
    }
    const browser = globalThis as unknown as BrowserGlobals;
    const seen: string[] = [];
    browser.__arborStates = seen;
    const record = () => {
      const line = browser.document.querySelector('[role="status"][aria-label="Session state"]');
      const text = line?.textContent?.trim();
      if (text && seen.at(-1) !== text) seen.push(text);
    };
    new browser.MutationObserver(record).observe(browser.document, {
      subtree: true,
      childList: true,
      characterData: true,
    });
  });
}

export async function recordedStates(page: Page): Promise<string[]> {
  return page.evaluate(
    () => (globalThis as unknown as { __arborStates?: string[] }).__arborStates ?? [],
  );
}
