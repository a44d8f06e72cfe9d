// The tool calls of a running "ask N ways" group that wait for a person (parallel-ask.ts). A
// candidate whose call needs approval awaits its decision here while the other candidates go on;
// Session.decideToolCalls hands the decisions over without queueing behind the running group
// (which would wait for itself). Nothing here is stored: the decisions' events are
// (candidate_tool), and the calls' approvals are stored with the candidates' messages.

export type ParallelDecision = "approve" | "deny";

interface Waiting {
  candidate: number;
  toolName: string;
  resolve: (decision: ParallelDecision) => void;
}

export class ParallelApprovals {
  readonly #waiting = new Map<string, Waiting>();
  /** the group's id, once it is numbered (the decisions' events carry it) */
  groupId = "";

  /** true when `toolCallId` waits for a decision here */
  holds(toolCallId: string): boolean {
    return this.#waiting.has(toolCallId);
  }

  get size(): number {
    return this.#waiting.size;
  }

  /** Waits for the call's decision; an abort (interrupt) denies it. */
  wait(
    toolCallId: string,
    candidate: number,
    toolName: string,
    signal: AbortSignal,
  ): Promise<ParallelDecision> {
    if (signal.aborted) return Promise.resolve("deny");
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.#waiting.delete(toolCallId);
        resolve("deny");
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.set(toolCallId, {
        candidate,
        toolName,
        resolve: (decision) => {
          signal.removeEventListener("abort", onAbort);
          this.#waiting.delete(toolCallId);
          resolve(decision);
        },
      });
    });
  }

  /** Whose call `toolCallId` is, while it waits; undefined when none waits under that id. */
  whose(toolCallId: string): { candidate: number; toolName: string } | undefined {
    const waiting = this.#waiting.get(toolCallId);
    return waiting && { candidate: waiting.candidate, toolName: waiting.toolName };
  }

  /** Decides a waiting call; returns whose it was, or undefined when none waits under that id. */
  decide(
    toolCallId: string,
    decision: ParallelDecision,
  ): { candidate: number; toolName: string } | undefined {
    const waiting = this.#waiting.get(toolCallId);
    if (waiting === undefined) return undefined;
    waiting.resolve(decision);
    return { candidate: waiting.candidate, toolName: waiting.toolName };
  }
}
