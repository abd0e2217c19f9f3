/** One offending field of a `400`, as the problem body names it. */
export interface FieldIssue {
  field: string;
  message: string;
}

/**
 * Every answer of 400 or above, thrown: the problem+json body's (RFC 9457) `status`, `code`,
 * `title`, `detail` and `errors`, with the response headers (e.g. `Retry-After` on a 429).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  /** The stable machine code (`not_found`, `validation_failed`, `rate_limited`, …); `unknown` without a problem body. */
  readonly code: string;
  readonly title: string | undefined;
  readonly detail: string | undefined;
  readonly errors: FieldIssue[];
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;

  constructor(init: {
    status: number;
    code: string;
    title?: string | undefined;
    detail?: string | undefined;
    errors?: FieldIssue[] | undefined;
    method: string;
    url: string;
    headers: Headers;
  }) {
    super(
      `${init.method} ${init.url} answered ${init.status} ${init.code}${init.detail ? `: ${init.detail}` : ''}`,
    );
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.errors = init.errors ?? [];
    this.method = init.method;
    this.url = init.url;
    this.headers = init.headers;
  }

  /** Reads the problem body of an error response (any content type: a proxy may answer HTML). */
  static async fromResponse(request: Request, response: Response): Promise<ApiError> {
    const text = await response.text();
    let problem: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object') problem = parsed as Record<string, unknown>;
    } catch {
      // Not JSON: the status alone says what happened.
    }
    const text_ = (key: string) => (typeof problem[key] === 'string' ? (problem[key] as string) : undefined);
    return new ApiError({
      status: response.status,
      code: text_('code') ?? 'unknown',
      title: text_('title'),
      detail: text_('detail'),
      errors: Array.isArray(problem.errors) ? (problem.errors as FieldIssue[]) : [],
      method: request.method,
      url: withoutQuery(request.url),
      headers: response.headers,
    });
  }
}

/** No answer within the client's `timeoutMs` (each attempt has its own). */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';
  constructor(
    readonly method: string,
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(`${method} ${url} had no answer within ${timeoutMs} ms`);
  }
}

// A cursor or filter in the query may be long or sensitive; the path is enough to say which call failed.
const withoutQuery = (url: string) => url.split('?')[0] ?? url;

export { withoutQuery };
