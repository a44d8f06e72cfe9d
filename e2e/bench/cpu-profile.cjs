// CPU profiles of a server under a bench's load, for `BENCH_APP_NODE_OPTIONS` (run.ts):
//   BENCH_APP_NODE_OPTIONS="--require $PWD/bench/cpu-profile.cjs" CPU_PROFILE_DIR=/tmp/prof \
//     pnpm bench streaming-load
// Node 20 refuses --cpu-prof in NODE_OPTIONS, and run.ts's servers end by a signal: this runs V8's
// sampling profiler through the inspector and writes one profile per 10 s window,
// <dir>/<pid>-<thread>-<n>.cpuprofile (windows with no work are skipped). Open them in Chrome's DevTools.
const inspector = require("node:inspector");
const { writeFileSync } = require("node:fs");
const { join } = require("node:path");
const { threadId } = require("node:worker_threads");

const dir = process.env.CPU_PROFILE_DIR || require("node:os").tmpdir();
const session = new inspector.Session();
session.connect();
session.post("Profiler.enable");
session.post("Profiler.setSamplingInterval", { interval: 200 });
session.post("Profiler.start");
let window = 0;
let lastCpu = process.cpuUsage();
setInterval(() => {
  const cpu = process.cpuUsage(lastCpu);
  lastCpu = process.cpuUsage();
  session.post("Profiler.stop", (error, result) => {
    if (!error && cpu.user + cpu.system > 500_000) {
      writeFileSync(
        join(dir, `${process.pid}-${threadId}-${window}.cpuprofile`),
        JSON.stringify(result.profile),
      );
    }
    window++;
    session.post("Profiler.start");
  });
}, 10_000).unref();
