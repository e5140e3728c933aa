/**
 * Which methods each known route path accepts, so the not-found handler can tell "unknown path" (404) from
 * "known path, unsupported method" (405 with an Allow header), as the spec's status table asks.
 *
 * Routes are recorded by an onRoute hook (register it before the route plugins). Catch-all routes (a path
 * with `*`) and OPTIONS routes are not recorded: they make every path "known". A route can opt out with
 * `config: { unsupportedMethod: 404 }` (the spec's action paths answer other methods with 404 "Not found").
 */
import type { FastifyInstance } from "fastify";

export interface RouteMethodsConfig {
  /** What an unsupported method on this path answers; default 405. */
  unsupportedMethod?: 404 | 405;
}

interface KnownRoute {
  readonly pattern: RegExp;
  readonly methods: Set<string>;
  readonly unsupported: 404 | 405;
}

export interface RouteMethods {
  /** The methods a path accepts and what other methods get, or null when no route has this path. */
  lookup(pathname: string): { allow: string[]; unsupported: 404 | 405 } | null;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `/api/pi/sessions/:id` → a RegExp matching one non-empty segment per parameter. */
export function routePattern(url: string): RegExp {
  const source = url
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : escapeRegExp(segment)))
    .join("/");
  return new RegExp(`^${source}/?$`);
}

function isRouteMethodsConfig(value: unknown): value is RouteMethodsConfig {
  return typeof value === "object" && value !== null;
}

export function trackRouteMethods(app: FastifyInstance): RouteMethods {
  const routes = new Map<string, KnownRoute>();
  app.addHook("onRoute", (route) => {
    if (route.url.includes("*")) return;
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== "OPTIONS");
    if (methods.length === 0) return;
    const config: unknown = route.config;
    const unsupported = isRouteMethodsConfig(config) && config.unsupportedMethod === 404 ? 404 : 405;
    let known = routes.get(route.url);
    if (known === undefined) {
      known = { pattern: routePattern(route.url), methods: new Set(), unsupported };
      routes.set(route.url, known);
    }
    for (const method of methods) known.methods.add(method);
  });
  return {
    lookup(pathname) {
      const allow = new Set<string>();
      let unsupported: 404 | 405 = 405;
      let found = false;
      for (const route of routes.values()) {
        if (!route.pattern.test(pathname)) continue;
        found = true;
        for (const method of route.methods) allow.add(method);
        if (route.unsupported === 404) unsupported = 404;
      }
      return found ? { allow: [...allow].sort(), unsupported } : null;
    },
  };
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** See RouteMethodsConfig. */
    unsupportedMethod?: 404 | 405;
  }
}
