import AxeBuilder from "@axe-core/playwright";
import { type Browser, expect, test } from "@playwright/test";
import { type Servers, useServersAndBrowser } from "./harness.js";

// Issue #27's accessibility pass: axe-core (WCAG 2.x A and AA rules, and axe's best practices) on
// the main pages, in light and in dark mode, against the production build. No violation of
// impact "serious" or "critical" may remain; each one found is listed with its elements.

let servers: Servers;
let browser: Browser;
let chatId = "";

useServersAndBrowser({}, (started) => ({ servers, browser } = started));

test.beforeAll(async () => {
  // a chat with messages: a question, a Markdown answer with code, a second exchange
  chatId = await servers.api.createSession({}, "Accessibility check");
  await servers.script([
    {
      blocks: [
        {
          type: "text",
          text: "Here is a list:\n\n- one\n- two\n\n```ts\nconst answer = 42;\n```\n\nAnd a [link](https://example.com).",
        },
      ],
    },
    { blocks: [{ type: "text", text: "A second answer." }] },
  ]);
  await servers.api.send(chatId, { type: "text", text: "Show me a list and some code." });
  await servers.api.send(chatId, { type: "text", text: "And once more." });
});

const PAGES: Array<{ name: string; path: () => string; ready: string }> = [
  { name: "home (session list)", path: () => "/", ready: "Sessions" },
  { name: "a chat with messages", path: () => `/sessions/${chatId}`, ready: "Accessibility check" },
  { name: "settings: account", path: () => "/settings/account", ready: "" },
  { name: "settings: tokens", path: () => "/settings/tokens", ready: "" },
  { name: "admin", path: () => "/admin", ready: "" },
  { name: "admin: people", path: () => "/admin/people", ready: "" },
  { name: "admin: audit log", path: () => "/admin/audit", ready: "Audit log" },
  { name: "admin: a session", path: () => `/admin/sessions/${chatId}`, ready: "" },
];

for (const scheme of ["light", "dark"] as const) {
  for (const target of PAGES) {
    test(`${target.name}, ${scheme}: no serious or critical axe violations`, async () => {
      const context = await browser.newContext({
        viewport: { width: 1440, height: 900 },
        colorScheme: scheme,
      });
      const page = await context.newPage();
      await page.goto(`${servers.url}/?token=${servers.token}`);
      await page.goto(`${servers.url}${target.path()}`);
      await expect(page.locator("html")).toHaveClass(
        scheme === "dark" ? /\bdark\b/ : /^(?!.*\bdark\b)/,
      );
      if (target.ready !== "") {
        await expect(page.getByRole("heading", { name: target.ready }).first()).toBeVisible();
      }
      // the page's data has arrived: no skeleton is left
      await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
      // late data (usage, live events) settles
      await page.waitForTimeout(1_000);
      const results = await new AxeBuilder({ page })
        .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
        .analyze();
      const serious = results.violations.filter(
        (v) => v.impact === "serious" || v.impact === "critical",
      );
      const report = serious.map(
        (v) =>
          `${v.id} (${v.impact}): ${v.help}\n${v.nodes
            .slice(0, 5)
            .map((n) => `  ${n.target.join(" ")}: ${n.failureSummary?.split("\n").join(" ")}`)
            .join("\n")}`,
      );
      expect(report, report.join("\n\n")).toEqual([]);
      await context.close();
    });
  }
}
