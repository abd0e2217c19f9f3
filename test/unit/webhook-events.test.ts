import { describe, expect, it } from 'vitest';
import { deliveryIdFor } from '../../shared/domain/delivery-id.js';
import { subscribes, type WebhookEndpoint } from '../../shared/domain/webhook-endpoint.js';
import { WEBHOOK_EVENT_NAMES, webhookBody } from '../../shared/domain/webhook-events.js';

const endpoint = (events: WebhookEndpoint['events'], disabledAt: string | null = null): WebhookEndpoint => ({
  id: 'e1',
  organisationId: 'o1',
  url: 'https://example.test/hook',
  events,
  createdAt: '2026-01-01T00:00:00.000Z',
  description: null,
  disabledAt,
  disabledReason: disabledAt === null ? null : 'manual',
  failingSince: null,
  previousSecretExpiresAt: null,
});

describe('webhook events', () => {
  it('are the nine of spec section 6.3', () => {
    expect(WEBHOOK_EVENT_NAMES).toEqual([
      'incident.declared',
      'incident.contained',
      'incident.notified',
      'incident.closed',
      'incident.deadline_72h',
      'member.created',
      'contribution.received',
      'timebank.payout.settled',
      'sanctuary.file.expired',
    ]);
  });

  it('have the payload shape of spec 6.2, the resource under its own key', () => {
    const base = { eventId: 'ev', organisationId: 'o1', occurredAt: '2026-01-01T00:00:00.000Z' };
    expect(JSON.parse(webhookBody({ ...base, event: 'incident.declared', data: { id: 'i1' } }, 1))).toEqual({
      event: 'incident.declared',
      organisationId: 'o1',
      incident: { id: 'i1' },
      attempt: 1,
    });
    expect(
      JSON.parse(webhookBody({ ...base, event: 'timebank.payout.settled', data: { id: 'p1' } }, 3)),
    ).toEqual({
      event: 'timebank.payout.settled',
      organisationId: 'o1',
      payout: { id: 'p1' },
      attempt: 3,
    });
  });

  it('reach an endpoint that subscribes to them, also a disabled one (there they are logged skipped)', () => {
    expect(subscribes(endpoint([]), 'member.created')).toBe(true);
    expect(subscribes(endpoint(['incident.closed']), 'incident.closed')).toBe(true);
    expect(subscribes(endpoint(['incident.closed']), 'incident.declared')).toBe(false);
    expect(subscribes(endpoint([], '2026-01-02T00:00:00.000Z'), 'member.created')).toBe(true);
  });

  it('never fan webhook.test out: it goes to one endpoint when its owner asks', () => {
    expect(subscribes(endpoint([]), 'webhook.test')).toBe(false);
    const body = { eventId: 'ev', organisationId: 'o1', occurredAt: '2026-01-01T00:00:00.000Z' };
    expect(JSON.parse(webhookBody({ ...body, event: 'webhook.test', data: { id: 'e1' } }, 1))).toEqual({
      event: 'webhook.test',
      organisationId: 'o1',
      webhook: { id: 'e1' },
      attempt: 1,
    });
  });

  it('get one delivery id per event and endpoint, the same however often it is derived', () => {
    const id = deliveryIdFor('event-1', 'endpoint-1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(deliveryIdFor('event-1', 'endpoint-1')).toBe(id);
    expect(deliveryIdFor('event-1', 'endpoint-2')).not.toBe(id);
    expect(deliveryIdFor('event-2', 'endpoint-1')).not.toBe(id);
  });
});
