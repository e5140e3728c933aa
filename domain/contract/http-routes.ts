/** Every HTTP route of the contract, in one list (the OpenAPI coverage test and the client read it). */
import type { RouteContract } from "./http-route.ts";
import { PI_SETTINGS_ROUTES } from "./http-pi-settings.ts";
import { runtimeActionRoutes } from "./http-runtime-actions.ts";
import { SERVICE_ROUTES } from "./http-service.ts";
import { SESSION_ROUTES } from "./http-sessions.ts";
import { SUBAGENT_ROUTES } from "./http-subagents.ts";

export function contractRoutes(): RouteContract[] {
  return [...SERVICE_ROUTES, ...SESSION_ROUTES, ...runtimeActionRoutes(), ...SUBAGENT_ROUTES, ...PI_SETTINGS_ROUTES];
}
