/**
 * The native backend's own routes under /api/leyline (spec "Connection registry", "App settings", "Pinned
 * sessions"): saved connections to other Leyline backends, the app setting ui.thinking_default and pinned
 * session ids per connection. They are stored in this backend's leyline.sqlite whichever backend a window
 * talks to. Network access has its own file (http-network-access.ts).
 *
 * Bodies are checked loosely here (types) and by the rules of domain/native-app/native-records.ts in the routes
 * (trimming, lengths, URL rules), so every refusal reads the same: `{ error }` with 400. Unknown ids answer 404.
 */
import { Type, type Static } from "typebox";
import {
  CONNECTION_NAME_MAX,
  PINNED_ID_MAX,
  PRUNE_IDS_MAX,
  THINKING_DEFAULTS,
  type BackendRegistry as BackendRegistryType,
  type PinnedSessions as PinnedSessionsType,
} from "../native-app/native-records.ts";
import { defineRoute } from "./http-route.ts";
import { failsWith, literals, type SameType } from "./schema-kit.ts";

const connectionTags = ["connections"];
const settingTags = ["app settings"];
const pinTags = ["pinned sessions"];

export const BackendConnection = Type.Object(
  {
    id: Type.String({ description: "A saved connection's id (never the native backend's reserved `builtin`)." }),
    name: Type.String({ maxLength: CONNECTION_NAME_MAX }),
    url: Type.String({ description: "scheme://host[:port][/base/path] of the other Leyline backend." }),
    createdAt: Type.Number({ description: "Milliseconds since the epoch." }),
    updatedAt: Type.Number(),
  },
  { title: "BackendConnection", additionalProperties: false },
);

export const BackendRegistry = Type.Object(
  {
    connections: Type.Array(BackendConnection, { description: "Saved connections, oldest first; the native backend is not listed." }),
    defaultConnectionId: Type.String({ description: "The connection a new window starts on: a saved id or `builtin`." }),
  },
  { title: "BackendRegistry", additionalProperties: false },
);

const _registry: SameType<Static<typeof BackendRegistry>, BackendRegistryType> = true;

const ConnectionIdParams = Type.Object({ id: failsWith(Type.String({ minLength: 1 }), "id must be a non-empty string") });

export const listConnections = defineRoute("GET", "/api/leyline/connections", {
  summary: "The saved backend connections and the default one",
  tags: connectionTags,
  response: { 200: BackendRegistry },
});

export const createConnection = defineRoute("POST", "/api/leyline/connections", {
  summary: "Save a connection to another Leyline backend",
  description: `name: 1 to ${CONNECTION_NAME_MAX} characters after trimming. url: http or https with a host, optional port and base path; no credentials, query or fragment.`,
  tags: connectionTags,
  body: Type.Object({ name: Type.Optional(Type.Unknown()), url: Type.Optional(Type.Unknown()) }),
  response: { 201: BackendRegistry },
});

export const updateConnection = defineRoute("PATCH", "/api/leyline/connections/:id", {
  summary: "Rename a saved connection or change its URL",
  tags: connectionTags,
  params: ConnectionIdParams,
  body: Type.Object({ name: Type.Optional(Type.Unknown()), url: Type.Optional(Type.Unknown()) }),
  response: { 200: BackendRegistry },
});

export const deleteConnection = defineRoute("DELETE", "/api/leyline/connections/:id", {
  summary: "Remove a saved connection (and its pins); the default returns to builtin when it was this one",
  tags: connectionTags,
  params: ConnectionIdParams,
  response: { 200: BackendRegistry },
});

export const setDefaultConnection = defineRoute("PUT", "/api/leyline/connections/default", {
  summary: "Choose the connection new windows start on",
  tags: connectionTags,
  body: Type.Object({ id: Type.Optional(Type.Unknown()) }),
  response: { 200: BackendRegistry },
});

export const AppSetting = Type.Object(
  {
    key: Type.Literal("ui.thinking_default"),
    value: Type.Union([Type.Literal(""), literals(THINKING_DEFAULTS)], {
      description: '"" when no value is stored (the client uses collapsed).',
    }),
  },
  { title: "AppSetting", additionalProperties: false },
);

const SettingKeyParams = Type.Object({ key: failsWith(Type.String({ minLength: 1 }), "key must be a non-empty string") });

export const getAppSetting = defineRoute("GET", "/api/leyline/settings/:key", {
  summary: "An app setting of the native backend (only ui.thinking_default)",
  tags: settingTags,
  params: SettingKeyParams,
  response: { 200: AppSetting },
});

export const putAppSetting = defineRoute("PUT", "/api/leyline/settings/:key", {
  summary: "Store an app setting (ui.thinking_default: collapsed or expanded)",
  tags: settingTags,
  params: SettingKeyParams,
  body: Type.Object({ value: Type.Optional(Type.Unknown()) }),
  response: { 200: AppSetting },
});

export const PinnedSessions = Type.Object(
  {
    connectionId: Type.String(),
    pinnedIds: Type.Array(Type.String({ maxLength: PINNED_ID_MAX }), { description: "In the order they were pinned." }),
  },
  { title: "PinnedSessions", additionalProperties: false },
);

const _pins: SameType<Static<typeof PinnedSessions>, PinnedSessionsType> = true;
void [_registry, _pins];

const pinQueryField = (name: string) => failsWith(Type.String(), { type: `${name} must be a string`, required: `${name} is required` });

export const listPinnedSessions = defineRoute("GET", "/api/leyline/pinned-sessions", {
  summary: "The pinned session ids of one connection",
  tags: pinTags,
  querystring: Type.Object({ connectionId: pinQueryField("connectionId") }),
  response: { 200: PinnedSessions },
});

export const pinSession = defineRoute("POST", "/api/leyline/pinned-sessions", {
  summary: "Pin a session of one connection (at most 200 per connection)",
  tags: pinTags,
  body: Type.Object({ connectionId: Type.Optional(Type.Unknown()), sessionId: Type.Optional(Type.Unknown()) }),
  response: { 201: PinnedSessions },
});

export const unpinSession = defineRoute("DELETE", "/api/leyline/pinned-sessions", {
  summary: "Unpin a session of one connection",
  tags: pinTags,
  querystring: Type.Object({ connectionId: pinQueryField("connectionId"), sessionId: pinQueryField("sessionId") }),
  response: { 200: PinnedSessions },
});

export const prunePinnedSessions = defineRoute("POST", "/api/leyline/pinned-sessions/prune", {
  summary: `Unpin many sessions at once (at most ${PRUNE_IDS_MAX} ids per request)`,
  tags: pinTags,
  body: Type.Object({ connectionId: Type.Optional(Type.Unknown()), sessionIds: Type.Optional(Type.Unknown()) }),
  response: { 200: PinnedSessions },
});

export const NATIVE_APP_ROUTES = [
  listConnections,
  createConnection,
  updateConnection,
  deleteConnection,
  setDefaultConnection,
  getAppSetting,
  putAppSetting,
  listPinnedSessions,
  pinSession,
  unpinSession,
  prunePinnedSessions,
] as const;
