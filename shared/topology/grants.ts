import type { FunctionName } from './routes.js';

export type TableAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:Query'
  | 'dynamodb:ConditionCheckItem'
  | 'dynamodb:BatchWriteItem'
  | 'dynamodb:BatchGetItem';

/**
 * What one function may call, and nothing more. CDK turns each entry into the function's IAM
 * policy; a function reaches the signing-secrets key, the event bus or the delivery queue only
 * when its entry names them.
 */
export interface FunctionGrants {
  /** DynamoDB actions on the table and its indexes. */
  table: readonly TableAction[];
  /**
   * UpdateItem on the rate counters only (a `dynamodb:LeadingKeys` condition on their key prefix):
   * what counting a request against its token's budget needs, and all an API function that writes
   * no other item by UpdateItem gets.
   */
  rateCounters?: true;
  /** The KMS key that encrypts webhook signing secrets; also tells the function which key to use. */
  signingKey?: readonly ('kms:Encrypt' | 'kms:Decrypt')[];
  /** PutEvents on the service's event bus. */
  eventBus?: readonly 'events:PutEvents'[];
  /** Actions on the delivery queue beyond what its event source mapping grants (receive, delete). */
  deliveryQueue?: readonly ('sqs:ChangeMessageVisibility' | 'sqs:SendMessage')[];
}

/** A write commits state, outbox event and idempotency record in one transaction (Put), and reads a stored answer (Get). */
const WRITE: readonly TableAction[] = ['dynamodb:GetItem', 'dynamodb:PutItem'];
const READ_ONE: readonly TableAction[] = ['dynamodb:GetItem'];
const LIST: readonly TableAction[] = ['dynamodb:Query'];
/** Every API function counts the request against its token's budget: one conditional UpdateItem. */
const API = { rateCounters: true } as const;

/** Keyed by every function the service deploys: a function left out, or misspelt, does not compile. */
export const GRANTS = {
  // Reads the token and the organisation, records lastUsedAt.
  authorizer: { table: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] },
  // Only the rate limiter touches the table.
  ping: { ...API, table: [] },
  'incident-declare': { ...API, table: WRITE },
  // Notify and close also delete the incident's deadline timer.
  'incident-move': { ...API, table: [...WRITE, 'dynamodb:DeleteItem'] },
  'incident-get': { ...API, table: READ_ONE },
  'incidents-list': { ...API, table: LIST },
  // A change of the breach record: reads the incident, puts its next version (no event, no timer).
  'incident-amend': { ...API, table: WRITE },
  'incident-authority-update': { ...API, table: WRITE },
  'incident-data-subject-communication': { ...API, table: WRITE },
  // The report is made from one incident; the register Queries the organisation's incidents.
  'incident-report': { ...API, table: READ_ONE },
  'breach-register': { ...API, table: LIST },
  // Registering an endpoint encrypts its signing secret; replaying that request decrypts the stored answer.
  'webhook-create': { ...API, table: WRITE, signingKey: ['kms:Encrypt', 'kms:Decrypt'] },
  'webhook-delete': { ...API, table: ['dynamodb:DeleteItem'] },
  'webhooks-list': { ...API, table: LIST },
  // Reads the endpoint (404 for another organisation's), then Queries its delivery log.
  'webhook-deliveries-list': { ...API, table: ['dynamodb:GetItem', 'dynamodb:Query'] },
  'webhook-get': { ...API, table: READ_ONE },
  // Reads the endpoint (404 before the body is looked at), then one conditional UpdateItem that
  // answers it as it now is.
  'webhook-update': { ...API, table: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] },
  // Reads the endpoint and puts the one test delivery on the bus (like the relay, to the delivery
  // queue); a request with an Idempotency-Key also stores its answer (Put) or replays it (Get).
  'webhook-test': { ...API, table: WRITE, eventBus: ['events:PutEvents'] },
  // Reads the endpoint and its encrypted secret, encrypts the new one, writes both in one transaction
  // (Update) with the replayable answer (Put, encrypted: it holds the secret; Get and Decrypt to replay it).
  'webhook-rotate-secret': {
    ...API,
    table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    signingKey: ['kms:Encrypt', 'kms:Decrypt'],
  },
  // Reads the endpoint, finds the delivery's event in its log (Query of the index by delivery id),
  // puts one attempt of it on the bus.
  'webhook-redeliver': { ...API, table: [...WRITE, 'dynamodb:Query'], eventBus: ['events:PutEvents'] },
  // Reads the endpoint, Queries its delivery log since `since`, puts each recoverable delivery on the bus.
  'webhook-recover': { ...API, table: [...WRITE, 'dynamodb:Query'], eventBus: ['events:PutEvents'] },
  // Member statistics: one Query of the organisation's statistics partition.
  'member-statistics': { ...API, table: LIST },
  // A member and its counters in one transaction (Put, Update), plus a stored idempotent response (Get).
  'record-member': { ...API, table: [...WRITE, 'dynamodb:UpdateItem'] },
  // Upcoming events: one Query of the sparse public-events index.
  'upcoming-events': { ...API, table: LIST },
  'publish-event': { ...API, table: WRITE },
  // The latest report is one GetItem.
  'impact-report': { ...API, table: READ_ONE },
  // The report and the organisation's LATEST copy, two Puts in one transaction.
  'publish-impact-report': { ...API, table: WRITE },
  // The public OpenAPI document and console: no token, no rate limit, no data.
  docs: { table: [] },
  // Contributions and payouts name a member: a ConditionCheck on it is part of the transaction.
  'contribution-record': { ...API, table: [...WRITE, 'dynamodb:ConditionCheckItem'] },
  'contribution-get': { ...API, table: READ_ONE },
  'timebank-payout-settle': { ...API, table: [...WRITE, 'dynamodb:ConditionCheckItem'] },
  'timebank-payout-get': { ...API, table: READ_ONE },
  // The file and its expiry timer are two Puts.
  'sanctuary-file-register': { ...API, table: WRITE },
  'sanctuary-file-get': { ...API, table: READ_ONE },
  // Lists the organisation's endpoints to fan an event out, publishes one entry per delivery, and
  // writes one receipt naming the batch's events (Put).
  'outbox-relay': { table: ['dynamodb:Query', 'dynamodb:PutItem'], eventBus: ['events:PutEvents'] },
  // Reads the endpoint and its secret, disables it on 410, writes the delivery log, and sets a
  // failed message's visibility to the next backoff delay. Reads and updates the endpoint's pace
  // (strikes, in-flight slots) and sends a delivery of a limited endpoint back to the queue as a new
  // message (SendMessage); notes a pending delivery (Put) and clears it when it ends (Delete). The
  // attempts of a batch that end together are logged in one BatchWriteItem; a delivery that is not
  // certainly on its first attempt counts its earlier ones in the log (Query of the index). A batch
  // reads each endpoint and its pace together (BatchGetItem).
  'deliver-webhook': {
    table: [
      'dynamodb:Query',
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:UpdateItem',
      'dynamodb:PutItem',
      'dynamodb:DeleteItem',
      'dynamodb:BatchWriteItem',
    ],
    signingKey: ['kms:Decrypt'],
    deliveryQueue: ['sqs:ChangeMessageVisibility', 'sqs:SendMessage'],
  },
  // Queries the sparse timers index; reads the incident, takes the timer out of the index and marks
  // a file expired (Update), checks the incident is unchanged (ConditionCheck), writes the event (Put);
  // reads the relay receipts and the outbox by time from the sweep's checkpoint (Query, Get), puts an
  // outbox item no receipt names back on the stream and saves the checkpoint (Put); counts overdue
  // pending deliveries (Query).
  timers: {
    table: [
      'dynamodb:Query',
      'dynamodb:GetItem',
      'dynamodb:UpdateItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:PutItem',
    ],
  },
} as const satisfies Record<FunctionName, FunctionGrants>;

export function grantsOf(name: FunctionName): FunctionGrants {
  return GRANTS[name];
}
