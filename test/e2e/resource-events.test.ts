import { randomUUID } from 'node:crypto';
import { verify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, call, postJson, problemOf, unthrottledOrganisation } from '../support/api.js';
import { about, receivedBeforeMarker } from '../support/marker.js';
import { type ReceivedWebhook, type Receiver, startReceiver } from '../support/webhook-receiver.js';

let organisationId: string;
let writer: string;
let reader: string;
let secret: string;
let hook: Receiver;
let payoutsOnly: Receiver;

/** The webhook for one resource, after checking what every event must be: signed both ways, attempt 1. */
async function webhookFor(
  event: string,
  key: string,
  id: string,
  timeoutMs?: number,
): Promise<ReceivedWebhook> {
  const [webhook] = await hook.waitFor(1, (w) => w.body.event === event && about(key, id)(w), timeoutMs);
  if (!webhook) throw new Error(`no ${event}`);
  expect(webhook.body.attempt).toBe(1);
  expect(webhook.body.organisationId).toBe(organisationId);
  expect(webhook.headers['x-service-event']).toBe(event);
  expect(await verify(secret, webhook.rawBody, String(webhook.headers['x-service-signature']))).toBe(true);
  expect(new Webhook(secret).verify(webhook.rawBody, webhook.headers)).toEqual(webhook.body);
  return webhook;
}

async function newMember(): Promise<string> {
  const response = await postJson('/members', writer, { membershipType: 'regular' });
  expect(response.status).toBe(201);
  return (await bodyOf<{ id: string }>(response)).id;
}

beforeAll(async () => {
  ({ organisationId, writer, reader } = await unthrottledOrganisation());
  hook = await startReceiver();
  payoutsOnly = await startReceiver();
  secret = (await bodyOf<{ secret: string }>(await postJson('/webhooks', writer, { url: hook.url }))).secret;
  await postJson('/webhooks', writer, { url: payoutsOnly.url, events: ['timebank.payout.settled'] });
});

afterAll(async () => {
  await Promise.all([hook.close(), payoutsOnly.close()]);
});

describe('member.created', () => {
  it('is sent with the recorded member, which holds no personal data', async () => {
    const response = await postJson('/members', writer, {
      membershipType: 'student',
      region: 'north',
      joinedAt: '2026-01-15',
    });
    expect(response.status).toBe(201);
    const member = await bodyOf<{ id: string }>(response);
    const webhook = await webhookFor('member.created', 'member', member.id);
    expect(webhook.body.member).toEqual(member);
  });
});

describe('contribution.received', () => {
  it('is sent with the amount as recorded, exact, and the contribution can be read back', async () => {
    const memberId = await newMember();
    const response = await postJson('/contributions', writer, {
      amount: { value: '25.5', currency: 'EUR' },
      memberId,
      receivedAt: '2026-11-20T09:00:00+01:00',
    });
    expect(response.status).toBe(201);
    const contribution = await bodyOf<{ id: string }>(response);
    expect(contribution).toMatchObject({
      amount: { value: '25.50', currency: 'EUR' },
      memberId,
      receivedAt: '2026-11-20T08:00:00.000Z',
    });
    expect(response.headers.get('location')).toMatch(new RegExp(`/contributions/${contribution.id}$`));
    const webhook = await webhookFor('contribution.received', 'contribution', contribution.id);
    expect(webhook.body.contribution).toEqual({
      id: contribution.id,
      amount: { value: '25.50', currency: 'EUR' },
      memberId,
      receivedAt: '2026-11-20T08:00:00.000Z',
    });
    const read = await call(`/contributions/${contribution.id}`, { token: reader });
    expect(read.status).toBe(200);
    expect(await bodyOf(read)).toEqual(contribution);
  });

  it('needs no member, and takes a currency without minor unit', async () => {
    const response = await postJson('/contributions', writer, { amount: { value: '5000', currency: 'JPY' } });
    expect(response.status).toBe(201);
    const contribution = await bodyOf<{ id: string; memberId: null }>(response);
    expect(contribution.memberId).toBeNull();
    await webhookFor('contribution.received', 'contribution', contribution.id);
  });
});

describe('timebank.payout.settled', () => {
  it('is sent without the note, to every endpoint that subscribes to it', async () => {
    const memberId = await newMember();
    const response = await postJson('/timebank/payouts', writer, {
      memberId,
      hours: 2.25,
      note: 'Garden work with Ada Lovelace',
    });
    expect(response.status).toBe(201);
    const payout = await bodyOf<{ id: string; settledAt: string }>(response);
    expect(payout).toMatchObject({
      memberId,
      hours: 2.25,
      status: 'settled',
      note: 'Garden work with Ada Lovelace',
    });
    const webhook = await webhookFor('timebank.payout.settled', 'payout', payout.id);
    expect(webhook.body.payout).toEqual({
      id: payout.id,
      memberId,
      hours: 2.25,
      settledAt: payout.settledAt,
    });
    expect(webhook.rawBody).not.toMatch(/Ada|Garden|note/);
    const [filtered] = await payoutsOnly.waitFor(1, about('payout', payout.id));
    expect(filtered?.body.attempt).toBe(1);
    expect(payoutsOnly.received.every((w) => w.body.event === 'timebank.payout.settled')).toBe(true);
    const read = await call(`/timebank/payouts/${payout.id}`, { token: reader });
    expect(await bodyOf(read)).toEqual(payout);
  });
});

describe('sanctuary.file.expired', () => {
  it('is sent when the file reaches expiresAt, with ids and times but not the name', async () => {
    const expiresAt = new Date(Date.now() + 3000).toISOString();
    const response = await postJson('/sanctuary/files', writer, {
      name: 'Statement of Ada Lovelace.pdf',
      expiresAt,
    });
    expect(response.status).toBe(201);
    const file = await bodyOf<{ id: string; status: string; expiredAt: null }>(response);
    expect(file).toMatchObject({ status: 'active', expiredAt: null, expiresAt });

    const webhook = await webhookFor('sanctuary.file.expired', 'file', file.id, 30_000);
    const sent = webhook.body.file as { id: string; expiresAt: string; expiredAt: string };
    expect(Object.keys(sent).sort()).toEqual(['expiredAt', 'expiresAt', 'id']);
    expect(sent.expiresAt).toBe(expiresAt);
    expect(Date.parse(sent.expiredAt)).toBeGreaterThanOrEqual(Date.parse(expiresAt));
    expect(webhook.at).toBeGreaterThanOrEqual(Date.parse(expiresAt));
    expect(webhook.rawBody).not.toMatch(/Ada|Lovelace|name/);
    const read = await bodyOf(await call(`/sanctuary/files/${file.id}`, { token: reader }));
    expect(read).toMatchObject({ id: file.id, status: 'expired', expiredAt: sent.expiredAt });
    // A file expiring after it has fired its event in a later run of the timers: by then a second
    // event for this one would have come.
    const later = await bodyOf<{ id: string }>(
      await postJson('/sanctuary/files', writer, {
        name: 'later.pdf',
        expiresAt: new Date(Date.now() + 1500).toISOString(),
      }),
    );
    const sentForFile = await receivedBeforeMarker(hook, about('file', file.id), about('file', later.id), {
      timeoutMs: 30_000,
    });
    expect(sentForFile).toHaveLength(1);
  });
});

describe('bad input', () => {
  /** The fields a 400 validation_failed names, sorted. */
  const invalidFields = async (path: string, body: unknown) =>
    ((await problemOf(await postJson(path, writer, body), 400, 'validation_failed')).errors ?? [])
      .map((e) => e.field)
      .sort();

  it('is a 400 naming the fields: float amounts, decimals beyond the minor unit, unknown currencies', async () => {
    expect(await invalidFields('/contributions', { amount: { value: 25.5, currency: 'EUR' } })).toEqual([
      'amount.value',
    ]);
    expect(await invalidFields('/contributions', { amount: { value: '1.5', currency: 'JPY' } })).toEqual([
      'amount.value',
    ]);
    expect(await invalidFields('/contributions', { amount: { value: '1', currency: 'XYZ' } })).toEqual([
      'amount.currency',
    ]);
    expect(await invalidFields('/timebank/payouts', { memberId: randomUUID(), hours: 1.234 })).toEqual([
      'hours',
    ]);
    expect(await invalidFields('/sanctuary/files', { name: 'x', expiresAt: '2020-01-01T00:00:00Z' })).toEqual(
      ['expiresAt'],
    );
  });

  it('is a 404 for an unknown member, and then nothing is recorded or sent', async () => {
    const stranger = randomUUID();
    await problemOf(
      await postJson('/contributions', writer, {
        amount: { value: '10.00', currency: 'EUR' },
        memberId: stranger,
      }),
      404,
      'not_found',
    );
    await problemOf(
      await postJson('/timebank/payouts', writer, { memberId: stranger, hours: 1 }),
      404,
      'not_found',
    );
    // A later event arrives; nothing about the unknown member came before it.
    const marker = await bodyOf<{ id: string }>(
      await postJson('/contributions', writer, { amount: { value: '1', currency: 'EUR' } }),
    );
    await webhookFor('contribution.received', 'contribution', marker.id);
    expect(hook.received.filter((w) => w.rawBody.includes(stranger))).toEqual([]);
  });

  it('is a 404 for unknown ids and a 403 for writes with a read token', async () => {
    for (const path of ['/contributions', '/timebank/payouts', '/sanctuary/files']) {
      expect((await call(`${path}/${randomUUID()}`, { token: reader })).status).toBe(404);
      expect((await call(`${path}/not-an-id`, { token: reader })).status).toBe(404);
    }
    expect(
      (await postJson('/contributions', reader, { amount: { value: '1', currency: 'EUR' } })).status,
    ).toBe(403);
  });
});
