import { afterEach, describe, expect, it, vi } from "vitest";
import { pollStore } from "./poll.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("pollStore", () => {
  it("rereads every interval, one at a time, reports a failure and tries again, stops when told", async () => {
    vi.useFakeTimers();
    let calls = 0;
    let release: (() => void) | undefined;
    const errors: string[] = [];
    const stop = pollStore(
      () => {
        calls++;
        if (calls === 1) return new Promise<void>((resolve) => (release = resolve));
        if (calls === 2) return Promise.reject(new Error("database gone"));
        return Promise.resolve();
      },
      (error) => errors.push(error.message),
      100,
    );
    await vi.advanceTimersByTimeAsync(350);
    // the first is still running: no second one was started beside it
    expect(calls).toBe(1);
    release?.();
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toBe(2);
    expect(errors).toEqual(["database gone"]);
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toBe(3);
    stop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(3);
  });
});
