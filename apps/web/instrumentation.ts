// Runs once when the server starts (Next's instrumentation hook). The runtime is created now
// rather than on the first request, so that its start-up work happens at start: tool process
// groups a previous server left running (killed with -9) are killed before anyone waits on them.

export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { getRuntime } = await import("./lib/server/runtime");
  const { createRedactingLogger } = await import("./lib/server/logger");
  // a failed start is retried by the first request; the server stays up to answer it
  await getRuntime().catch((error: unknown) => {
    createRedactingLogger().error("the runtime did not start", {
      error: error instanceof Error ? error.message : String(error),
    });
  });
}
