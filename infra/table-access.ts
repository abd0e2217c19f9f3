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
  'incident-move': ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
  'incident-get': ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
  'incidents-list': ['dynamodb:UpdateItem', 'dynamodb:Query'],
  'webhook-create': ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
  'webhook-delete': ['dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  'webhooks-list': ['dynamodb:UpdateItem', 'dynamodb:Query'],
  'webhook-deliveries': ['dynamodb:UpdateItem', 'dynamodb:Query'],
  // Lists the organisation's endpoints to fan an event out.
  'outbox-relay': ['dynamodb:Query'],
  // Reads the endpoint, disables it on 410, writes the delivery log.
  'webhook-delivery': ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
};

export function tableActionsFor(functionName: string): readonly string[] {
  return TABLE_ACCESS[functionName] ?? DEFAULT_TABLE_ACTIONS;
}
