import { ApiError, RequestTimeoutError, withoutQuery } from './api-error.js';

export interface RetryOptions {
  /** Attempts in all for one call, the first included (default 3). */
  maxAttempts?: number;
  /** The most a call waits in all across its retries, in ms (default 60 000: one rate-limit window). */
  maxWaitMs?: number;
}

export interface TransportOptions {
  /** Each attempt's time limit in ms (default 30 000; API Gateway itself gives up after 29 s). */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** The fetch that sends each attempt (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_ATTEMPTS = 3;
const DEFAULT_MAX_WAIT_MS = 60_000;

/** Seconds (the form the service sends) or an HTTP date, as RFC 9110 allows; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const done = () => {
      signal.removeEventListener('abort', aborted);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const aborted = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', aborted, { once: true });
  });
}

/**
 * The fetch the typed client sends through: a `POST` gets an `Idempotency-Key` unless it has one (the
 * same key on each of its retries, so that a retried write happens once); a `429` is retried after its
 * `Retry-After` within `maxAttempts` and `maxWaitMs`; each attempt has its own timeout; an answer of
 * 400 or more is thrown as an `ApiError`.
 */
export function resilientFetch(options: TransportOptions = {}): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxAttempts = Math.max(1, options.retry?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  const maxWaitMs = options.retry?.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;

  return async (original: Request) => {
    const request = original.clone();
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', globalThis.crypto.randomUUID());
    }
    let waitedMs = 0;
    for (let attempt = 1; ; attempt++) {
      const timeout = AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await send(
          new Request(request.clone(), { signal: AbortSignal.any([request.signal, timeout]) }),
        );
      } catch (error) {
        if (timeout.aborted && !request.signal.aborted) {
          throw new RequestTimeoutError(request.method, withoutQuery(request.url), timeoutMs);
        }
        throw error;
      }
      if (response.status === 429 && attempt < maxAttempts) {
        const delay = retryAfterMs(response.headers.get('retry-after'));
        if (delay !== undefined && waitedMs + delay <= maxWaitMs) {
          await response.body?.cancel();
          await pause(delay, request.signal);
          waitedMs += delay;
          continue;
        }
      }
      if (response.status >= 400) throw await ApiError.fromResponse(request, response);
      return response;
    }
  };
}
