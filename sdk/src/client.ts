import createFetchClient, {
  type Client,
  type ClientPathsWithMethod,
  type FetchResponse,
  type MaybeOptionalInit,
} from 'openapi-fetch';
import type { paths } from './generated/openapi.js';
import { resilientFetch, type TransportOptions } from './resilient-fetch.js';

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type Paths<M extends Method> = ClientPathsWithMethod<Client<paths>, M>;
type Init<P extends keyof paths, M extends Method> = MaybeOptionalInit<paths[P], M>;
/** The second argument is optional exactly when the operation needs no parameters and no body. */
type InitArgs<I> = undefined extends I ? [init?: I & CallOptions] : [init: I & CallOptions];

/** What every call accepts besides the operation's own `params` and `body`. */
export interface CallOptions {
  /** `json` (default), or `text`, `blob`, `arrayBuffer`, `stream` for the non-JSON answers (HTML, CSV). */
  parseAs?: 'json' | 'text' | 'blob' | 'arrayBuffer' | 'stream';
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** A successful answer: the body, typed by the operation (and `parseAs`), and the response itself. */
export interface Answer<Data> {
  data: Data;
  response: Response;
}

type Success<R> = R extends { data: infer D; error?: never } ? D : never;
type Called<P extends keyof paths, M extends Method, I> = Promise<
  // biome-ignore lint/suspicious/noExplicitAny: openapi-fetch's own constraint on an operation
  Answer<Success<FetchResponse<paths[P][M] & Record<string | number, any>, I, `${string}/${string}`>>>
>;

type Call<M extends Method> = <P extends Paths<M>, I extends Init<P, M>>(
  path: P,
  ...init: InitArgs<I>
) => Called<P, M, I>;

/** GET paths whose answer is one page of a list: `{data: [...], nextCursor}`. */
export type ListPath = {
  [P in Paths<'get'>]: [PageOf<P>] extends [never] ? never : P;
}[Paths<'get'>];

type PageShape = { data: readonly unknown[]; nextCursor: unknown };
/** The JSON page among the answer's forms (a list may also answer CSV, typed `string`). */
type PageOf<P extends Paths<'get'>> = Extract<Awaited<Called<P, 'get', Init<P, 'get'>>>['data'], PageShape>;

/** The item type of a list path. */
export type ListItem<P extends ListPath> = PageOf<P> extends { data: readonly (infer T)[] } ? T : never;

export interface ClientOptions extends TransportOptions {
  /** Ends with `/api/public/v1`, e.g. `http://localhost:3000/api/public/v1`. */
  baseUrl: string;
  /** `svc_<prefix>_<secret>`: sent as a bearer token, never logged. */
  token: string;
  /** Sent on every request (e.g. a `User-Agent` naming the integration). */
  headers?: Record<string, string>;
}

type UntypedInit = { params?: { query?: Record<string, unknown> } } & Record<string, unknown>;

export interface MisClient {
  GET: Call<'get'>;
  POST: Call<'post'>;
  PUT: Call<'put'>;
  PATCH: Call<'patch'>;
  DELETE: Call<'delete'>;
  /**
   * Every item of a list, page after page (`nextCursor` passed back as `cursor`), for `for await`.
   * `params.query` (e.g. `limit`, filters) applies to each page.
   */
  paginate<P extends ListPath>(path: P, ...init: InitArgs<Init<P, 'get'>>): AsyncIterable<ListItem<P>>;
}

/**
 * A client whose calls follow the API's paths, typed from the OpenAPI document: `client.GET('/incidents/{id}',
 * {params: {path: {id}}})` answers `{data, response}` or throws an `ApiError`.
 */
export function createClient(options: ClientOptions): MisClient {
  const inner = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...options.headers, Authorization: `Bearer ${options.token}` },
    fetch: resilientFetch(options),
  });
  // The typed signatures are MisClient's; underneath, a call only forwards.
  const untyped = inner as unknown as Record<
    'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    (path: string, init?: UntypedInit) => Promise<{ data?: unknown; response: Response }>
  >;
  // Errors are thrown by the transport, so what comes back here is always the success branch.
  const call = (method: keyof typeof untyped) => async (path: string, init?: UntypedInit) => {
    const { data, response } = await untyped[method](path, init);
    return { data, response };
  };
  const client = {
    GET: call('GET'),
    POST: call('POST'),
    PUT: call('PUT'),
    PATCH: call('PATCH'),
    DELETE: call('DELETE'),
    async *paginate(path: string, init?: UntypedInit) {
      let cursor: string | null | undefined;
      const seen = new Set<string>();
      do {
        const query = { ...init?.params?.query, ...(cursor ? { cursor } : {}) };
        const { data } = await untyped.GET(path, { ...init, params: { ...init?.params, query } });
        const page = data as { data: unknown[]; nextCursor: string | null };
        yield* page.data;
        cursor = page.nextCursor;
        // A cursor seen before would page forever: stop with an error rather than loop.
        if (cursor && seen.has(cursor))
          throw new Error(`${path} answered the cursor of an earlier page again`);
        if (cursor) seen.add(cursor);
      } while (cursor);
    },
  };
  return client as unknown as MisClient;
}
