/**
 * list_wire_bytes: the session list of the corpus (GET /api/pi/sessions, 2,000 sessions at full scale) on the
 * wire as a browser gets it, over the 200 KB the product promises (target ≤ 1).
 *
 * Setup: the real app (`buildApp`, `app.inject`, no port) over the corpus' agent dir and a fresh data dir,
 * once its read side is ready. The request carries a browser's `Accept-Encoding: gzip, deflate, br, zstd`;
 * the figure is the encoded body's size / 200,000 bytes. The sanity check: the body is encoded, decodes to
 * exactly the identity response (same request without Accept-Encoding) and lists every corpus session.
 * Details: the sizes in KB (identity, br, gzip) and, as subject/baseline, the median time to answer the
 * encoded and the identity request (compression's cost; not part of the target); `socketKb`: what the client
 * reads on WS /api/pi/events up to the same list's `session_list` snapshot (its opening messages included),
 * with permessage-deflate as browsers negotiate it (deflate, per message: no brotli there).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import WebSocket from "ws";
import { buildApp } from "../../api/app.ts";
import type { Corpus } from "./corpus.ts";
import { measuredFigure, type Figure } from "./figure.ts";
import { alternate, median, round, type AlternateOptions } from "./measure.ts";

export const LIST_WIRE_TARGET = 1.0;
/** The promise: the 2,000-session list is under 200 KB on the wire. */
export const LIST_WIRE_BUDGET_BYTES = 200_000;

const DESCRIPTION = "GET /api/pi/sessions as a browser gets it (Accept-Encoding: gzip, deflate, br, zstd), bytes / 200 KB";
const BROWSER_ACCEPT_ENCODING = "gzip, deflate, br, zstd";

function decode(response: LightMyRequestResponse): string {
  const encoding = response.headers["content-encoding"];
  const raw = response.rawPayload;
  if (encoding === undefined) return raw.toString("utf8");
  if (encoding === "br") return zlib.brotliDecompressSync(raw).toString("utf8");
  if (encoding === "gzip") return zlib.gunzipSync(raw).toString("utf8");
  throw new Error(`unexpected content-encoding ${String(encoding)}`);
}

/** Bytes a permessage-deflate client reads on the events socket until the session list's snapshot. */
async function socketListBytes(app: FastifyInstance): Promise<number> {
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  const socket = new WebSocket(`ws://127.0.0.1:${address.port}/api/pi/events?sessionId=`, { perMessageDeflate: true });
  try {
    return await new Promise<number>((resolve, reject) => {
      socket.on("message", (data: Buffer) => {
        if ((JSON.parse(data.toString("utf8")) as { type: string }).type !== "session_list") return;
        resolve((socket as unknown as { _socket: { bytesRead: number } })._socket.bytesRead);
      });
      socket.on("error", reject);
    });
  } finally {
    socket.close();
  }
}

export async function benchListWire(corpus: Corpus, options: AlternateOptions): Promise<{ list_wire_bytes: Figure }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-bench-wire-"));
  const app = await buildApp({ dataDir, agentDir: corpus.agentDir, env: {}, watchSessions: false });
  try {
    await app.leyline.readSide.ready();
    const get = (acceptEncoding: string | null): Promise<LightMyRequestResponse> =>
      app.inject({
        method: "GET",
        url: "/api/pi/sessions",
        headers: acceptEncoding === null ? {} : { "accept-encoding": acceptEncoding },
      });
    const identity = await get(null);
    const browser = await get(BROWSER_ACCEPT_ENCODING);
    const gzip = await get("gzip");
    const problems: string[] = [];
    const listed = (JSON.parse(identity.body) as { sessions: unknown[] }).sessions.length;
    if (listed !== corpus.files.length) problems.push(`listed ${listed} of ${corpus.files.length} sessions`);
    for (const [name, response] of [
      ["browser", browser],
      ["gzip", gzip],
    ] as const) {
      if (response.headers["content-encoding"] === undefined) problems.push(`${name} response not encoded`);
      else if (decode(response) !== identity.body) problems.push(`${name} response does not decode to the identity body`);
    }
    const samples = await alternate({ encoded: { run: () => get(BROWSER_ACCEPT_ENCODING) }, identity: { run: () => get(null) } }, options);
    const kb = (bytes: number): number => round(bytes / 1000, 1);
    const socketBytes = await socketListBytes(app);
    return {
      list_wire_bytes: measuredFigure(DESCRIPTION, round(browser.rawPayload.length / LIST_WIRE_BUDGET_BYTES, 3), LIST_WIRE_TARGET, {
        sessions: listed,
        encoding: browser.headers["content-encoding"] ?? "identity",
        wireKb: kb(browser.rawPayload.length),
        gzipKb: kb(gzip.rawPayload.length),
        identityKb: kb(identity.rawPayload.length),
        socketKb: kb(socketBytes),
        subjectMs: round(median(samples.encoded), 1),
        baselineMs: round(median(samples.identity), 1),
        check: problems.length === 0 ? "ok" : problems.join("; "),
      }),
    };
  } finally {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
