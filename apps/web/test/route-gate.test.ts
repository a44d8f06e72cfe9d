import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import * as sessions from "@/app/api/sessions/route";
import { params, startTestServer, TEST_TOKEN, type TestServer } from "./support";

// API requests with a body do not pass through proxy.ts (Next would hold them until the whole body
// had arrived): the route handlers' `handle` meets them with the same gate. So every exported
// method of every route must be a `handle(...)`, and the gate must answer there as in the proxy.

const API_DIR = fileURLToPath(new URL("../app/api", import.meta.url));

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(path);
    return entry.name === "route.ts" ? [path] : [];
  });
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A POST as it arrives over HTTP: with its Content-Length (a Request built here has none). */
function post(headers: Record<string, string>, body = '{"title":"x"}'): Request {
  return new Request("http://localhost/api/sessions", {
    method: "POST",
    headers: { "content-length": String(Buffer.byteLength(body)), ...headers },
    body,
  });
}

describe("the route handlers' gate", () => {
  it("wraps every exported method of every route in handle()", () => {
    const unwrapped: string[] = [];
    for (const file of routeFiles(API_DIR)) {
      const source = readFileSync(file, "utf8");
      for (const match of source.matchAll(
        /^export (?:const|async function|function) (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\b(.*)$/gm,
      )) {
        if (!/^\s*=\s*handle\(/.test(match[2] ?? ""))
          unwrapped.push(`${relative(API_DIR, file)} ${match[1]}`);
      }
    }
    expect(unwrapped).toEqual([]);
  });

  it("refuses a body request without the token, from another origin, not JSON, or too large", async () => {
    server = await startTestServer();
    const bearer = { authorization: `Bearer ${TEST_TOKEN}` };
    const json = { "content-type": "application/json" };
    const cases: Array<[Record<string, string>, number, string]> = [
      [json, 401, "unauthorized"],
      [{ ...json, authorization: "Bearer wrong" }, 401, "unauthorized"],
      [{ ...bearer, ...json, origin: "http://evil.example" }, 403, "forbidden"],
      [{ ...bearer, ...json, host: "attacker.example" }, 403, "forbidden"],
      [{ ...bearer, "content-type": "text/plain" }, 415, "unsupported_media_type"],
      [{ ...bearer, ...json, "content-length": String(5 * 1024 * 1024) }, 413, "payload_too_large"],
    ];
    for (const [headers, status, error] of cases) {
      const answer = await sessions.POST(post(headers), params({}));
      expect(answer.status, JSON.stringify(headers)).toBe(status);
      expect(await answer.json()).toMatchObject({ error });
      expect(answer.headers.get("x-frame-options")).toBe("DENY");
      expect(answer.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    }
    expect(await server.runtime.manager.list()).toEqual([]);
    const created = await sessions.POST(post({ ...bearer, ...json }), params({}));
    expect(created.status).toBe(201);
    expect(created.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("stops reading a body without Content-Length at the limit", async () => {
    server = await startTestServer();
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 64 * 1024;
        if (pulled > 64 * 1024 * 1024) controller.close();
        else controller.enqueue(new Uint8Array(64 * 1024).fill(32));
      },
    });
    const request = new Request("http://localhost/api/sessions", {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    const answer = await sessions.POST(request, params({}));
    expect(answer.status).toBe(413);
    // read up to the 4 MiB limit and a little more, never the 64 MiB offered
    expect(pulled).toBeLessThan(8 * 1024 * 1024);
  });
});
