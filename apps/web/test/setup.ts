import { TEST_TOKEN } from "./support";

// The route handlers gate every request (lib/server/request-gate.ts) with the install token from
// the environment: the tests' requests carry this one (support.ts authedRequest).
process.env.ARBOR_TOKEN = TEST_TOKEN;
