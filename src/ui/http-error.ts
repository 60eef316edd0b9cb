/** An error the REST API answers with its own status (4xx) instead of 500. */
export class HttpError extends Error {
  constructor(
    /** The HTTP status to answer with. */
    readonly status: number,
    message: string,
    /** Extra response headers, e.g. `WWW-Authenticate` on a 401. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}
