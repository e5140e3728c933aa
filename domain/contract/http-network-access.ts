/**
 * The network-access routes of the native backend (spec "Network access"): GET and PUT
 * /api/leyline/network-access, both answering NetworkAccess. domain/native-app/network-access.ts holds the
 * TypeScript type, checked equal below.
 *
 * The PUT body: `enabled` must be a boolean and `port` an integer from 0 through 65535 when supplied; null is
 * invalid; extra fields are ignored. "At least one field" is the service's rule (an update naming neither answers
 * 400). Bodies over 1 KiB answer 413 (the route's body limit).
 */
import { Type, type Static } from "typebox";
import {
  MAX_PORT,
  type NetworkAccess as NetworkAccessType,
  type NetworkAccessUpdate as NetworkAccessUpdateType,
} from "../native-app/network-access.ts";
import { defineRoute } from "./http-route.ts";
import { failsWith, type SameType } from "./schema-kit.ts";

const tags = ["network-access"];

export const NETWORK_ACCESS_PATH = "/api/leyline/network-access";

export const NetworkAccess = Type.Object(
  {
    available: Type.Boolean({ description: "The origin listens, so it can be shared." }),
    enabled: Type.Boolean({ description: "The sharing listener runs now (not the saved startup preference)." }),
    port: Type.Union([Type.Integer({ minimum: 0, maximum: MAX_PORT }), Type.Null()], {
      description: "The active sharing port, or null when sharing is off.",
    }),
    configuredPort: Type.Integer({ minimum: 0, maximum: MAX_PORT, description: "The saved port; 0 selects a free port automatically." }),
    urls: Type.Array(Type.String(), { description: "Sharing URLs of the non-internal IPv4 interfaces (may be empty)." }),
    directAccess: Type.Boolean({ description: "The origin itself listens outside loopback." }),
    error: Type.String({ description: "The last listener or setting-change failure, or an empty string." }),
  },
  { title: "NetworkAccess", additionalProperties: false },
);

export const NetworkAccessUpdate = failsWith(
  Type.Object({
    enabled: Type.Optional(failsWith(Type.Boolean({ description: "Sharing on or off." }), "enabled must be a boolean")),
    port: Type.Optional(
      failsWith(
        Type.Integer({ minimum: 0, maximum: MAX_PORT, description: "The sharing port; 0 selects an available port automatically." }),
        `port must be an integer from 0 through ${MAX_PORT}`,
      ),
    ),
  }),
  { type: "Request body must be a JSON object" },
);

const _answer: SameType<Static<typeof NetworkAccess>, NetworkAccessType> = true;
const _update: SameType<Static<typeof NetworkAccessUpdate>, NetworkAccessUpdateType> = true;
void [_answer, _update];

export const getNetworkAccess = defineRoute("GET", NETWORK_ACCESS_PATH, {
  summary: "The native backend's network sharing",
  description: "Waits for earlier network-access operations to finish; starts no listener and changes no saved preference.",
  tags,
  response: { 200: NetworkAccess },
});

export const updateNetworkAccess = defineRoute("PUT", NETWORK_ACCESS_PATH, {
  summary: "Turn network sharing on or off, or change its port",
  description:
    "At least one field. Omitted fields keep their current values (resolved inside the serialized operation). Enabling starts a TCP listener that forwards bytes unchanged to the origin; a live port change binds the replacement and saves before closing the old listener. Listener and persistence failures answer 400. Bodies over 1 KiB answer 413.",
  tags,
  body: NetworkAccessUpdate,
  response: { 200: NetworkAccess },
});

export const NETWORK_ACCESS_ROUTES = [getNetworkAccess, updateNetworkAccess] as const;
