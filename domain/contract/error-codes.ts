/**
 * The closed set of error codes every HTTP failure carries, and the one table from code to status. Routes,
 * the runtime host and the request schemas name a code; only the app's error handler turns it into a status
 * (api/app.ts), so one kind of failure answers one status wherever it happens.
 *
 * The body stays the spec's envelope `{ "error": message }`: clients read the message, the code picks the
 * status. Rows marked "spec" keep a status the spec asks for although another would be more usual.
 */
export const ERROR_STATUS = {
  /** A body, query or path parameter that breaks its route's schema, or a rule a schema cannot state. */
  invalid_request: 400,
  /**
   * A body that is not JSON. Deliberate departure: the spec says malformed JSON is a 500 on most runtime
   * routes; it is the client's error, and clients read the `error` text either way.
   */
  malformed_json: 400,
  /** A Host off the allow-list, a browser Origin not allowed, cross-site fetch metadata on /api. */
  forbidden: 403,
  /** No route has this path (or a file of the built client, or a trash copy named in a body, is missing). */
  not_found: 404,
  /** An unknown (or deleted) session, wherever it is named: by id, by path, in an action. */
  session_not_found: 404,
  /** An entry id the session does not have. */
  entry_not_found: 404,
  /** An agent key no agent definition the folder sees has. */
  subagent_not_found: 404,
  /** Pi Settings: a provider, model or MCP configuration, or a settings operation, that does not exist (or expired). */
  settings_not_found: 404,
  /** A backend connection id the native registry does not have (spec "Connection registry", "Pinned sessions"). */
  connection_not_found: 404,
  /** An app setting key other than the ones the settings routes accept (spec "App settings"). */
  setting_not_found: 404,
  /** A known path with a method it does not accept (sent with an Allow header). */
  method_not_allowed: 405,
  /**
   * The request conflicts with the session's state: a stale queue revision, a confirmation no longer
   * pending, a paused runtime, a session whose folder is gone.
   */
  conflict: 409,
  /** spec: Pi Settings already runs its limit of operations (eight). */
  too_many_operations: 429,
  /** A body over the route's limit. */
  body_too_large: 413,
  /** A body whose content type the route does not parse. */
  unsupported_media_type: 415,
  /** spec: an ordinary GET on an endpoint that needs a WebSocket upgrade. */
  upgrade_required: 426,
  /**
   * A runtime, SDK, worker or file-system failure while acting on a session, and the runtime inputs the spec
   * answers with 500 (an empty shell command, an unknown model, Ultrafast unavailable for the model).
   */
  runtime_failed: 500,
  /**
   * spec: an action the session's state blocks (streaming, compacting, a prompt being set up, a concurrent
   * shell command) answers 500, not 409.
   */
  action_blocked: 500,
  /** spec: a legacy action route (POST /api/pi/<action>) with no selected session answers 500. */
  no_active_session: 500,
  /** spec: GET /api/pi/sessions/:id?path= (and its export) with a file of another session answers 500. */
  session_path_mismatch: 500,
  /** spec: GET /api/pi/fs with a path it cannot list (missing, not a folder, unreadable, invalid) answers 500. */
  directory_unreadable: 500,
  /**
   * spec: Git review routes with a cwd that is not a readable folder, a repository that is gone, a path no longer
   * in the bounded status list, or a failing git run answer 500.
   */
  review_failed: 500,
  /** spec "Trace errors": a trace id no stored trace has. */
  trace_not_found: 404,
  /** spec "Trace errors": trace storage failed, the trace settings could not be read or saved, or tracing is shutting down. */
  tracing_unavailable: 503,
  /** The runtime host is at its worker capacity, or shutting down. */
  capacity_reached: 503,
  /** spec: the Pi Settings runtime cannot load, refresh authentication or acquire capacity, or the backend is shutting down. */
  settings_unavailable: 503,
  /** The read side (database, session index) is still starting, or failed to start (GET /internal/ready). */
  not_ready: 503,
  /** spec: a memory id that is not visible in the request's context (another project, deleted) answers 500. */
  memory_not_found: 500,
  /** Anything unexpected: the message is "Internal server error", the details go to the log only. */
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/**
 * The code of an error that only has a status (Fastify's own client errors, a plugin's http-errors): the
 * row with that status, or invalid_request for a client status the table does not name.
 */
export function errorCodeOfStatus(status: number): ErrorCode {
  switch (status) {
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 409:
      return "conflict";
    case 413:
      return "body_too_large";
    case 415:
      return "unsupported_media_type";
    case 426:
      return "upgrade_required";
    case 429:
      return "too_many_operations";
    case 503:
      return "capacity_reached";
    default:
      return status >= 400 && status < 500 ? "invalid_request" : "internal";
  }
}
