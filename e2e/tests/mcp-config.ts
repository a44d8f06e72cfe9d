import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// The MCP config file of the fake-llm app (ARBOR_MCP_CONFIG). It does not exist at start, so the
// other specs see no MCP tools; mcp.spec.ts writes it (the app watches it) and removes it after.
const port = Number(process.env.E2E_APP_PORT) || 3100;
const dir = join(tmpdir(), `arbor-e2e-mcp-${port}`);
mkdirSync(dir, { recursive: true });

export const MCP_CONFIG = join(dir, "mcp_servers.json");
