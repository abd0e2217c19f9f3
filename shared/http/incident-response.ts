import type { APIGatewayProxyResult } from 'aws-lambda';
import { type Incident, incidentEtag, incidentView } from '../domain/incident.js';
import { jsonResponse } from './responses.js';

/**
 * An incident as the API answers it, with its ETag (the record's version) for `If-Match` on a later
 * PATCH. `Vary: Authorization`: the answer is the caller's organisation's.
 */
export function incidentResponse(
  statusCode: number,
  incident: Incident,
  now: Date,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return jsonResponse(statusCode, incidentView(incident, now), {
    ETag: incidentEtag(incident),
    Vary: 'Authorization',
    ...headers,
  });
}
