import { GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import { ConflictError } from '../domain/errors.js';
import type { Incident } from '../domain/incident.js';
import { dynamodb, tableName } from './dynamodb.js';
import { keys } from './keys.js';
import type { TransactionItem } from './transaction.js';

/**
 * Writes the incident at its new version. A new incident must not exist yet; a moved one must
 * still be at the version it was read at, so two concurrent moves cannot both succeed.
 */
export function incidentWrite(incident: Incident): TransactionItem {
  const item = marshall(
    {
      ...keys.incident(incident.organisationId, incident.id),
      kind: 'incident',
      gsi1pk: keys.incidentsOfOrganisation(incident.organisationId),
      gsi1sk: `${incident.declaredAt}#${incident.id}`,
      ...incident,
    },
    { removeUndefinedValues: true },
  );
  const isNew = incident.version === 1;
  return {
    write: {
      Put: {
        TableName: tableName(),
        Item: item,
        ConditionExpression: isNew ? 'attribute_not_exists(pk)' : 'version = :previous',
        ...(isNew ? {} : { ExpressionAttributeValues: marshall({ ':previous': incident.version - 1 }) }),
      },
    },
    onConditionFailed: () =>
      new ConflictError('The incident was changed by another request; read it again and retry.'),
  };
}

export async function getIncident(organisationId: string, id: string): Promise<Incident | undefined> {
  const { Item } = await dynamodb().send(
    new GetItemCommand({
      TableName: tableName(),
      Key: marshall(keys.incident(organisationId, id)),
      ConsistentRead: true,
    }),
  );
  return Item ? toIncident(unmarshall(Item)) : undefined;
}

export interface IncidentPage {
  incidents: Incident[];
  nextCursor: string | null;
}

/** Newest first, by the organisation's own index partition. */
export async function listIncidents(
  organisationId: string,
  limit: number,
  cursor?: string,
): Promise<IncidentPage> {
  const partition = keys.incidentsOfOrganisation(organisationId);
  const { Items, LastEvaluatedKey } = await dynamodb().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: marshall({ ':pk': partition }),
      ScanIndexForward: false,
      Limit: limit,
      ...(cursor
        ? {
            ExclusiveStartKey: marshall(
              decodeCursor(cursor, { name: 'gsi1pk', value: partition }, ['gsi1pk', 'gsi1sk', 'pk', 'sk']),
            ),
          }
        : {}),
    }),
  );
  return {
    incidents: (Items ?? []).map((item) => toIncident(unmarshall(item))),
    nextCursor: LastEvaluatedKey
      ? encodeCursor(unmarshall(LastEvaluatedKey) as Record<string, string>)
      : null,
  };
}

function toIncident(item: Record<string, unknown>): Incident {
  const { pk: _pk, sk: _sk, kind: _kind, gsi1pk: _gpk, gsi1sk: _gsk, ...incident } = item;
  return incident as unknown as Incident;
}
