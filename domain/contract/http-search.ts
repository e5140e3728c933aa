/**
 * The full-text search route (Leyline's addition to the spec): GET /api/pi/search?q=&limit=&cwd= finds the
 * words of `q` in every message of every listed session (user and assistant text, tool calls and outputs, `!`
 * commands, compaction and branch summaries, displayed custom messages; not thinking), ranked by bm25, at most
 * three hits per session. The objects are closed; domain/search/search-result.ts holds the TypeScript types,
 * checked equal below.
 *
 * Bad input answers 400: a missing, blank or longer than 500 characters `q`, a `limit` that is not an integer from
 * 1 to 100, an empty `cwd`, a repeated or unknown parameter. A `q` with no letter or digit answers no results.
 */
import { Type, type Static } from "typebox";
import { MAX_QUERY_CHARS } from "../search/search-query.ts";
import { SEARCH_KINDS } from "../search/search-documents.ts";
import {
  DEFAULT_SEARCH_LIMIT,
  HITS_PER_SESSION,
  MAX_SEARCH_LIMIT,
  type SearchAnswer as SearchAnswerType,
  type SearchResult as SearchResultType,
} from "../search/search-result.ts";
import { defineRoute } from "./http-route.ts";
import { failsWith, literals, type SameType } from "./schema-kit.ts";

const tags = ["search"];

export const SEARCH_PATH = "/api/pi/search";

export const SnippetSegment = Type.Object(
  {
    text: Type.String(),
    match: Type.Boolean({ description: "The text is a matched word (shown highlighted)." }),
  },
  { title: "SnippetSegment", additionalProperties: false },
);

export const SearchResult = Type.Object(
  {
    sessionId: Type.String(),
    sessionPath: Type.String(),
    sessionName: Type.Optional(Type.String()),
    firstMessage: Type.String({ description: "The session's first user message (cut), a title when it has no name." }),
    cwd: Type.String(),
    entryId: Type.String({
      description:
        "The session entry the text is in (what the session tree names; a version-1 file's deterministic id). `/sessions/<sessionId>?entry=<entryId>` opens the session at it.",
    }),
    role: literals(SEARCH_KINDS),
    toolCallId: Type.Optional(Type.String({ description: "The tool call of a `toolCall` or `toolResult` hit." })),
    timestamp: Type.String({ description: "The entry's ISO timestamp (empty when it has none)." }),
    snippet: Type.Array(SnippetSegment, { description: "The best window of the text as plain-text segments, matches marked." }),
  },
  { title: "SearchResult", additionalProperties: false },
);

export const SearchIndexStatus = Type.Object(
  {
    indexed: Type.Integer({ minimum: 0, description: "Listed sessions whose messages are searchable as they are now." }),
    total: Type.Integer({ minimum: 0, description: "Listed sessions." }),
    ready: Type.Boolean({ description: "The first indexing pass is done; false: the results cover what is indexed so far." }),
  },
  { title: "SearchIndexStatus", additionalProperties: false },
);

export const SearchAnswer = Type.Object(
  { results: Type.Array(SearchResult), status: SearchIndexStatus },
  { title: "SearchAnswer", additionalProperties: false },
);

const _result: SameType<Static<typeof SearchResult>, SearchResultType> = true;
const _answer: SameType<Static<typeof SearchAnswer>, SearchAnswerType> = true;
void [_result, _answer];

export const SearchQuery = failsWith(
  Type.Object(
    {
      q: failsWith(Type.String({ pattern: "\\S", maxLength: MAX_QUERY_CHARS, description: "The words to find." }), {
        type: "q must be a string",
        required: "q is required",
        pattern: "q is required",
        maxLength: `q must be at most ${MAX_QUERY_CHARS} characters`,
      }),
      limit: Type.Optional(
        failsWith(
          Type.String({
            pattern: "^(?:[1-9][0-9]?|100)$",
            description: `Results at most, 1 to ${MAX_SEARCH_LIMIT} (default ${DEFAULT_SEARCH_LIMIT}).`,
          }),
          `limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}`,
        ),
      ),
      cwd: Type.Optional(
        failsWith(Type.String({ minLength: 1, description: "Only sessions of this folder." }), "cwd must be a non-empty string"),
      ),
    },
    { additionalProperties: false },
  ),
  { additionalProperties: "unknown query parameter (known: q, limit, cwd)", type: "query must be an object" },
);
export type SearchQuery = Static<typeof SearchQuery>;

export const searchSessions = defineRoute("GET", SEARCH_PATH, {
  summary: "Full-text search over every message of every session",
  description: `Ranked by bm25 (newer documents first among equals), at most ${HITS_PER_SESSION} hits per session. Every word of q must occur in the same message (the last one may be a prefix while typing). While the index builds, the results cover what is indexed and status.ready is false.`,
  tags,
  querystring: SearchQuery,
  response: { 200: SearchAnswer },
});

export const SEARCH_ROUTES = [searchSessions] as const;
