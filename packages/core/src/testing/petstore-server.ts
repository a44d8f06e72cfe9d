import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

// A local HTTP server implementing the Swagger Petstore (fixtures/petstore.openapi.yaml) under
// `/v2`, its servers URL's path: pets, orders and users in memory, the spec's status codes (404
// for an unknown pet, 400 for an invalid id), and optionally an API key the requests must carry
// (the spec's `api_key` header scheme). Every request is recorded, for tests that check what the
// OpenAPI tools sent.

/** fixtures/petstore.openapi.yaml (the same path from src/testing and dist/testing). */
export function petstoreSpecPath(): string {
  return fileURLToPath(new URL("../../fixtures/petstore.openapi.yaml", import.meta.url));
}

export interface PetstoreRequest {
  method: string;
  /** path and query, as received */
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface PetstoreServerOptions {
  /** when set, every request needs this header with this value (else 401) */
  auth?: { header: string; value: string };
  /** the bytes of GET /v2/pet/{id} for the pet named "bigdog" are padded to this size */
  bigPetBytes?: number;
}

export interface PetstoreServer {
  /** `http://127.0.0.1:PORT/v2`: the base URL to put in place of the spec's servers */
  readonly baseUrl: string;
  readonly requests: PetstoreRequest[];
  close(): Promise<void>;
}

interface Pet {
  id: number;
  name: string;
  photoUrls: string[];
  category?: { id?: number; name?: string };
  tags?: Array<{ id?: number; name?: string }>;
  status?: "available" | "pending" | "sold";
  [key: string]: unknown;
}

type Json = Record<string, unknown>;

export async function startPetstoreServer(
  options: PetstoreServerOptions = {},
): Promise<PetstoreServer> {
  const pets = new Map<number, Pet>([
    [
      1,
      {
        id: 1,
        name: "doggie",
        photoUrls: [],
        status: "available",
        tags: [{ id: 1, name: "good" }],
      },
    ],
    [2, { id: 2, name: "kitty", photoUrls: [], status: "pending" }],
    [3, { id: 3, name: "bigdog", photoUrls: [], status: "sold" }],
  ]);
  const orders = new Map<number, Json>();
  const users = new Map<string, Json>([["user1", { id: 1, username: "user1", firstName: "Ada" }]]);
  let nextPetId = 100;
  const requests: PetstoreRequest[] = [];

  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
      }
      requests.push({ method: req.method ?? "GET", url: req.url ?? "/", headers, body });
      try {
        route(req, res, body);
      } catch (error) {
        send(res, 500, { code: 500, type: "error", message: String(error) });
      }
    });
  });

  function route(req: IncomingMessage, res: ServerResponse, body: string): Sent {
    const url = new URL(req.url ?? "/", "http://petstore.local");
    const method = req.method ?? "GET";
    if (options.auth !== undefined) {
      const given = req.headers[options.auth.header.toLowerCase()];
      if (given !== options.auth.value) {
        return send(res, 401, { code: 401, type: "error", message: "missing or wrong API key" });
      }
    }
    if (!url.pathname.startsWith("/v2/")) return notFound(res, "no such path");
    const parts = url.pathname.slice(4).split("/").map(decodeURIComponent);
    const json = (): Json | undefined => {
      try {
        const parsed: unknown = JSON.parse(body);
        return typeof parsed === "object" && parsed !== null ? (parsed as Json) : undefined;
      } catch {
        return undefined;
      }
    };
    const [top, second, third] = parts;
    if (top === "pet") {
      if (second === undefined) {
        const input = json();
        if (input === undefined || typeof input.name !== "string") {
          return send(res, 405, { code: 405, type: "error", message: "Invalid input" });
        }
        if (method === "POST") {
          const pet: Pet = { photoUrls: [], ...input, name: input.name, id: nextPetId++ };
          pets.set(pet.id, pet);
          return send(res, 200, pet);
        }
        if (method === "PUT") {
          const id = Number(input.id);
          if (!pets.has(id)) return notFound(res, "Pet not found");
          const pet = { ...(pets.get(id) as Pet), ...input, id } as Pet;
          pets.set(id, pet);
          return send(res, 200, pet);
        }
        return notAllowed(res);
      }
      if (second === "findByStatus" && method === "GET") {
        const wanted = url.searchParams.getAll("status").flatMap((s) => s.split(","));
        return send(
          res,
          200,
          [...pets.values()].filter((p) => p.status !== undefined && wanted.includes(p.status)),
        );
      }
      if (second === "findByTags" && method === "GET") {
        const wanted = url.searchParams.getAll("tags").flatMap((s) => s.split(","));
        return send(
          res,
          200,
          [...pets.values()].filter((p) => p.tags?.some((t) => wanted.includes(t.name ?? ""))),
        );
      }
      const id = Number(second);
      if (!Number.isInteger(id)) {
        return send(res, 400, { code: 400, type: "error", message: "Invalid ID supplied" });
      }
      const pet = pets.get(id);
      if (third === "uploadImage" && method === "POST") {
        if (pet === undefined) return notFound(res, "Pet not found");
        return send(res, 200, { code: 200, type: "unknown", message: `${body.length} bytes` });
      }
      if (third !== undefined) return notFound(res, "no such path");
      if (pet === undefined) return notFound(res, "Pet not found");
      if (method === "GET") {
        if (pet.name === "bigdog" && options.bigPetBytes !== undefined) {
          return send(res, 200, { ...pet, padding: "é".repeat(options.bigPetBytes) });
        }
        return send(res, 200, pet);
      }
      if (method === "POST") {
        const name = url.searchParams.get("name");
        const status = url.searchParams.get("status");
        if (name !== null) pet.name = name;
        if (status === "available" || status === "pending" || status === "sold") {
          pet.status = status;
        }
        return send(res, 200, pet);
      }
      if (method === "DELETE") {
        pets.delete(id);
        return send(res, 200, { code: 200, type: "unknown", message: String(id) });
      }
      return notAllowed(res);
    }
    if (top === "store") {
      if (second === "inventory" && method === "GET") {
        const counts: Record<string, number> = {};
        for (const pet of pets.values()) {
          if (pet.status !== undefined) counts[pet.status] = (counts[pet.status] ?? 0) + 1;
        }
        return send(res, 200, counts);
      }
      if (second === "order" && third === undefined && method === "POST") {
        const input = json();
        if (input === undefined) return send(res, 400, { code: 400, message: "Invalid Order" });
        const id = typeof input.id === "number" ? input.id : orders.size + 1;
        const order = { status: "placed", complete: false, ...input, id };
        orders.set(id, order);
        return send(res, 200, order);
      }
      if (second === "order" && third !== undefined) {
        const id = Number(third);
        if (!Number.isInteger(id)) return send(res, 400, { code: 400, message: "Invalid ID" });
        const order = orders.get(id);
        if (order === undefined) return notFound(res, "Order not found");
        if (method === "GET") return send(res, 200, order);
        if (method === "DELETE") {
          orders.delete(id);
          return send(res, 200, { code: 200, message: String(id) });
        }
      }
      return notFound(res, "no such path");
    }
    if (top === "user") {
      if (second === undefined && method === "POST") {
        const input = json();
        if (input === undefined || typeof input.username !== "string") {
          return send(res, 400, { code: 400, message: "Invalid user" });
        }
        users.set(input.username, input);
        return send(res, 200, input);
      }
      if ((second === "createWithArray" || second === "createWithList") && method === "POST") {
        let list: unknown;
        try {
          list = JSON.parse(body);
        } catch {
          list = undefined;
        }
        if (!Array.isArray(list)) return send(res, 400, { code: 400, message: "expected a list" });
        for (const user of list as Json[]) {
          if (typeof user.username === "string") users.set(user.username, user);
        }
        return send(res, 200, { code: 200, message: `${list.length} users` });
      }
      if (second === "login" && method === "GET") {
        const username = url.searchParams.get("username");
        if (username === null || url.searchParams.get("password") === null) {
          return send(res, 400, { code: 400, message: "Invalid username/password supplied" });
        }
        res.setHeader("X-Rate-Limit", "5000");
        return send(res, 200, `logged in user session:${username}`);
      }
      if (second === "logout" && method === "GET") return send(res, 200, { code: 200 });
      if (second !== undefined) {
        const user = users.get(second);
        if (user === undefined) return notFound(res, "User not found");
        if (method === "GET") return send(res, 200, user);
        if (method === "PUT") {
          users.set(second, { ...user, ...json() });
          return send(res, 200, users.get(second));
        }
        if (method === "DELETE") {
          users.delete(second);
          return send(res, 200, { code: 200, message: second });
        }
      }
      return notAllowed(res);
    }
    return notFound(res, "no such path");
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v2`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", () => resolve(""));
  });
}

/** What a route returns: the answer was written. */
type Sent = true;

function send(res: ServerResponse, status: number, body: unknown): Sent {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
  return true;
}

function notFound(res: ServerResponse, message: string): Sent {
  return send(res, 404, { code: 1, type: "error", message });
}

function notAllowed(res: ServerResponse): Sent {
  return send(res, 405, { code: 405, type: "error", message: "Method not allowed" });
}
