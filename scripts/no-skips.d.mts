import type { TestModule } from "vitest/node";

/** Vitest 4 reporter: lists skipped tests; with CI set, a skipped test fails the run. */
export declare class VitestNoSkips {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void;
}

/**
 * Playwright reporter: lists skipped tests (by their final outcome, retries counted) and the tests
 * that passed only on a retry; with CI set, a skipped test fails the run.
 */
export default class PlaywrightNoSkips {
  onTestEnd(test: unknown, result: { status: string; error?: { message?: string } }): void;
  onEnd(): { status?: "failed" } | undefined;
  printsToStdio(): boolean;
}
