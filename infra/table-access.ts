import { AUTHORIZER_FUNCTION } from '../shared/routes.js';

/** What a function gets when it is not listed: the rate limiter's UpdateItem and a GetItem for its own reads. */
export const DEFAULT_TABLE_ACTIONS: readonly string[] = ['dynamodb:UpdateItem', 'dynamodb:GetItem'];

/**
 * The DynamoDB actions each function's code calls, and no more. Every API function counts requests
 * with UpdateItem (rate limiter); list a function here when it needs less or more than the default.
 */
export const TABLE_ACCESS: Readonly<Record<string, readonly string[]>> = {
  // Reads the token and the organisation, records lastUsedAt.
  [AUTHORIZER_FUNCTION]: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  // Only the rate limiter touches the table.
  ping: ['dynamodb:UpdateItem'],
  // Writes go in one transaction (state, outbox event, idempotency record): Put for each item,
  // GetItem for the current state and a stored idempotent response.
  'incident-declare': ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
  // Notify and close also delete the incident's deadline timer.
  'incident-move': ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
  'incident-get': ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
  'incidents-list': ['dynamodb:UpdateItem', 'dynamodb:Query'],
  'webhook-create': ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
  'webhook-delete': ['dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  'webhooks-list': ['dynamodb:UpdateItem', 'dynamodb:Query'],
  'webhook-deliveries': ['dynamodb:UpdateItem', 'dynamodb:Query'],
  // Member statistics: one Query of the organisation's statistics partition.
  'member-statistics': ['dynamodb:UpdateItem', 'dynamodb:Query'],
  // A member and its counters in one transaction (Put, Update), plus a stored idempotent response (Get).
  'record-member': ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
  // Upcoming events: one Query of the sparse public-events index.
  'upcoming-events': ['dynamodb:UpdateItem', 'dynamodb:Query'],
  'publish-event': ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
  // The latest report is one GetItem.
  'impact-report': ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
  // The report and the organisation's LATEST copy, two Puts in one transaction.
  'publish-impact-report': ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
  // The public OpenAPI document and console: no token, no rate limit, no data.
  docs: [],
  // Lists the organisation's endpoints to fan an event out.
  'outbox-relay': ['dynamodb:Query'],
  // Reads the endpoint, disables it on 410, writes the delivery log.
  'webhook-delivery': ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
  // Contributions and payouts name a member: a ConditionCheck on it is part of the transaction.
  'contribution-record': [
    'dynamodb:UpdateItem',
    'dynamodb:GetItem',
    'dynamodb:PutItem',
    'dynamodb:ConditionCheckItem',
  ],
  'contribution-get': ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
  'timebank-payout-settle': [
    'dynamodb:UpdateItem',
    'dynamodb:GetItem',
    'dynamodb:PutItem',
    'dynamodb:ConditionCheckItem',
  ],
  'timebank-payout-get': ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
  // The file and its expiry timer are two Puts.
  'sanctuary-file-register': ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
  'sanctuary-file-get': ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
  // Queries the sparse timers index; reads the incident, takes the timer out of the index and marks
  // a file expired (Update), checks the incident is unchanged (ConditionCheck), writes the event (Put).
  timers: [
    'dynamodb:Query',
    'dynamodb:GetItem',
    'dynamodb:UpdateItem',
    'dynamodb:ConditionCheckItem',
    'dynamodb:PutItem',
  ],
};

export function tableActionsFor(functionName: string): readonly string[] {
  return TABLE_ACCESS[functionName] ?? DEFAULT_TABLE_ACTIONS;
}
