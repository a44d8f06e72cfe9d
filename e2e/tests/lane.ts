import { tmpdir } from "node:os";
import { join } from "node:path";

// One lane per Playwright worker for the fake-llm project: each worker's tests talk to servers of
// their own — a fake LLM server, an app pointed at it with its own database, its own copy of the
// fixture workspace and its own MCP config file — so two files that script the fake's answers can
// run at the same time without taking each other's answers (docs/decisions/0079).
// playwright.config.ts starts one lane per worker; a test finds its own from the worker's
// TEST_PARALLEL_INDEX, which Playwright sets in each worker process (0 … workers - 1).

function port(variable: string, fallback: number): number {
  const value = Number(process.env[variable]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

// Ports can be moved (E2E_FAKE_LLM_PORT, E2E_APP_PORT, E2E_OFFLINE_APP_PORT) so two runs can
// share a machine.
const FAKE_LLM_PORT = port("E2E_FAKE_LLM_PORT", 8787);
const APP_PORT = port("E2E_APP_PORT", 3100);
export const OFFLINE_APP_PORT = port("E2E_OFFLINE_APP_PORT", 3101);

/** Lanes are ten ports apart: lane 0 is the base ports, lane 1 the base + 10, … */
const LANE_STRIDE = 10;

export interface Lane {
  index: number;
  fakeLlmPort: number;
  appPort: number;
  /** the copy of fixtures/workspace this lane's app works in (WORKSPACE_DIR) */
  workspace: string;
  /** the lane app's ARBOR_MCP_CONFIG: absent until a spec writes it */
  mcpConfig: string;
}

export function lane(index: number): Lane {
  const appPort = APP_PORT + index * LANE_STRIDE;
  const dir = join(tmpdir(), `arbor-e2e-lane-${appPort}`);
  return {
    index,
    fakeLlmPort: FAKE_LLM_PORT + index * LANE_STRIDE,
    appPort,
    workspace: join(dir, "workspace"),
    mcpConfig: join(dir, "mcp_servers.json"),
  };
}

/** The lane of the worker this code runs in (lane 0 outside a worker). */
export const LANE = lane(port("TEST_PARALLEL_INDEX", 0));

/** The fixture workspace every lane copies at the start of a run. */
export const FIXTURE_WORKSPACE = join(import.meta.dirname, "..", "fixtures", "workspace");
