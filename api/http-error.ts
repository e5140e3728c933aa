/**
 * An error a route throws on purpose: the app's error handler sends `{ "error": message }` with `statusCode`.
 * Anything else that is thrown becomes a 500 whose details stay in the log (never in the response).
 */
export class HttpError extends Error {
  readonly statusCode: number;

  constructor(statusCode: number, message: string) {
    super(message);
    this.name = "HttpError";
    this.statusCode = statusCode;
  }
}

/** The error envelope every failing route answers with (spec: "Most errors have this envelope"). */
export interface ErrorBody {
  error: string;
}
