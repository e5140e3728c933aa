/**
 * The app the streaming benches measure: the real `buildApp` over a runtime test dir, with forked workers on the
 * faux model (scripted `turns` at the given pace), no session-folder watching, no idle close and no watchdog.
 * The caller waits for `readSide.ready()` and listens.
 */
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { FauxScript, type FauxTurn } from "../../adapters/runtime-protocol/faux-script.ts";
import type { RuntimeTestDirs } from "../../adapters/runtime-client/runtime-test-support.ts";
import { buildApp } from "../../api/app.ts";

export function buildBenchApp(
  dirs: RuntimeTestDirs,
  turns: readonly FauxTurn[],
  faux: { tokenSize?: number; tokensPerSecond?: number },
): Promise<FastifyInstance> {
  return buildApp({
    dataDir: path.join(dirs.root, "data"),
    agentDir: dirs.agentDir,
    home: dirs.root,
    env: { PI_OFFLINE: "1" },
    watchSessions: false,
    runtimeHostOptions: { idleMs: 0, watchdogMs: 0, fauxScript: new FauxScript([...turns]), faux },
  });
}
