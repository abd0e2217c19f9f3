import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { readDeliveryTarget } from '../../shared/adapters/delivery-target.js';
import { settleEndpointPace } from '../../shared/adapters/endpoint-pace-store.js';
import { createWebhookEndpoint } from '../../shared/adapters/webhook-endpoint-store.js';
import { useFreshTable } from '../support/table.js';

beforeAll(async () => {
  await useFreshTable();
  process.env.LOCAL_SECRET_KEY = randomBytes(32).toString('base64');
});

describe("a delivery batch's read of its endpoint", () => {
  it('returns the endpoint with its secret and its pace from one read', async () => {
    const organisationId = randomUUID();
    const created = await createWebhookEndpoint({
      organisationId,
      url: 'https://example.org/hook',
      events: [],
    });
    const now = Date.now();
    await settleEndpointPace(
      organisationId,
      created.endpoint.id,
      { strike: true, hadStrikes: false, slot: undefined },
      now,
    );

    const target = await readDeliveryTarget(organisationId, created.endpoint.id);
    expect(target.endpoint?.endpoint).toMatchObject({
      id: created.endpoint.id,
      url: 'https://example.org/hook',
    });
    expect(target.endpoint?.secret).toBe(created.secret);
    expect(target.pace).toEqual({ strikes: 1, lastStrikeAt: now });
  });

  it('tells a deleted endpoint, and an endpoint never struck, apart', async () => {
    const organisationId = randomUUID();
    expect(await readDeliveryTarget(organisationId, randomUUID())).toEqual({
      endpoint: undefined,
      pace: { strikes: 0, lastStrikeAt: 0 },
    });
    const created = await createWebhookEndpoint({ organisationId, url: 'https://example.org/b', events: [] });
    const target = await readDeliveryTarget(organisationId, created.endpoint.id);
    expect(target.endpoint?.endpoint.id).toBe(created.endpoint.id);
    expect(target.pace).toEqual({ strikes: 0, lastStrikeAt: 0 });
  });

  it("does not read another organisation's endpoint", async () => {
    const created = await createWebhookEndpoint({
      organisationId: randomUUID(),
      url: 'https://example.org/c',
      events: [],
    });
    expect((await readDeliveryTarget(randomUUID(), created.endpoint.id)).endpoint).toBeUndefined();
  });
});
