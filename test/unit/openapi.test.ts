import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/cdk/bundling.js';
import { buildOpenApiDocument } from '../../infra/openapi/document.js';
import { OPERATIONS } from '../../infra/openapi/operations.js';
import { DOCUMENT_PATH, renderDocument } from '../../infra/openapi/write.js';
import { contributionEventData, newContribution } from '../../shared/domain/contribution.js';
import {
  declareIncident,
  EVENT_FOR_STATUS,
  incidentEventData,
  moveIncident,
} from '../../shared/domain/incident.js';
import { newMember } from '../../shared/domain/member.js';
import { fileExpiredEventData } from '../../shared/domain/sanctuary-file.js';
import { payoutEventData, settlePayout } from '../../shared/domain/timebank.js';
import { WEBHOOK_EVENT_NAMES, WEBHOOK_EVENTS, webhookBody } from '../../shared/domain/webhook-events.js';
import { ROUTE_QUERIES } from '../../shared/schemas/queries.js';
import { webhookPayloadSchemas } from '../../shared/schemas/webhooks.js';
import { routeKey, routes } from '../../shared/topology/routes.js';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is untyped JSON, walked key by key.
type Json = Record<string, any>;
const { document } = buildOpenApiDocument();
const doc = document as Json;
const committed = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as Json;

const deref = (node: Json): Json => {
  if (typeof node?.$ref !== 'string') return node;
  const target = node.$ref
    .slice(2)
    .split('/')
    .reduce((at: Json, key: string) => at[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  return deref(target);
};

function schemaValidator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'openapi.json', components: doc.components });
  const compile = (schema: Json) =>
    ajv.compile(
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')),
    );
  return compile;
}

describe('the OpenAPI document', () => {
  it('is committed as generated: run `npm run openapi` after changing a schema or route', () => {
    expect(readFileSync(DOCUMENT_PATH, 'utf8')).toBe(renderDocument());
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(structuredClone(committed));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(committed.openapi).toBe('3.1.0');
    expect(committed.info.version).toBe('1.0.0');
  });

  it('passes Redocly lint (recommended-strict) without a warning', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'openapi-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(committed));
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [
        join(PROJECT_ROOT, 'node_modules/@redocly/cli/bin/cli.js'),
        'lint',
        file,
        '--config',
        join(PROJECT_ROOT, 'redocly.yaml'),
      ],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    ).catch((error: { stdout: string; stderr: string }) => {
      throw new Error(`redocly lint failed:\n${error.stdout}\n${error.stderr}`);
    });
    expect(`${stdout}${stderr}`).toMatch(/valid/);
    expect(`${stdout}${stderr}`).not.toMatch(/warning/);
  });

  it('describes every route of the route table (add new ones to infra/openapi/operations.ts)', () => {
    for (const route of routes) {
      if (OPERATIONS[routeKey(route)].hidden) continue;
      expect(document.paths?.[route.path], route.path).toBeDefined();
    }
    for (const key of Object.keys(OPERATIONS)) {
      const [method, path] = key.split(' ');
      expect(
        routes.some((r) => r.method === method && r.path === path),
        `${key} is not a route`,
      ).toBe(true);
    }
  });

  it('lists every path of the route table, the console files aside', () => {
    for (const route of routes) {
      if (route.path.includes('+}')) {
        expect(doc.paths[route.path]).toBeUndefined();
        continue;
      }
      expect(
        doc.paths[route.path]?.[route.method.toLowerCase()],
        `${route.method} ${route.path}`,
      ).toBeDefined();
    }
  });

  it('describes auth, scope, rate-limit and server errors on every authenticated operation', () => {
    for (const route of routes.filter((r) => r.access !== 'public')) {
      const operation = doc.paths[route.path][route.method.toLowerCase()];
      expect(operation.security, route.path).toBeUndefined();
      for (const status of ['401', '403', '429', '500']) {
        const response = deref(operation.responses[status]);
        expect(Object.keys(response.content ?? {}), `${route.method} ${route.path} ${status}`).toEqual([
          'application/problem+json',
        ]);
      }
      expect(Object.keys(deref(operation.responses['429']).headers)).toContain('Retry-After');
      const success = Object.entries(operation.responses).find(([status]) =>
        /^2|default/.test(status),
      )?.[1] as Json;
      expect(Object.keys(success.headers)).toEqual(
        expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
      );
    }
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('marks the documents public and the three GETs conditional', () => {
    expect(doc.paths['/openapi.json'].get.security).toEqual([]);
    expect(doc.paths['/docs'].get.security).toEqual([]);
    expect(doc.paths['/portal'].get.security).toEqual([]);
    for (const path of ['/members', '/events', '/impact']) {
      const operation = doc.paths[path].get;
      expect(Object.keys(operation.responses['200'].headers)).toContain('ETag');
      expect(operation.responses['304']).toBeDefined();
      expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/IfNoneMatch' });
    }
    expect(deref(doc.paths['/impact'].get.responses['404']).description).toContain('no_report');
  });

  it('has a webhooks section with all nine events, their signature headers and payload schemas', () => {
    // And the test event, which no endpoint subscribes to: an owner asks for it (POST /webhooks/{id}/test).
    expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENT_NAMES, 'webhook.test'].sort());
    expect(
      deref(doc.webhooks['webhook.test'].post.requestBody.content['application/json'].schema).required.sort(),
    ).toEqual(['attempt', 'event', 'organisationId', 'webhook']);
    for (const event of WEBHOOK_EVENT_NAMES) {
      const operation = doc.webhooks[event].post;
      expect(operation.parameters.map((p: Json) => `${p.in}:${p.name}`).sort()).toEqual(
        [
          'header:webhook-id',
          'header:webhook-signature',
          'header:webhook-timestamp',
          'header:x-service-delivery',
          'header:x-service-event',
          'header:x-service-signature',
          // Only during a secret rotation's overlap.
          'header:x-service-signature-previous',
        ].sort(),
      );
      const payload = deref(operation.requestBody.content['application/json'].schema);
      expect(payload.required.sort(), event).toEqual(
        ['attempt', 'event', 'organisationId', WEBHOOK_EVENTS[event]].sort(),
      );
      expect(payload.properties.event).toMatchObject({ const: event });
    }
  });

  it('accepts the bodies the delivery code builds, and nothing personal beyond ids', () => {
    const compile = schemaValidator();
    const now = new Date('2026-11-22T10:00:00.000Z');
    const organisationId = '5f0c7a2e-8d1b-4c3e-9a6f-2b7d4e1c0a93';
    const incident = declareIncident(
      'c6b5e0de-1d5b-4f0e-a4cc-3f1b7a0d9e21',
      organisationId,
      {
        severity: 'high',
        category: 'confidentiality',
        detectedAt: '2026-11-22T08:00:00Z',
        title: 'Laptop lost',
      },
      'tok_abc',
      now,
    );
    const memberId = '0b4e7c1a-9f7d-4a52-8d3e-6a1f2c3b4d5e';
    const member = newMember(memberId, { membershipType: 'regular' }, now);
    const contained = moveIncident(incident, 'contain', {}, 'tok_abc', now);
    const notified = moveIncident(contained, 'notify', { authorityReference: 'DPA-1' }, 'tok_abc', now);
    const closed = moveIncident(notified, 'close', {}, 'tok_abc', now);
    const id = 'a9d8c7b6-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
    // Every event, with the data the code that emits it builds.
    const bodies: Record<(typeof WEBHOOK_EVENT_NAMES)[number], Record<string, unknown>> = {
      [EVENT_FOR_STATUS.declared]: incidentEventData(incident),
      [EVENT_FOR_STATUS.contained]: incidentEventData(contained),
      [EVENT_FOR_STATUS.notified]: incidentEventData(notified),
      [EVENT_FOR_STATUS.closed]: incidentEventData(closed),
      'incident.deadline_72h': incidentEventData(incident),
      'member.created': { ...member },
      'contribution.received': contributionEventData(
        newContribution(id, { amount: { value: '25.00', currency: 'EUR' }, memberId }, now),
      ),
      'timebank.payout.settled': payoutEventData(settlePayout(id, { memberId, hours: 2.5 }, now)),
      'sanctuary.file.expired': fileExpiredEventData(id, '2026-11-22T09:00:00.000Z', now.toISOString()),
    };
    expect(Object.keys(bodies).sort()).toEqual([...WEBHOOK_EVENT_NAMES].sort());
    for (const [event, data] of Object.entries(bodies)) {
      const name = event as (typeof WEBHOOK_EVENT_NAMES)[number];
      const body = JSON.parse(
        webhookBody({ eventId: 'e', event: name, organisationId, occurredAt: now.toISOString(), data }, 1),
      );
      const validate = compile(doc.webhooks[name].post.requestBody.content['application/json'].schema);
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
      expect(webhookPayloadSchemas[name].safeParse(body).success).toBe(true);
    }
    const wrong = { event: 'member.created', organisationId, member: { id: 'x' }, attempt: 0 };
    expect(
      compile(doc.webhooks['member.created'].post.requestBody.content['application/json'].schema)(wrong),
    ).toBe(false);
  });

  it('bounds every number it describes, so that a client knows what is refused', () => {
    const unbounded: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (node === null || typeof node !== 'object') return;
      const schema = node as Json;
      const types = [schema.type].flat();
      if ((types.includes('number') || types.includes('integer')) && schema.const === undefined) {
        const low = schema.minimum ?? schema.exclusiveMinimum;
        const high = schema.maximum ?? schema.exclusiveMaximum;
        if (low === undefined || high === undefined) unbounded.push(at);
      }
      for (const [key, child] of Object.entries(schema)) walk(child, `${at}/${key}`);
    };
    walk(doc, '#');
    expect(unbounded).toEqual([]);
    const value = doc.components.schemas.NewImpactMetric.properties.value;
    expect(value).toMatchObject({ minimum: -(2 ** 53 - 1), maximum: 2 ** 53 - 1, multipleOf: 0.000001 });
    const hours = doc.components.schemas.SettlePayout.properties.hours;
    expect(hours).toMatchObject({ exclusiveMinimum: 0, maximum: 10_000, multipleOf: 0.01 });
  });

  it('declares `limit` once: an integer from 1 to 100, default 20, on every list', () => {
    const lists = Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
      Object.entries<Json>(item)
        .filter(([, operation]) => deref(operation.responses['200'] ?? {}).content)
        .filter(([, operation]) => {
          const schema = deref(operation.responses['200'].content['application/json']?.schema ?? {});
          return schema.properties?.nextCursor !== undefined;
        })
        .map(([method, operation]) => ({ key: `${method} ${path}`, operation })),
    );
    expect(lists.map((l) => l.key).sort()).toEqual(
      [
        'get /breach-register',
        'get /events',
        'get /incidents',
        'get /webhooks',
        'get /webhooks/{id}/deliveries',
      ].sort(),
    );
    for (const { key, operation } of lists) {
      const limit = operation.parameters.find((p: Json) => p.in === 'query' && p.name === 'limit');
      expect(limit?.schema, key).toEqual({
        description: 'Items per page, 1 to 100; default 20.',
        type: 'integer',
        minimum: 1,
        maximum: 100,
        default: 20,
      });
      expect(
        operation.parameters.some((p: Json) => p.in === 'query' && p.name === 'cursor'),
        key,
      ).toBe(true);
    }
  });

  it('describes the query parameters each route takes, and a 400 for any other on every operation', () => {
    for (const route of routes) {
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
      if (!operation) continue;
      const documented = (operation.parameters ?? [])
        .filter((p: Json) => p.in === 'query')
        .map((p: Json) => p.name)
        .sort();
      expect(documented, routeKey(route)).toEqual(Object.keys(ROUTE_QUERIES[routeKey(route)].shape).sort());
      expect(operation.responses['400'], routeKey(route)).toEqual({
        $ref: '#/components/responses/BadRequest',
      });
    }
  });

  it('describes every field of the incident bodies, and says that text is trimmed', () => {
    for (const path of [
      '/incidents',
      '/incidents/{id}/contain',
      '/incidents/{id}/notify',
      '/incidents/{id}/close',
    ]) {
      const body = deref(doc.paths[path].post.requestBody.content['application/json'].schema);
      for (const [name, property] of Object.entries<Json>(body.properties)) {
        expect(property.description, `${path} ${name}`).toMatch(/\w{3}/);
        if (property.type === 'string' && !property.format && !property.enum) {
          expect(property.description, `${path} ${name}`).toContain('white space is removed');
        }
      }
    }
  });

  it('lets a bare POST through where every field of the body is optional', () => {
    for (const route of routes.filter((r) => r.method === 'POST')) {
      const body = doc.paths[route.path].post.requestBody;
      // Operations that take no fields at all declare no body (a `{}` is still accepted).
      if (!OPERATIONS[routeKey(route)].body) {
        expect(body, route.path).toBeUndefined();
        continue;
      }
      const optional = [
        '/incidents/{id}/contain',
        '/incidents/{id}/notify',
        '/incidents/{id}/close',
        '/webhooks/{id}/rotate-secret',
      ];
      expect(body.required, route.path).toBe(!optional.includes(route.path));
    }
  });

  it('says how every request is read: HEAD, the media type, text, numbers and browser origins', () => {
    for (const phrase of [
      '`HEAD`',
      '`415`',
      'NUL',
      'unpaired surrogates',
      'white space is removed',
      '`multipleOf`',
      'CORS_ALLOW_ORIGINS',
      '`431`',
    ]) {
      expect(doc.info.description, phrase).toContain(phrase);
    }
  });
});
