/** Every HTTP route of the contract, in one list (the OpenAPI coverage test and the client read it). */
import { FILE_ROUTES } from "./http-files.ts";
import type { RouteContract } from "./http-route.ts";
import { NATIVE_APP_ROUTES } from "./http-native-app.ts";
import { MEMORY_ROUTES } from "./http-memories.ts";
import { NETWORK_ACCESS_ROUTES } from "./http-network-access.ts";
import { PI_SETTINGS_ROUTES } from "./http-pi-settings.ts";
import { ROLLOUT_FEEDBACK_ROUTES } from "./http-rollout-feedback.ts";
import { REVIEW_ROUTES } from "./http-review.ts";
import { REVIEW_ACTION_ROUTES } from "./http-review-actions.ts";
import { runtimeActionRoutes } from "./http-runtime-actions.ts";
import { SEARCH_ROUTES } from "./http-search.ts";
import { SERVICE_ROUTES } from "./http-service.ts";
import { SESSION_TREE_ROUTES } from "./http-session-tree.ts";
import { SESSION_ROUTES } from "./http-sessions.ts";
import { SUBAGENT_ROUTES } from "./http-subagents.ts";
import { TRACE_ROUTES } from "./http-traces.ts";
import { VISION_ROUTES } from "./http-vision.ts";
import { terminalSocket } from "./terminal-socket.ts";

export function contractRoutes(): RouteContract[] {
  return [
    ...SERVICE_ROUTES,
    ...NATIVE_APP_ROUTES,
    ...NETWORK_ACCESS_ROUTES,
    ...SESSION_ROUTES,
    ...SEARCH_ROUTES,
    ...SESSION_TREE_ROUTES,
    ...ROLLOUT_FEEDBACK_ROUTES,
    ...runtimeActionRoutes(),
    ...SUBAGENT_ROUTES,
    ...VISION_ROUTES,
    ...MEMORY_ROUTES,
    ...TRACE_ROUTES,
    ...PI_SETTINGS_ROUTES,
    ...FILE_ROUTES,
    ...REVIEW_ROUTES,
    ...REVIEW_ACTION_ROUTES,
    terminalSocket,
  ];
}
