/**
 * The full-text search route (domain/contract/http-search.ts): GET /api/pi/search, thin over the read side's
 * search indexer (adapters/search/search-indexer.ts). The contract's closed query schema answers bad input (400);
 * the route parses `limit` and asks the indexer, which answers what is indexed so far while it builds.
 */
import type { FastifyPluginAsync } from "fastify";
import { searchSessions } from "../domain/contract/http-search.ts";
import { DEFAULT_SEARCH_LIMIT } from "../domain/search/search-result.ts";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import { typed } from "./contract.ts";

export interface SearchRoutesOptions {
  readonly readSide: ReadSide;
}

export const searchRoutes: FastifyPluginAsync<SearchRoutesOptions> = async (app, options) => {
  const api = typed(app);

  api.get(searchSessions.url, { schema: searchSessions.schema }, async (request) => {
    const { q, limit, cwd } = request.query;
    const { search } = await options.readSide.ready();
    return search.search({
      text: q,
      limit: limit === undefined ? DEFAULT_SEARCH_LIMIT : Number(limit),
      ...(cwd !== undefined ? { cwd } : {}),
    });
  });
};
