// @arbor/db/testing: what other packages' tests need of this one, kept out of the main entry so
// the app never bundles it: a throwaway PostgreSQL 15 cluster (apps/web's audit tests).
export { type PgCluster, pgClusterUnavailableReason, startPgCluster } from "./pg-cluster.js";
