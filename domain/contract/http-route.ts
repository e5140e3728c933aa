/**
 * One HTTP route of the contract: method, URL and the schemas of its parts. Route plugins register a route
 * with `app.route({ ...contract, handler })` (api/contract-routes.ts types the handler from the schemas);
 * the client takes its request and response types from the same objects (`RouteResponse<typeof x>`).
 */
import type { Static, TSchema } from "typebox";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RouteSchemas {
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly params?: TSchema;
  readonly querystring?: TSchema;
  readonly body?: TSchema;
  /** By status; every route also answers the error envelope (added where routes are registered). */
  readonly response: Readonly<Record<number, TSchema>>;
}

export interface RouteContract<S extends RouteSchemas = RouteSchemas> {
  readonly method: HttpMethod;
  readonly url: string;
  readonly schema: S;
}

export function defineRoute<const S extends RouteSchemas>(method: HttpMethod, url: string, schema: S): RouteContract<S> {
  return { method, url, schema };
}

/** The 200 body of a route. */
export type RouteResponse<R extends RouteContract> = R["schema"]["response"] extends { 200: infer T extends TSchema } ? Static<T> : never;
/** The body a route takes. */
export type RouteBody<R extends RouteContract> = R["schema"]["body"] extends infer T extends TSchema ? Static<T> : never;
