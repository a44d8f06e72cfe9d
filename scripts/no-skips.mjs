// A skipped test is a test that did not run. Where CI is set (CI=true, as on CI; the README's
// test command installs every tool the tests need), a run with a skipped test fails, naming each
// one and its reason; elsewhere the skipped tests are listed and the run keeps its result
// (docs/decisions/0070). Two reporters over one rule: `VitestNoSkips` for the vitest configs,
// the default export for Playwright (e2e/playwright.config.ts).

const strict = () =>
  process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false";

/** @param {string[]} skipped */
function report(skipped) {
  if (skipped.length === 0) return false;
  const fail = strict();
  const head = fail
    ? `${skipped.length} test(s) skipped, and CI is set: a skipped test fails the run here`
    : `${skipped.length} test(s) skipped (with CI set this run would fail)`;
  process.stderr.write(`\n${head}:\n${skipped.map((s) => `  - ${s}`).join("\n")}\n`);
  return fail;
}

/** Vitest 4 reporter: `reporters: ["default", new VitestNoSkips()]`. */
export class VitestNoSkips {
  /**
   * @param {ReadonlyArray<import("vitest/node").TestModule>} testModules
   */
  onTestRunEnd(testModules) {
    /** @type {string[]} */
    const skipped = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state !== "skipped") continue;
        const why = result.note ? ` (${result.note})` : "";
        skipped.push(`${module.relativeModuleId} > ${test.fullName}${why}`);
      }
    }
    if (report(skipped)) process.exitCode = 1;
  }
}

/**
 * Playwright reporter (the default export), listed in playwright.config.ts's `reporter`. A test is
 * judged by its final outcome: one that did not run in a first attempt (its file's beforeAll
 * failed) and ran in its retry (CI only, decision 0072) is not skipped. Tests that passed only on
 * a retry are listed by name, with the error of their failed attempt, on every run.
 */
export default class PlaywrightNoSkips {
  /** @type {Map<string, { test: import("@playwright/test/reporter").TestCase, failure: string }>} */
  tests = new Map();

  /**
   * @param {import("@playwright/test/reporter").TestCase} test
   * @param {import("@playwright/test/reporter").TestResult} result
   */
  onTestEnd(test, result) {
    const seen = this.tests.get(test.id);
    const failure =
      result.status === "failed" || result.status === "timedOut"
        ? (result.error?.message ?? result.status).split("\n")[0]
        : undefined;
    this.tests.set(test.id, { test, failure: failure ?? seen?.failure ?? "" });
  }

  /** @returns {{ status?: "failed" } | undefined} */
  onEnd() {
    /** @type {string[]} */
    const skipped = [];
    /** @type {string[]} */
    const flaky = [];
    for (const { test, failure } of this.tests.values()) {
      const name = test.titlePath().filter(Boolean).join(" > ");
      const outcome = test.outcome();
      if (outcome === "flaky") flaky.push(`${name}: ${failure}`);
      if (outcome !== "skipped") continue;
      const why = test.annotations
        .filter((a) => a.type === "skip" || a.type === "fixme")
        .map((a) => a.description)
        .filter(Boolean)
        .join("; ");
      skipped.push(`${name}${why ? ` (${why})` : ""}`);
    }
    if (flaky.length > 0) {
      process.stderr.write(
        `\n${flaky.length} test(s) failed and then passed on a retry (flaky: a bug to find, decision 0072):\n${flaky.map((s) => `  - ${s}`).join("\n")}\n`,
      );
    }
    return report(skipped) ? { status: "failed" } : undefined;
  }

  printsToStdio() {
    return false;
  }
}
