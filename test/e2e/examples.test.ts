import { beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, call, unthrottledOrganisation } from '../support/api.js';
import {
  openApiDocument as document,
  type Json,
  resolveRef as resolve,
} from '../support/openapi-document.js';

/**
 * The OpenAPI document's request examples, sent to the running service as a reader of the document
 * would send them: each operation's body built from its fields' examples (every field, optional
 * ones too) and its query from its parameters' examples, after creating what they refer to. Every
 * one must be accepted: an example the API refuses teaches a client the wrong thing.
 */
/** A value built from the examples of a schema; a required field without one fails the test. */
function exampleOf(node: Json, where: string): unknown {
  const schema = resolve(node);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.type === 'array') return [exampleOf(schema.items, `${where}[0]`)];
  if (schema.type === 'object' || schema.properties) {
    const value: Record<string, unknown> = {};
    for (const [name, property] of Object.entries<Json>(schema.properties ?? {})) {
      const example = exampleOf(property, `${where}.${name}`);
      if (example !== undefined) value[name] = example;
      else if ((schema.required ?? []).includes(name)) throw new Error(`${where}.${name} has no example`);
    }
    return value;
  }
  return undefined;
}

interface Operation {
  method: string;
  path: string;
  body?: unknown;
  query: URLSearchParams;
}

/** Every operation of the document that takes a body or query parameters, with its examples. */
const operations: Operation[] = Object.entries<Json>(document.paths).flatMap(([path, item]) =>
  Object.entries<Json>(item).flatMap(([method, operation]) => {
    const query = new URLSearchParams();
    for (const parameter of (operation.parameters ?? []).map(resolve)) {
      if (parameter.in !== 'query') continue;
      const example = exampleOf(parameter.schema, `${method} ${path} ?${parameter.name}`);
      if (example !== undefined) query.set(parameter.name, String(example));
    }
    const schema = operation.requestBody?.content?.['application/json']?.schema;
    if (!schema && query.size === 0) return [];
    return [
      {
        method: method.toUpperCase(),
        path,
        query,
        ...(schema ? { body: exampleOf(schema, `${method} ${path} body`) } : {}),
      },
    ];
  }),
);

/** The ids the examples use for resources: each one stands for a resource created first. */
const exampleIds = new Set<string>(
  JSON.stringify(document.components.schemas).match(
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
  ),
);

let tenant: Awaited<ReturnType<typeof unthrottledOrganisation>>;
/** Webhook endpoints in an organisation of their own, where nothing happens: no delivery ever leaves. */
let hooks: Awaited<ReturnType<typeof unthrottledOrganisation>>;

beforeAll(async () => {
  [tenant, hooks] = await Promise.all([unthrottledOrganisation(), unthrottledOrganisation()]);
});

async function send(operation: Operation, path: string, token: string, ids: ReadonlyMap<string, string>) {
  const body =
    operation.body === undefined
      ? undefined
      : JSON.stringify(operation.body, (_, value) =>
          typeof value === 'string' ? (ids.get(value) ?? value) : value,
        );
  const query = operation.query.size > 0 ? `?${operation.query}` : '';
  const response = await call(`${path}${query}`, {
    method: operation.method,
    token,
    ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body }),
  });
  expect(
    response.status,
    `${operation.method} ${operation.path}${query} ${body ?? ''}: ${await response.clone().text()}`,
  ).toBeLessThan(300);
  return response;
}

const find = (method: string, path: string) => {
  const operation = operations.find((o) => o.method === method && o.path === path);
  if (!operation) throw new Error(`No example for ${method} ${path}`);
  return operation;
};

describe('the request examples of the OpenAPI document', () => {
  it('cover every operation that takes a body or query parameters', () => {
    expect(operations.map((o) => `${o.method} ${o.path}`).sort()).toEqual(
      [
        'GET /breach-register',
        'GET /events',
        'GET /incidents',
        'PATCH /incidents/{id}',
        'POST /incidents/{id}/authority-updates',
        'POST /incidents/{id}/data-subject-communication',
        'GET /webhooks',
        'GET /webhooks/{id}/deliveries',
        'PATCH /webhooks/{id}',
        'POST /webhooks/{id}/rotate-secret',
        'POST /webhooks/{id}/recover',
        'POST /contributions',
        'POST /events',
        'POST /impact',
        'POST /incidents',
        'POST /incidents/{id}/close',
        'POST /incidents/{id}/contain',
        'POST /incidents/{id}/notify',
        'POST /members',
        'POST /sanctuary/files',
        'POST /timebank/payouts',
        'POST /webhooks',
      ].sort(),
    );
  });

  it('are each accepted by the running service, once what they refer to exists', async () => {
    // The member the examples' memberId stands for.
    const member = await bodyOf<{ id: string }>(
      await send(find('POST', '/members'), '/members', tenant.writer, new Map()),
    );
    const ids = new Map([...exampleIds].map((id) => [id, member.id]));
    const done = new Set(['POST /members']);
    for (const operation of operations) {
      const key = `${operation.method} ${operation.path}`;
      if (done.has(key) || operation.path.startsWith('/webhooks')) continue;
      let path = operation.path;
      if (path.includes('{id}')) {
        // Each move on an incident of its own, declared from the example.
        const incident = await bodyOf<{ id: string }>(
          await send(find('POST', '/incidents'), '/incidents', tenant.writer, ids),
        );
        path = path.replace('{id}', incident.id);
        // A follow-up goes to the authority after the initial notification: notify first, from its example.
        if (key === 'POST /incidents/{id}/authority-updates')
          await send(
            find('POST', '/incidents/{id}/notify'),
            `/incidents/${incident.id}/notify`,
            tenant.writer,
            ids,
          );
      }
      await send(operation, path, tenant.writer, ids);
      done.add(key);
    }
    const endpoint = await bodyOf<{ id: string }>(
      await send(find('POST', '/webhooks'), '/webhooks', hooks.writer, ids),
    );
    await send(find('GET', '/webhooks'), '/webhooks', hooks.reader, ids);
    await send(
      find('GET', '/webhooks/{id}/deliveries'),
      `/webhooks/${endpoint.id}/deliveries`,
      hooks.reader,
      ids,
    );
    await send(find('PATCH', '/webhooks/{id}'), `/webhooks/${endpoint.id}`, hooks.writer, ids);
    await send(
      find('POST', '/webhooks/{id}/rotate-secret'),
      `/webhooks/${endpoint.id}/rotate-secret`,
      hooks.writer,
      ids,
    );
    // A fixed example instant cannot stay within the 90-day retention as time passes: the example
    // is checked for its shape, and sent with an instant of an hour ago.
    const recover = find('POST', '/webhooks/{id}/recover');
    expect(recover.body).toEqual({ since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    await send(
      { ...recover, body: { since: new Date(Date.now() - 3_600_000).toISOString() } },
      `/webhooks/${endpoint.id}/recover`,
      hooks.writer,
      ids,
    );
    expect((await call(`/webhooks/${endpoint.id}`, { method: 'DELETE', token: hooks.writer })).status).toBe(
      204,
    );
  });
});
