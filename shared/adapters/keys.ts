import {
  ENDPOINT_PACE_SORT_KEY,
  PENDING_DELIVERIES_INDEX_KEY,
  RATE_COUNTER_KEY_PREFIX,
} from '../topology/table.js';

/** Key shapes of the single table, in one place so that no two item kinds can collide. */
export const keys = {
  organisation: (id: string) => ({ pk: `ORG#${id}`, sk: 'ORG' }),
  token: (prefix: string) => ({ pk: `TOKEN#${prefix}`, sk: 'TOKEN' }),
  tokensOfOrganisation: (organisationId: string) => `ORG#${organisationId}#TOKENS`,
  rateCounter: (tokenId: string, windowStart: number) => ({
    pk: `${RATE_COUNTER_KEY_PREFIX}${tokenId}`,
    sk: String(windowStart),
  }),
  webhookEndpoints: (organisationId: string) => `ORG#${organisationId}#WEBHOOKS`,
  webhookEndpoint: (organisationId: string, endpointId: string) => ({
    pk: `ORG#${organisationId}#WEBHOOKS`,
    sk: `ENDPOINT#${endpointId}`,
  }),
  deliveries: (organisationId: string, endpointId: string) =>
    `ORG#${organisationId}#WEBHOOK#${endpointId}#DELIVERIES`,
  endpointPace: (organisationId: string, endpointId: string) => ({
    pk: `ORG#${organisationId}#WEBHOOK#${endpointId}`,
    sk: ENDPOINT_PACE_SORT_KEY,
  }),
  /** Beside the delivery's attempts (whose sort keys start with `ATTEMPT#`). */
  pendingDelivery: (organisationId: string, endpointId: string, deliveryId: string) => ({
    pk: `ORG#${organisationId}#WEBHOOK#${endpointId}#DELIVERIES`,
    sk: `PENDING#${deliveryId}`,
  }),
  pendingDeliveries: () => PENDING_DELIVERIES_INDEX_KEY,
  incident: (organisationId: string, id: string) => ({
    pk: `ORG#${organisationId}#INCIDENT#${id}`,
    sk: 'INCIDENT',
  }),
  incidentsOfOrganisation: (organisationId: string) => `ORG#${organisationId}#INCIDENTS`,
  idempotency: (organisationId: string, keyHash: string) => ({
    pk: `ORG#${organisationId}#IDEMPOTENCY#${keyHash}`,
    sk: 'KEY',
  }),
  member: (organisationId: string, id: string) => ({
    pk: `ORG#${organisationId}#MEMBER#${id}`,
    sk: 'MEMBER',
  }),
  /** Running member counts; the day buckets sort before `TOTALS`, so one Query reads a window and the totals. */
  memberStatistics: (organisationId: string) => `ORG#${organisationId}#MEMBERSTATS`,
  memberTotals: (organisationId: string) => ({ pk: `ORG#${organisationId}#MEMBERSTATS`, sk: 'TOTALS' }),
  membersJoinedOn: (organisationId: string, day: string) => ({
    pk: `ORG#${organisationId}#MEMBERSTATS`,
    sk: `JOINED#${day}`,
  }),
  event: (organisationId: string, id: string) => ({ pk: `ORG#${organisationId}#EVENT#${id}`, sk: 'EVENT' }),
  /** gsi1 partition of the organisation's public events, sorted by `<startsAt>#<id>`. Private events have no gsi1 keys. */
  publicEvents: (organisationId: string) => `ORG#${organisationId}#PUBLICEVENTS`,
  impactReport: (organisationId: string, id: string) => ({
    pk: `ORG#${organisationId}#IMPACT`,
    sk: `REPORT#${id}`,
  }),
  latestImpactReport: (organisationId: string) => ({ pk: `ORG#${organisationId}#IMPACT`, sk: 'LATEST' }),
  contribution: (organisationId: string, id: string) => ({
    pk: `ORG#${organisationId}#CONTRIBUTION#${id}`,
    sk: 'CONTRIBUTION',
  }),
  timebankPayout: (organisationId: string, id: string) => ({
    pk: `ORG#${organisationId}#PAYOUT#${id}`,
    sk: 'PAYOUT',
  }),
  sanctuaryFile: (organisationId: string, id: string) => ({
    pk: `ORG#${organisationId}#FILE#${id}`,
    sk: 'FILE',
  }),
  /** A timer sits beside what it is due for: the same partition, its own sort key. */
  incidentDeadlineTimer: (organisationId: string, incidentId: string) => ({
    pk: `ORG#${organisationId}#INCIDENT#${incidentId}`,
    sk: 'TIMER#DEADLINE_72H',
  }),
  fileExpiryTimer: (organisationId: string, fileId: string) => ({
    pk: `ORG#${organisationId}#FILE#${fileId}`,
    sk: 'TIMER#EXPIRY',
  }),
  /** Partition of the sparse `timers` index: only a timer that has not fired yet has this attribute. */
  dueTimers: (shard: number) => `TIMERS#${shard}`,
  /** Partitions of the same index holding outbox items by when they were put on the stream. */
  outboxByTime: (shard: number) => `OUTBOX#AT#${shard}`,
  /** The relay's receipts: one item per relayed batch, sorted by when it was written. */
  relayReceipts: 'OUTBOX#RELAYED',
  /** Where the outbox sweep has read each shard up to. */
  outboxSweepCheckpoint: { pk: 'OUTBOX#SWEEP', sk: 'CHECKPOINT' },
};
