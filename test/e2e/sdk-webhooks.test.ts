import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from '../../sdk/src/index.js';
import { newSigningSecret } from '../../shared/domain/webhook-endpoint.js';
import { incidentFields, unthrottledOrganisation } from '../support/api.js';
import { forIncident } from '../support/marker.js';
import { sdkClient } from '../support/sdk.js';
import { answer, type ReceivedWebhook, type Receiver, startReceiver } from '../support/webhook-receiver.js';

/**
 * The SDK's verifier against real deliveries: the stack signs and POSTs every kind of event to a local
 * receiver, registered through the SDK, and each is verified as a subscriber would.
 */
let receiver: Receiver;
let secret: string;
let client: ReturnType<typeof sdkClient>['client'];
let organisationId: string;
const EVERY_EVENT = [
  'incident.declared',
  'incident.contained',
  'incident.notified',
  'incident.closed',
  'incident.deadline_72h',
  'member.created',
  'contribution.received',
  'timebank.payout.settled',
  'sanctuary.file.expired',
] as const satisfies readonly WebhookEvent['event'][];

beforeAll(async () => {
  receiver = await startReceiver();
  const org = await unthrottledOrganisation();
  organisationId = org.organisationId;
  client = sdkClient(org.writer).client;
  secret = (await client.POST('/webhooks', { body: { url: receiver.url } })).data.secret;

  const { data: incident } = await client.POST('/incidents', { body: incidentFields() as never });
  const path = { params: { path: { id: incident.id } } };
  await client.POST('/incidents/{id}/contain', path);
  await client.POST('/incidents/{id}/notify', path);
  await client.POST('/incidents/{id}/close', path);
  // Detected 61 hours ago: its deadline alarm is due at once.
  const detectedAt = new Date(Date.now() - 61 * 3600_000).toISOString();
  await client.POST('/incidents', { body: incidentFields({ detectedAt }) as never });
  const { data: member } = await client.POST('/members', { body: { membershipType: 'regular' } });
  await client.POST('/contributions', { body: { amount: { value: '10.00', currency: 'EUR' } } });
  await client.POST('/timebank/payouts', { body: { memberId: member.id, hours: 1 } });
  const expiresAt = new Date(Date.now() + 1000).toISOString();
  await client.POST('/sanctuary/files', { body: { name: 'soon.pdf', expiresAt } });
  for (const name of EVERY_EVENT) {
    await receiver.waitFor(1, (w) => w.headers['x-service-event'] === name, 30_000);
  }
});
afterAll(() => receiver.close());

const delivered = (event: string): ReceivedWebhook => {
  const found = receiver.received.find((w) => w.headers['x-service-event'] === event);
  if (!found) throw new Error(`no ${event} delivery`);
  return found;
};

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as Error).message;
  }
  throw new Error('the delivery was accepted');
}

describe('verifyWebhook on real deliveries', () => {
  it('verifies every kind of event and returns it typed, as the body says', () => {
    for (const name of EVERY_EVENT) {
      const webhook = delivered(name);
      const event = verifyWebhook(secret, webhook.rawBody, webhook.headers);
      expect(event).toEqual(JSON.parse(webhook.rawBody));
      expect(event.event).toBe(name);
      expect(event.attempt).toBe(1);
    }
  });

  it('narrows the payload on the event name', () => {
    const webhook = delivered('incident.declared');
    const event = verifyWebhook(secret, Buffer.from(webhook.rawBody), webhook.headers);
    if (event.event !== 'incident.declared') throw new Error(`got ${event.event}`);
    expect(event.incident.severity).toBe('high');
  });

  it('refuses a tampered body and the wrong secret', () => {
    const webhook = delivered('member.created');
    const tampered = webhook.rawBody.replace('"attempt":1', '"attempt":2');
    expect(tampered).not.toBe(webhook.rawBody);
    expect(refusal(() => verifyWebhook(secret, tampered, webhook.headers))).toMatch(/matches/);
    expect(refusal(() => verifyWebhook(newSigningSecret(), webhook.rawBody, webhook.headers))).toMatch(
      /matches/,
    );
  });

  it('refuses the same delivery replayed more than five minutes after its timestamp', () => {
    const webhook = delivered('contribution.received');
    const later = Number(webhook.headers['webhook-timestamp']) * 1000 + 301_000;
    expect(refusal(() => verifyWebhook(secret, webhook.rawBody, webhook.headers, { now: later }))).toMatch(
      /outside the 300 s window/,
    );
  });

  it('verifies a real webhook.test send and narrows it to the webhook.test payload', async () => {
    const url = receiver.route('/test-send', answer(200));
    const { data: endpoint } = await client.POST('/webhooks', { body: { url, events: ['member.created'] } });
    const { data: sent } = await client.POST('/webhooks/{id}/test', {
      params: { path: { id: endpoint.id } },
    });
    const [webhook] = await receiver.waitFor(
      1,
      (w) => w.path === '/test-send' && w.headers['webhook-id'] === sent.deliveryId,
    );
    const event = verifyWebhook(
      endpoint.secret,
      (webhook as ReceivedWebhook).rawBody,
      webhook?.headers ?? {},
    );
    if (event.event !== 'webhook.test') throw new Error(`got ${event.event}`);
    // Compiles only once narrowed: `webhook` is a field of the webhook.test payload alone.
    expect(event.webhook.id).toBe(endpoint.id);
    expect(event).toEqual({
      event: 'webhook.test',
      organisationId,
      webhook: { id: endpoint.id },
      attempt: 1,
    });
    expect(refusal(() => verifyWebhook(secret, webhook?.rawBody ?? '', webhook?.headers ?? {}))).toMatch(
      /matches/,
    );
  });

  it('after a real rotate-secret, accepts the old, the new and both during the overlap, and refuses a third', async () => {
    const url = receiver.route('/rotation', answer(200));
    const { data: endpoint } = await client.POST('/webhooks', {
      body: { url, events: ['incident.declared'] },
    });
    const path = { params: { path: { id: endpoint.id } } };
    const old = endpoint.secret;
    const { data: rotated } = await client.POST('/webhooks/{id}/rotate-secret', { ...path, body: {} });
    expect(rotated.secret).not.toBe(old);
    const arrival = async () => {
      const { data: incident } = await client.POST('/incidents', { body: incidentFields() as never });
      const [webhook] = await receiver.waitFor(
        1,
        (w) => w.path === '/rotation' && forIncident(incident.id)(w),
      );
      return webhook as ReceivedWebhook;
    };

    const during = await arrival();
    for (const key of [old, rotated.secret, [rotated.secret, old]]) {
      expect(verifyWebhook(key, during.rawBody, during.headers).event).toBe('incident.declared');
    }
    const third = newSigningSecret();
    expect(refusal(() => verifyWebhook(third, during.rawBody, during.headers))).toMatch(/matches/);

    // overlapHours 0 (a leaked secret): only the newest signs from now on.
    const { data: emergency } = await client.POST('/webhooks/{id}/rotate-secret', {
      ...path,
      body: { overlapHours: 0 },
    });
    const after = await arrival();
    expect(verifyWebhook(emergency.secret, after.rawBody, after.headers).event).toBe('incident.declared');
    for (const key of [rotated.secret, old]) {
      expect(refusal(() => verifyWebhook(key, after.rawBody, after.headers))).toMatch(/matches/);
    }
  });
});
