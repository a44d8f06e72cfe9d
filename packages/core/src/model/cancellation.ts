// Cancellation tree (REQ-033 / REQ-140): a run owns a root AbortController; every tool call gets a
// child linked to it. Aborting a parent aborts every live child; a child never aborts its parent.
// The link is one listener on the parent, removed by `dispose()` so long runs with many tool
// calls do not pile listeners up on the run's signal.

export interface ChildAbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
  /** Unlink from the parent. Idempotent; call it when the child's work is finished. */
  dispose(): void;
}

export function childAbortController(parent?: AbortSignal): ChildAbortController {
  const controller = new AbortController();
  if (parent === undefined) {
    return {
      signal: controller.signal,
      abort: (reason) => controller.abort(reason),
      dispose: () => {},
    };
  }
  if (parent.aborted) {
    controller.abort(parent.reason);
    return {
      signal: controller.signal,
      abort: (reason) => controller.abort(reason),
      dispose: () => {},
    };
  }
  const onParentAbort = (): void => controller.abort(parent.reason);
  parent.addEventListener("abort", onParentAbort, { once: true });
  let linked = true;
  const dispose = (): void => {
    if (!linked) return;
    linked = false;
    parent.removeEventListener("abort", onParentAbort);
  };
  return {
    signal: controller.signal,
    abort: (reason) => {
      dispose();
      controller.abort(reason);
    },
    dispose,
  };
}

/** Resolves after `ms`, or early (with false) when `signal` aborts. Leaves no timer or listener behind. */
export function abortableDelay(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
