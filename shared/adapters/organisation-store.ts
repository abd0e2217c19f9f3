import { randomUUID } from 'node:crypto';
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { effectiveRateLimit, type Organisation, rateLimitFor, type Tier } from '../domain/organisation.js';
import { dynamodb, tableName } from './dynamodb.js';
import { keys } from './keys.js';

export interface NewOrganisation {
  name: string;
  tier: Tier;
  rateLimitPerMinute?: number;
}

export async function createOrganisation(input: NewOrganisation, now = new Date()): Promise<Organisation> {
  const name = input.name.trim();
  if (name === '' || name.length > 200) throw new RangeError('The name must have 1 to 200 characters.');
  const organisation: Organisation = {
    id: randomUUID(),
    name,
    tier: input.tier,
    rateLimitPerMinute: rateLimitFor(input.tier, input.rateLimitPerMinute),
    createdAt: now.toISOString(),
  };
  // The limit is stored only when it is the organisation's own; the standard one is derived on read.
  const { rateLimitPerMinute, ...stored } = organisation;
  const own =
    input.tier === 'enterprise' && input.rateLimitPerMinute !== undefined ? { rateLimitPerMinute } : {};
  await dynamodb().send(
    new PutItemCommand({
      TableName: tableName(),
      Item: marshall({ ...keys.organisation(organisation.id), kind: 'organisation', ...stored, ...own }),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return organisation;
}

export async function getOrganisation(id: string): Promise<Organisation | undefined> {
  const { Item } = await dynamodb().send(
    new GetItemCommand({
      TableName: tableName(),
      Key: marshall(keys.organisation(id)),
      ConsistentRead: true,
    }),
  );
  if (!Item) return undefined;
  const { name, tier, rateLimitPerMinute, createdAt } = unmarshall(Item);
  return { id, name, tier, rateLimitPerMinute: effectiveRateLimit(tier, rateLimitPerMinute), createdAt };
}
