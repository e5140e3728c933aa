/**
 * Test-only: a real OTLP/HTTP trace receiver of ours (a node:http server on 127.0.0.1, port 0) for the OTLP export
 * tests. It accepts every POST, keeps the path, headers and body bytes, decodes `application/json` bodies (OTLP JSON:
 * hex ids, string nanosecond times, typed attribute values) into flat spans, and keeps protobuf bodies as bytes.
 * It answers 200 `{}` unless told to answer another status. Not imported by production code.
 */
import http from "node:http";

export const LOOPBACK = "127.0.0.1";

export interface ReceivedExport {
  method: string;
  path: string;
  contentType: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The parsed body of a JSON export, else null. */
  json: unknown;
}

/** One span of an OTLP JSON export, flattened (attribute values decoded to plain JS values). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, unknown>;
  events: { name: string; timeMs: number; attributes: Record<string, unknown> }[];
  status: { code: number; message: string | null };
  resource: Record<string, unknown>;
  scope: string;
}

export interface OtlpReceiver {
  /** http://127.0.0.1:<port> (no trailing slash). */
  readonly url: string;
  readonly received: ReceivedExport[];
  /** The status the next requests are answered with (200 by default). */
  respondWith(status: number): void;
  /** Every span of every JSON export received so far, in arrival order. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedExport[] = [];
  let status = 200;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const contentType = request.headers["content-type"] ?? "";
      const json = contentType.startsWith("application/json") ? parseJson(body) : null;
      received.push({ method: request.method ?? "", path: request.url ?? "", contentType, headers: request.headers, body, json });
      response.writeHead(status, { "content-type": "application/json" });
      response.end(status === 200 ? "{}" : JSON.stringify({ error: `status ${status}` }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: LOOPBACK, port: 0 }, () => resolve());
  });
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the receiver has no address");
  return {
    url: `http://${LOOPBACK}:${address.port}`,
    received,
    respondWith: (next) => {
      status = next;
    },
    spans: () => received.flatMap((entry) => flattenExport(entry.json)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return null;
  }
}

type JsonObject = Record<string, unknown>;

function asObject(value: unknown): JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The spans of one OTLP JSON ExportTraceServiceRequest. */
export function flattenExport(json: unknown): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of asArray(asObject(json).resourceSpans)) {
    const resource = decodeAttributes(asObject(asObject(resourceSpans).resource).attributes);
    for (const scopeSpans of asArray(asObject(resourceSpans).scopeSpans)) {
      const scope = String(asObject(asObject(scopeSpans).scope).name ?? "");
      for (const span of asArray(asObject(scopeSpans).spans)) spans.push(flattenSpan(asObject(span), resource, scope));
    }
  }
  return spans;
}

function flattenSpan(span: JsonObject, resource: Record<string, unknown>, scope: string): ReceivedSpan {
  const status = asObject(span.status);
  const parent = typeof span.parentSpanId === "string" && span.parentSpanId !== "" ? span.parentSpanId : null;
  return {
    traceId: String(span.traceId),
    spanId: String(span.spanId),
    parentSpanId: parent,
    name: String(span.name),
    kind: Number(span.kind ?? 0),
    startMs: nanosToMs(span.startTimeUnixNano),
    endMs: nanosToMs(span.endTimeUnixNano),
    attributes: decodeAttributes(span.attributes),
    events: asArray(span.events).map((event) => {
      const e = asObject(event);
      return { name: String(e.name), timeMs: nanosToMs(e.timeUnixNano), attributes: decodeAttributes(e.attributes) };
    }),
    status: { code: Number(status.code ?? 0), message: typeof status.message === "string" ? status.message : null },
    resource,
    scope,
  };
}

function nanosToMs(value: unknown): number {
  if (typeof value === "string" || typeof value === "number") return Number(BigInt(value) / 1_000_000n);
  return Number.NaN;
}

function decodeAttributes(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of asArray(list)) {
    const { key, value } = asObject(item);
    out[String(key)] = decodeAnyValue(value);
  }
  return out;
}

function decodeAnyValue(value: unknown): unknown {
  const v = asObject(value);
  if ("stringValue" in v) return v.stringValue;
  if ("boolValue" in v) return v.boolValue;
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return Number(v.doubleValue);
  if ("arrayValue" in v) return asArray(asObject(v.arrayValue).values).map(decodeAnyValue);
  return null;
}
