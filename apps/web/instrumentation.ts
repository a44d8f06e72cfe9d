// Runs once when the server starts (Next's instrumentation hook). It prints the URL that carries
// the install's token (made now at first start), as Jupyter does. The runtime is created now
// rather than on the first request, so that its start-up work happens at start: tool process
// groups a previous server left running (killed with -9) are killed before anyone waits on them.
// A SIGTERM drains the server before it exits (lib/server/shutdown.ts). The OpenTelemetry export
// (lib/server/telemetry/, docs/observability.md) starts first, before anything asks
// @opentelemetry/api for a tracer or meter; a bad OTEL_* value stops the start with a message
// naming the variable rather than exporting nothing in silence.

export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { createRedactingLogger } = await import("./lib/server/logger");
  const telemetryLog = createRedactingLogger();
  const { describeTelemetry, startTelemetry } = await import("./lib/server/telemetry/telemetry");
  try {
    const telemetry = await startTelemetry(process.env, {
      warn: (message) => telemetryLog.warn(message),
      error: (message) => telemetryLog.error(message),
    });
    if (telemetry.kind === "export") console.log(`[arbor] ${describeTelemetry(telemetry)}`);
  } catch (error) {
    console.error(
      `[arbor] cannot start: ${error instanceof Error ? error.message : String(error)} (docs/observability.md)`,
    );
    process.exit(1);
  }
  const { installToken } = await import("./lib/server/install-token");
  const host = process.env.HOST?.trim() || "127.0.0.1";
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  const port = process.env.PORT?.trim() || "3000";
  const origin = `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}`;
  const token = installToken(process.env);
  const { getRuntime, startedRuntime } = await import("./lib/server/runtime");
  // SIGTERM/SIGINT drain the server (end the event streams, finish or interrupt the running
  // operations, close the store) before it exits: lib/server/shutdown.ts
  const { installShutdown } = await import("./lib/server/shutdown");
  installShutdown(startedRuntime);
  // a start that cannot work (a native part built for another Node.js, a configuration the
  // runtime refuses) says why and how to fix it, and exits: lib/server/start-check.ts
  const { cannotStart, checkNativeParts } = await import("./lib/server/start-check");
  try {
    await checkNativeParts();
    await getRuntime();
  } catch (error: unknown) {
    const refused = cannotStart(error);
    if (refused !== undefined) {
      console.error(refused);
      process.exit(1);
    }
    // anything else (a database not up yet) is retried by the first request; the server stays
    // up to answer it
    createRedactingLogger().error("the runtime did not start; the next request tries again", {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  console.log(`Arbor is running at ${origin}/?token=${token}`);
}
