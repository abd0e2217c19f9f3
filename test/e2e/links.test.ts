import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { STAGE } from '../../infra/local/gateway.js';
import { BASE_PATH } from '../../shared/config.js';
import { baseUrl, unthrottledOrganisation } from '../support/api.js';
import { E2E_BASE_PATH } from '../support/local-stack.setup.js';

type Tenant = Awaited<ReturnType<typeof unthrottledOrganisation>>;
let tenant: Tenant;

/**
 * The three ways the API is reached on AWS, as the local gateway serves them: a custom domain mapped
 * at its root (what `npm start` prints), the stage URL (`/{stage}` in front; API Gateway strips it from
 * `event.path`) and a custom domain with a base path mapping (which API Gateway leaves in `event.path`).
 */
function bases(): Record<string, string> {
  const { origin } = new URL(baseUrl());
  return {
    'custom domain': `${origin}${BASE_PATH}`,
    'stage URL': `${origin}/${STAGE}${BASE_PATH}`,
    'custom domain with a base path': `${origin}/${E2E_BASE_PATH}${BASE_PATH}`,
  };
}

async function send(url: string, token: string, body?: unknown): Promise<Response> {
  return fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function json<T>(response: Response): Promise<T> {
  if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

beforeAll(async () => {
  tenant = await unthrottledOrganisation();
});

describe.each(Object.entries(bases()))('links through a %s', (_, base) => {
  it('Location names the new resource under the URL that was called, and following it reads it', async () => {
    const member = await json<{ id: string }>(
      await send(`${base}/members`, tenant.writer, { membershipType: 'regular' }),
    );
    const creations: [string, unknown][] = [
      [
        '/incidents',
        {
          severity: 'low',
          category: 'availability',
          detectedAt: new Date(Date.now() - 60_000).toISOString(),
        },
      ],
      ['/webhooks', { url: 'http://127.0.0.1:9/links', events: ['incident.deadline_72h'] }],
      ['/contributions', { amount: { value: '3.00', currency: 'EUR' } }],
      ['/timebank/payouts', { memberId: member.id, hours: 1 }],
      ['/sanctuary/files', { name: 'links.pdf', expiresAt: new Date(Date.now() + 86_400_000).toISOString() }],
    ];
    for (const [collection, body] of creations) {
      const response = await send(`${base}${collection}`, tenant.writer, body);
      expect(response.status, collection).toBe(201);
      const created = (await response.json()) as { id: string };
      const location = new URL(response.headers.get('location') ?? '', base);
      expect(location.href, collection).toBe(`${base}${collection}/${created.id}`);
      // Webhook endpoints have no GET of their own yet; their deliveries are reached below them.
      if (collection === '/webhooks') {
        expect((await send(`${location.href}/deliveries`, tenant.reader)).status).toBe(200);
        continue;
      }
      const followed = await json<{ id: string }>(await send(location.href, tenant.reader));
      expect(followed.id, collection).toBe(created.id);
    }
  });

  it('pages through every list by passing nextCursor back', async () => {
    const marker = randomUUID();
    const startsAt = new Date(Date.now() + 3_600_000).toISOString();
    for (let i = 0; i < 3; i++) {
      await json(
        await send(`${base}/incidents`, tenant.writer, {
          severity: 'low',
          category: 'availability',
          detectedAt: new Date(Date.now() - 60_000).toISOString(),
          title: `${marker} ${i}`,
        }),
      );
      await json(await send(`${base}/events`, tenant.writer, { title: `${marker} ${i}`, startsAt }));
    }
    for (const list of ['/incidents', '/events']) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const page: { data: { id: string }[]; nextCursor: string | null } = await json(
          await send(`${base}${list}?limit=2${query}`, tenant.reader),
        );
        seen.push(...page.data.map((item) => item.id));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor && pages < 100);
      expect(pages, list).toBeGreaterThan(1);
      expect(new Set(seen).size, list).toBe(seen.length);
      expect(seen.length, list).toBeGreaterThanOrEqual(3);
    }
  });
});
