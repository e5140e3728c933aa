/**
 * The real Leyline server for browser tests: `buildApp()` (api/app.ts) serving the built client from web/dist,
 * listening on 127.0.0.1 with a free port, over a temp pi agent dir (PI_CODING_AGENT_DIR), a temp Leyline
 * data dir (LEYLINE_DATA_DIR) and a faux script file (LEYLINE_FAUX_RESPONSES). Runtimes run in real worker
 * processes. Built in-process rather than spawned (`node --import tsx api/main.ts`) for one reason: the faux
 * streaming speed (`tokensPerSecond`) is a runtime-host option with no environment variable, and the tests
 * need slow, observable streaming.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import type { FauxTurn } from "../../../adapters/runtime-protocol/faux-script.ts";
import { buildApp } from "../../../api/app.ts";
import { WEB_DIST_DIR } from "./client-build.ts";

export interface E2eServerOptions {
  /** The faux script (written to a file named by LEYLINE_FAUX_RESPONSES). */
  turns: FauxTurn[];
  /** Faux streaming speed (tokens of ~4 characters per second); default: as fast as possible. */
  tokensPerSecond?: number;
  /** Runs before the server starts, e.g. to write existing session files. */
  seed?: (dirs: E2eDirs) => void;
}

export interface E2eDirs {
  root: string;
  /** PI_CODING_AGENT_DIR */
  agentDir: string;
  /** `<agentDir>/sessions` */
  sessionsDir: string;
  /** LEYLINE_DATA_DIR */
  dataDir: string;
  /** The project folder sessions run in (`<home>/project`). */
  projectDir: string;
  /** The home folder GET /api/pi/fs shows as `~`. */
  home: string;
}

export interface E2eServer extends E2eDirs {
  readonly app: FastifyInstance;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Every session file below the sessions dir, sorted. */
  sessionFiles(): string[];
  close(): Promise<void>;
}

function listJsonl(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listJsonl(full);
    return entry.name.endsWith(".jsonl") ? [full] : [];
  });
}

export function createE2eDirs(): E2eDirs {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "leyline-e2e-")));
  const agentDir = path.join(root, "agent");
  const sessionsDir = path.join(agentDir, "sessions");
  const home = path.join(root, "home");
  const projectDir = path.join(home, "project");
  fs.mkdirSync(sessionsDir, { recursive: true });
  fs.mkdirSync(projectDir, { recursive: true });
  fs.writeFileSync(path.join(projectDir, "README.md"), "# Demo project\n\nA folder the browser tests work in.\n");
  // No automatic compaction or retries in a tiny scripted conversation (as the runtime tests do).
  fs.writeFileSync(path.join(agentDir, "settings.json"), JSON.stringify({ compaction: { enabled: false }, retry: { enabled: false } }));
  return { root, agentDir, sessionsDir, dataDir: path.join(root, "data"), projectDir, home };
}

/** Starts the server; wait for nothing else: it resolves once the session index is ready. */
export async function startE2eServer(options: E2eServerOptions): Promise<E2eServer> {
  const dirs = createE2eDirs();
  options.seed?.(dirs);
  const scriptFile = path.join(dirs.root, "faux-script.json");
  fs.writeFileSync(scriptFile, JSON.stringify(options.turns, null, 2));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PI_OFFLINE: "1",
    PI_CODING_AGENT_DIR: dirs.agentDir,
    LEYLINE_DATA_DIR: dirs.dataDir,
    LEYLINE_FAUX_RESPONSES: scriptFile,
    // Network access (Settings): the relay binds loopback only in tests, never 0.0.0.0.
    LEYLINE_NETWORK_ACCESS_HOST: "127.0.0.1",
  };
  // As api/main.ts does: workers learn the API base URL (LEYLINE_API_URL, used by the subagent extension) once
  // the server listens, and one spare worker waits (pi imported, no session) for the first action.
  const api: { url: string | undefined } = { url: undefined };
  const app = await buildApp({
    env,
    webDistDir: WEB_DIST_DIR,
    dataDir: dirs.dataDir,
    agentDir: dirs.agentDir,
    home: dirs.home,
    runtimeHostOptions: {
      apiUrl: () => api.url,
      spareWorker: true,
      ...(options.tokensPerSecond !== undefined ? { faux: { tokensPerSecond: options.tokensPerSecond } } : {}),
    },
  });
  try {
    await app.listen({ host: "127.0.0.1", port: 0 });
    await app.leyline.readSide.ready();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("the server has no TCP address");
  api.url = `http://127.0.0.1:${address.port}`;
  let closed = false;
  return {
    ...dirs,
    app,
    url: `http://127.0.0.1:${address.port}`,
    sessionFiles: () => listJsonl(dirs.sessionsDir).sort(),
    close: async () => {
      if (closed) return;
      closed = true;
      await app.close();
      fs.rmSync(dirs.root, { recursive: true, force: true });
    },
  };
}
