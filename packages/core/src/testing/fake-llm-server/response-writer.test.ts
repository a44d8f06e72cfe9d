import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { closedFlag, writeStream } from "./response-writer.js";

// The frame writer against a real socket: a client that goes away must stop the writing.

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => {
    server?.close(resolve);
    server?.closeAllConnections();
  });
  server = undefined;
});

describe("writeStream", () => {
  it("stops writing once the client disconnects", async () => {
    const frames = Array.from({ length: 200 }, (_, i) => `data: ${i}\n\n`);
    let written = 0;
    let finished: Promise<void> | undefined;
    server = createServer((_req, res) => {
      const write = res.write.bind(res);
      res.write = ((...args: Parameters<typeof write>) => {
        written += 1;
        return write(...args);
      }) as typeof res.write;
      res.writeHead(200, { "content-type": "text/event-stream" });
      finished = writeStream(res, frames, { chunkDelayMs: 5 }, closedFlag(res), async () => {});
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;

    const response = await fetch(`http://127.0.0.1:${port}/`);
    const reader = response.body?.getReader();
    await reader?.read();
    await reader?.cancel();
    await finished;
    const writtenAtStop = written;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(writtenAtStop).toBeLessThan(frames.length / 2);
    expect(written).toBe(writtenAtStop);
  });
});
