/** The service routes: backend identity, health and diagnostics, the events socket's upgrade, this document. */
import { Type } from "typebox";
import { EVENTS_PATH } from "../live/live-messages.ts";
import { defineRoute } from "./http-route.ts";

const tags = ["service"];

export const BackendInfo = Type.Object(
  {
    name: Type.Literal("Leyline"),
    version: Type.String(),
    apiVersion: Type.Literal(2),
    capabilities: Type.Record(Type.String(), Type.Boolean()),
  },
  { additionalProperties: false },
);

export const backendInfo = defineRoute("GET", "/api/pi/info", {
  summary: "The backend's identity and the optional features it serves",
  tags,
  response: { 200: BackendInfo },
});

export const health = defineRoute("GET", "/api/health", {
  summary: "Liveness for people: the server answers, and how many workers run",
  tags,
  response: { 200: Type.Object({ ok: Type.Literal(true), activeWorkers: Type.Integer() }) },
});

export const live = defineRoute("GET", "/internal/live", {
  summary: "Liveness probe",
  tags,
  response: { 200: Type.Object({ ok: Type.Literal(true) }) },
});

export const ready = defineRoute("GET", "/internal/ready", {
  summary: "Readiness probe: 503 until the database is migrated and the session index finished its first scan",
  tags,
  response: { 200: Type.Object({ ready: Type.Literal(true) }) },
});

export const diagnostics = defineRoute("GET", "/internal/diagnostics", {
  summary: "Index counts, uptime, folders, memory (no environment values, no secrets)",
  tags,
  response: {
    200: Type.Object(
      {
        version: Type.String(),
        epoch: Type.String(),
        uptimeMs: Type.Number(),
        readSide: Type.Object({ phase: Type.String(), failure: Type.Union([Type.String(), Type.Null()]) }),
        sessionIndex: Type.Union([
          Type.Object({
            ready: Type.Boolean(),
            filesOnDisk: Type.Number(),
            indexed: Type.Number(),
            invalid: Type.Number(),
            watchedFolders: Type.Number(),
          }),
          Type.Null(),
        ]),
        dataDir: Type.String(),
        databaseFile: Type.Union([Type.String(), Type.Null()]),
      },
      { additionalProperties: true },
    ),
  },
});

export const openApiDocument = defineRoute("GET", "/api/openapi.json", {
  summary: "This OpenAPI document, generated from the contract's schemas",
  tags,
  response: {
    200: Type.Object({ openapi: Type.String(), paths: Type.Object({}, { additionalProperties: true }) }, { additionalProperties: true }),
  },
});

export const eventsSocket = defineRoute("GET", EVENTS_PATH, {
  summary: "The events WebSocket: session list, the focused session's detail, runtime events (snapshot, then deltas)",
  description:
    "Upgrade to a WebSocket (a plain GET answers 426). The messages in both directions are declared in domain/contract/events-socket.ts.",
  tags,
  querystring: Type.Object({
    sessionId: Type.Optional(Type.String({ description: "The session to focus: its full snapshot and detail." })),
    stream: Type.Optional(Type.String({ description: "A stream id from `hello`, to resume it." })),
    after: Type.Optional(Type.String({ description: "The last seq received on that stream." })),
  }),
  response: { 101: Type.Null({ description: "Switching protocols: the socket is open." }) },
});
export const SERVICE_ROUTES = [backendInfo, health, live, ready, diagnostics, openApiDocument, eventsSocket] as const;
