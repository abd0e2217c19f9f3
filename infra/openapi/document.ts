import {
  createDocument,
  type oas31,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { API_VERSION } from '../../shared/config.js';
import { MAX_RATE_LIMIT } from '../../shared/domain/organisation.js';
import { WINDOW_SECONDS } from '../../shared/domain/rate-window.js';
import { TEST_EVENT, WEBHOOK_EVENT_NAMES } from '../../shared/domain/webhook-events.js';
import { PROBLEM_CONTENT_TYPE } from '../../shared/http/problem.js';
import { MAX_BODY_BYTES } from '../../shared/http/request.js';
import { problemSchema } from '../../shared/schemas/common.js';
import { ROUTE_QUERIES } from '../../shared/schemas/queries.js';
import {
  webhookEventDescriptions,
  webhookHeaderSchema,
  webhookPayloadSchemas,
  webhookTestPayloadSchema,
} from '../../shared/schemas/webhooks.js';
import { CORS_ALLOWED_HEADERS, CORS_ENV_VAR, CORS_EXPOSED_HEADERS } from '../../shared/topology/cors.js';
import { type Route, routeKey, routes } from '../../shared/topology/routes.js';
import { OPERATIONS, type OperationSpec, TAGS } from './operations.js';

type HeaderObject = oas31.HeaderObject;
type ParameterObject = oas31.ParameterObject;
type ReferenceObject = oas31.ReferenceObject;

/**
 * The OpenAPI 3.1 document, built from the route table, the per-route entries of operations.ts and
 * the zod schemas the functions validate with. It runs at build time only (`npm run openapi` writes
 * docs/openapi.json, which the docs function serves): zod-openapi never reaches a Lambda bundle.
 */

const ref = (kind: string, name: string): ReferenceObject => ({ $ref: `#/components/${kind}/${name}` });

const HEADERS: Record<string, HeaderObject> = {
  'RateLimit-Limit': {
    description:
      "Requests the token may make per window (one minute): 60 by default, the organisation's own on the enterprise tier.",
    required: true,
    schema: { type: 'integer', minimum: 1, maximum: MAX_RATE_LIMIT },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    required: true,
    schema: { type: 'integer', minimum: 0, maximum: MAX_RATE_LIMIT },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the window resets.',
    required: true,
    schema: { type: 'integer', minimum: 1, maximum: WINDOW_SECONDS },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 1, maximum: WINDOW_SECONDS },
  },
  ETag: {
    description: 'Validator of this representation; send it back as If-None-Match.',
    required: true,
    schema: { type: 'string' },
  },
  Location: { description: 'The URL of the new resource.', required: true, schema: { type: 'string' } },
  IncidentETag: {
    description: "The version of the incident's record; send it back as If-Match on a PATCH.",
    required: true,
    schema: { type: 'string' },
  },
  'WWW-Authenticate': {
    description: 'The Bearer challenge.',
    required: true,
    schema: { type: 'string' },
    examples: { missing: { value: 'Bearer realm="api"' } },
  },
};

const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] as const;

/** Rate-limit headers by reference where the function always sends them; inline and optional where API Gateway may answer alone. */
function rateLimitHeaders(required: boolean): Record<string, HeaderObject | ReferenceObject> {
  return Object.fromEntries(
    RATE_LIMIT_HEADERS.map((name) => [
      name,
      required ? ref('headers', name) : { ...HEADERS[name], required: false },
    ]),
  );
}

const PARAMETERS: Record<string, ParameterObject> = {
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description:
      'An ETag from an earlier response: `304 Not Modified`, without a body, if the representation is unchanged.',
    schema: { type: 'string' },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      "The incident's `ETag` as last read: the change is made only if the incident is still at that version, else `412`.",
    schema: { type: 'string' },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'A unique key (1 to 255 visible ASCII characters, e.g. a UUID) that makes a retried POST safe: within 24 hours, the same key and body get the first response again (with `Idempotent-Replayed: true`) and change nothing; the same key with another body is a `409`.',
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
  },
};

const problemContent = { [PROBLEM_CONTENT_TYPE]: { schema: problemSchema } };

function problemResponse(
  description: string,
  headers: Record<string, HeaderObject | ReferenceObject> = {},
): ZodOpenApiResponseObject {
  return { description, headers, content: problemContent };
}

const RESPONSES: Record<string, ZodOpenApiResponseObject> = {
  BadRequest: problemResponse(
    'The query or body is invalid: `validation_failed` (with `errors` naming every offending field and query parameter, unknown ones included), `malformed_json`, or `invalid_cursor`.',
    rateLimitHeaders(false),
  ),
  Unauthorized: problemResponse(
    'No valid bearer token: missing, malformed, unknown or revoked (`unauthorized`).',
    {
      'WWW-Authenticate': ref('headers', 'WWW-Authenticate'),
    },
  ),
  Forbidden: problemResponse('The token lacks the scope this operation needs (`insufficient_scope`).', {
    'WWW-Authenticate': {
      description: 'The challenge naming the scope needed.',
      required: false,
      schema: { type: 'string' },
      examples: { write: { value: 'Bearer error="insufficient_scope", scope="write"' } },
    },
    ...rateLimitHeaders(false),
  }),
  IdempotencyConflict: problemResponse(
    'The Idempotency-Key was used with a different request (`idempotency_conflict`).',
    rateLimitHeaders(true),
  ),
  PayloadTooLarge: problemResponse(
    `The body is larger than ${MAX_BODY_BYTES / 1024} KB (\`payload_too_large\`).`,
    rateLimitHeaders(false),
  ),
  UnsupportedMediaType: problemResponse(
    'The body is not sent as application/json (`unsupported_media_type`).',
    rateLimitHeaders(false),
  ),
  TooManyRequests: problemResponse("Over the token's rate limit (`rate_limited`).", {
    'Retry-After': ref('headers', 'Retry-After'),
    ...rateLimitHeaders(false),
  }),
  InternalError: problemResponse('An unexpected error (`internal_error`); nothing about it is disclosed.'),
};

const securityNote = (route: Route) =>
  route.access === 'public'
    ? 'Public: no token.'
    : route.access === 'any'
      ? 'Needs a valid token with any scope.'
      : `Needs a token with the \`${route.access}\` scope.`;

function responsesFor(route: Route, spec: OperationSpec): ZodOpenApiResponsesObject {
  const authenticated = route.access !== 'public';
  const successHeaders: Record<string, HeaderObject | ReferenceObject> = {
    ...(authenticated ? rateLimitHeaders(true) : {}),
    ...(spec.conditional ? { ETag: ref('headers', 'ETag') } : {}),
    ...(spec.success.location ? { Location: ref('headers', 'Location') } : {}),
    ...(spec.success.incidentEtag ? { ETag: ref('headers', 'IncidentETag') } : {}),
  };
  const contentType = spec.success.contentType ?? 'application/json';
  const alternatives = Object.fromEntries(
    Object.entries(spec.success.alternatives ?? {}).map(([type, schema]) => [type, { schema }]),
  );
  const responses: ZodOpenApiResponsesObject = {
    [String(spec.success.status) as '200']: {
      description: spec.success.description,
      headers: successHeaders,
      ...(spec.success.schema
        ? { content: { [contentType]: { schema: spec.success.schema }, ...alternatives } }
        : {}),
    },
  };
  if (spec.conditional) {
    responses['304'] = {
      description: 'Not modified: the If-None-Match tag is current. No body.',
      headers: successHeaders,
    };
  }
  // Every operation refuses a query parameter it does not declare.
  responses['400'] = ref('responses', 'BadRequest');
  if (authenticated) {
    responses['401'] = ref('responses', 'Unauthorized');
    responses['403'] = ref('responses', 'Forbidden');
  }
  if (spec.problems?.[404]) responses['404'] = problemResponse(spec.problems[404], rateLimitHeaders(true));
  if (route.method === 'POST' || route.method === 'PATCH')
    responses['409'] = spec.problems?.[409]
      ? problemResponse(spec.problems[409], rateLimitHeaders(true))
      : ref('responses', 'IdempotencyConflict');
  if (spec.problems?.[412]) responses['412'] = problemResponse(spec.problems[412], rateLimitHeaders(true));
  if (spec.body) {
    responses['413'] = ref('responses', 'PayloadTooLarge');
    responses['415'] = ref('responses', 'UnsupportedMediaType');
  }
  if (authenticated) responses['429'] = ref('responses', 'TooManyRequests');
  responses['500'] = ref('responses', 'InternalError');
  return responses;
}

function pathParameters(path: string): ParameterObject[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name: String(name),
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
}

function operationFor(route: Route, spec: OperationSpec): ZodOpenApiOperationObject {
  const parameters: (ParameterObject | ReferenceObject)[] = [...pathParameters(route.path)];
  if (spec.conditional) parameters.push(ref('parameters', 'IfNoneMatch'));
  if (route.method === 'POST') parameters.push(ref('parameters', 'IdempotencyKey'));
  if (route.method === 'PATCH') parameters.push(ref('parameters', 'IfMatch'));
  const query = ROUTE_QUERIES[routeKey(route)];
  const hasQueryParameters = Object.keys(query._zod.def.shape).length > 0;
  return {
    operationId: spec.operationId,
    summary: route.summary,
    description: `${spec.description}\n\n${securityNote(route)}`,
    tags: [spec.tag],
    ...(route.access === 'public' ? { security: [] } : {}),
    ...(route.access === 'read' || route.access === 'write' ? { 'x-required-scope': route.access } : {}),
    parameters,
    ...(hasQueryParameters ? { requestParams: { query } } : {}),
    ...(spec.body
      ? {
          requestBody: {
            // A body whose fields are all optional may be left out: a bare POST is accepted.
            required: !spec.body.safeParse({}).success,
            content: { 'application/json': { schema: spec.body } },
          },
        }
      : {}),
    responses: responsesFor(route, spec),
  };
}

/** Keeps the document readable: zod writes its validation regex next to `format`, which says the same. */
function dropFormatPatterns({ jsonSchema }: { jsonSchema: Record<string, unknown> }): void {
  if (
    typeof jsonSchema.format === 'string' &&
    ['date-time', 'date', 'uuid', 'uri'].includes(jsonSchema.format)
  ) {
    delete jsonSchema.pattern;
  }
}

function webhooks(): ZodOpenApiPathsObject {
  return Object.fromEntries(
    [...WEBHOOK_EVENT_NAMES, TEST_EVENT].map((event) => [
      event,
      {
        post: {
          operationId: `${event.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase())}Webhook`,
          summary: event,
          description:
            event === TEST_EVENT
              ? 'A test event: sent to one endpoint when its owner calls `POST /webhooks/{id}/test`, one attempt without retries. No endpoint subscribes to it. Verify the signature over the raw body before parsing it.'
              : `${webhookEventDescriptions[event]}\n\nSent as a POST with a JSON body to each registered endpoint of the organisation that subscribes to \`${event}\`. Verify the signature over the raw body before parsing it.`,
          tags: ['Webhooks'],
          security: [],
          requestParams: { header: webhookHeaderSchema() },
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: event === TEST_EVENT ? webhookTestPayloadSchema : webhookPayloadSchemas[event],
              },
            },
          },
          responses: {
            '2XX': { description: 'Delivered: any 2xx answer within 10 seconds.' },
            '410': { description: 'Gone: the endpoint is disabled and receives nothing more.' },
            default: {
              description:
                'A failure (as is a redirect or no answer within 10 seconds): retried up to five times with exponential backoff (about 30 s, 2.5 min, 12.5 min, 1 h, 5 h); `Retry-After` on 429 and 503 is honoured within that schedule.',
            },
          },
        },
      },
    ]),
  );
}

const DESCRIPTION = `The public interface of an association's organisation-management platform: a key health probe, anonymised membership statistics, upcoming public events, the latest social-impact report, data-breach incident records, and signed webhooks.

**Authentication.** Send \`Authorization: Bearer svc_<prefix>_<secret>\`. Tokens carry the scopes \`read\` and/or \`write\`: reads need \`read\`, every POST, PATCH and DELETE needs \`write\`. No valid token: \`401\`; a token without the needed scope: \`403\` (\`insufficient_scope\`). Every request acts for the organisation the token belongs to.

**Errors** are \`application/problem+json\` (RFC 9457) with a stable \`code\`; a \`400\` lists every offending field in \`errors\`. Unknown fields and query parameters are refused, not ignored, on every operation. Unknown path: \`404\`; wrong method: \`405\` with \`Allow\`; a request line and headers over 16 KB: \`431\`.

**Requests.** \`HEAD\` is answered wherever \`GET\` is, as GET without a body. A request body is JSON sent as \`Content-Type: application/json\` (UTF-8): anything else is \`415\`; an operation whose body fields are all optional also takes a \`POST\` without a body. Text must be valid UTF-8 without NUL characters or unpaired surrogates (U+FFFD, what bytes that were not UTF-8 become, is refused too); leading and trailing white space is removed from text fields before their length is checked. Every number has the bounds and the decimal places its schema states (\`minimum\`, \`maximum\`, \`multipleOf\`); anything beyond is a \`400\`.

**Browsers (CORS).** A deployment names the web origins that may call it (\`${CORS_ENV_VAR}\`; none by default). For those, \`OPTIONS\` preflights are answered with the methods of the resource and the request headers ${CORS_ALLOWED_HEADERS.map((h) => `\`${h}\``).join(', ')}; every answer, errors included, carries \`Access-Control-Allow-Origin\` and exposes ${CORS_EXPOSED_HEADERS.map((h) => `\`${h}\``).join(', ')}.

**Rate limit.** 60 requests per minute per token by default (enterprise organisations: their own value). Every authenticated response carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`; over the limit: \`429\` with \`Retry-After\`.

**Conditional requests.** GET /members, /events and /impact (and the public documents) carry an \`ETag\`; send it back as \`If-None-Match\` to get \`304 Not Modified\`, without a body, when nothing changed.

**Concurrent changes.** An incident carries an \`ETag\` naming the version of its record; send it as \`If-Match\` on \`PATCH /incidents/{id}\` and a change made meanwhile is not overwritten (\`412\`).

**Retries.** Every POST accepts an \`Idempotency-Key\`: a retry with the same key and body within 24 hours gets the first answer again and changes nothing.

**Webhooks** are signed twice: \`x-service-signature: sha256=<hex HMAC-SHA256 of the raw body>\` (as GitHub) and the Standard Webhooks headers \`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`. \`service\` stands for the deployment's service name.

**Servers.** On AWS the base URL is the API Gateway stage URL (or a custom domain) followed by \`/api/public/v1\`; the local stack (\`npm start\`) serves \`http://localhost:3000/api/public/v1\`. The document served at \`/openapi.json\` names the address it was fetched from.`;

export interface BuiltDocument {
  document: ReturnType<typeof createDocument>;
}

export function buildOpenApiDocument(): BuiltDocument {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const spec = OPERATIONS[routeKey(route)];
    if (spec.hidden) continue;
    const item = paths[route.path] ?? {};
    paths[route.path] = item;
    item[route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'] = operationFor(route, spec);
  }
  const document = createDocument(
    {
      openapi: '3.1.0',
      info: { title: 'Membership and Incident Service', version: API_VERSION, description: DESCRIPTION },
      servers: [
        {
          url: 'https://{apiId}.execute-api.{region}.amazonaws.com/{stage}/api/public/v1',
          description: 'AWS: an API Gateway stage (or a custom domain, with /api/public/v1)',
          variables: {
            apiId: { default: 'a1b2c3d4e5', description: 'The REST API id (stack output RestApiId).' },
            region: { default: 'eu-central-1' },
            stage: { default: 'prod' },
          },
        },
      ],
      security: [{ bearerAuth: [] }],
      tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
      paths,
      webhooks: webhooks(),
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'svc_<prefix>_<secret>',
            description: 'An access token issued by the operator, shown once. Scopes: `read`, `write`.',
          },
        },
        headers: HEADERS,
        parameters: PARAMETERS,
        responses: RESPONSES,
        schemas: { Problem: problemSchema },
      },
    },
    { override: dropFormatPatterns },
  );
  return { document };
}
