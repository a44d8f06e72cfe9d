import WebSocket from "ws";
import { type AppOptions, freePort, type ServerProcess, startApp } from "../crash/app-server.js";

// A server's JS heap after a full garbage collection, read through its inspector (the Chrome
// DevTools Protocol over the WebSocket that `--inspect=HOST:PORT` opens): HeapProfiler's
// collectGarbage, then Runtime.getHeapUsage. For benches only: a server started with the
// inspector on must never be one a person uses.

interface Reply {
  id?: number;
  result?: Record<string, unknown>;
  error?: { message: string };
}

export interface InspectedApp {
  app: ServerProcess;
  /** the app's inspector, on loopback: give it to heapAfterGc */
  inspectorPort: number;
}

/** The app on a free port (`options` without one), its inspector on another (loopback only). */
export async function startInspectedApp(options: Omit<AppOptions, "port">): Promise<InspectedApp> {
  const inspectorPort = await freePort();
  const app = await startApp({
    ...options,
    port: await freePort(),
    env: { ...options.env, NODE_OPTIONS: `--inspect=127.0.0.1:${inspectorPort}` },
  });
  return { app, inspectorPort };
}

/** Bytes of JS heap in use after a full GC in the process whose inspector listens on `port`. */
export async function heapAfterGc(port: number): Promise<number> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{
    webSocketDebuggerUrl?: string;
  }>;
  const url = targets[0]?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`no inspector target on port ${port}`);
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  let next = 0;
  const pending = new Map<number, (reply: Reply) => void>();
  socket.on("message", (data) => {
    const reply = JSON.parse(String(data)) as Reply;
    if (reply.id !== undefined) pending.get(reply.id)?.(reply);
  });
  const call = (method: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = ++next;
      pending.set(id, (reply) =>
        reply.error
          ? reject(new Error(`${method}: ${reply.error.message}`))
          : resolve(reply.result ?? {}),
      );
      socket.send(JSON.stringify({ id, method }));
    });
  try {
    // twice: objects freed by the first collection's finalizers go in the second
    await call("HeapProfiler.collectGarbage");
    await call("HeapProfiler.collectGarbage");
    const usage = await call("Runtime.getHeapUsage");
    return Number(usage.usedSize);
  } finally {
    socket.close();
  }
}
