/**
 * Test-only server process for test/security/slow-readers.int.test.ts:
 * `node --import tsx test/security/slow-readers-server.fixture.ts <tokensPerSecond>`.
 *
 * What api/main.ts runs (buildApp over PI_CODING_AGENT_DIR, LEYLINE_DATA_DIR and LEYLINE_FAUX_RESPONSES from
 * the environment, forked workers, warnings to stderr, one `Leyline listening on <url>` line on stdout,
 * SIGTERM closes the app), plus the faux streaming speed, a runtime-host option with no environment variable.
 * A paced stream is what a real provider gives: at full speed the faux model streams a long reply in one run
 * of microtasks, and the worker's event loop (IPC writes, heartbeats) stalls until it ends.
 */
import { buildApp } from "../../api/app.ts";

const tokensPerSecond = Number(process.argv[2] ?? "");
if (!Number.isFinite(tokensPerSecond) || tokensPerSecond <= 0) {
  process.stderr.write("usage: slow-readers-server.fixture.ts <tokensPerSecond>\n");
  process.exit(2);
}

const api: { url: string | undefined } = { url: undefined };
const app = await buildApp({
  logger: { level: "warn", stream: process.stderr },
  runtimeHostOptions: { apiUrl: () => api.url, faux: { tokensPerSecond } },
});
await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address();
if (address === null || typeof address === "string") throw new Error("the server has no TCP address");
api.url = `http://127.0.0.1:${address.port}`;
process.stdout.write(`Leyline listening on ${api.url}\n`);
process.once("SIGTERM", () => {
  void app.close().finally(() => process.exit(0));
});
