import type { IndexState } from "./index-state.js";
import type { IndexTask, TaskResults } from "./worker-protocol.js";

/** Runs one task against the indexing state (in the worker, or inline in tests). */
export async function runTask(
  state: IndexState,
  task: IndexTask,
): Promise<TaskResults[keyof TaskResults]> {
  switch (task.type) {
    case "open":
      return state.open(task);
    case "update":
      return state.update(task.paths);
    case "rescan":
      return state.rescan();
    case "flush":
      state.flush();
      return null;
    default:
      return task satisfies never;
  }
}
