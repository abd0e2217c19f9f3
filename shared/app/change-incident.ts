import type { APIGatewayProxyResult } from 'aws-lambda';
import { getIncident, incidentWrite } from '../adapters/incident-store.js';
import { retryOnTransactionConflict } from '../adapters/transaction-retry.js';
import { NotFoundError } from '../domain/errors.js';
import type { Incident } from '../domain/incident.js';
import { commitWrite, type WriteRequest } from './commit-write.js';

/**
 * A change of an incident's record that sends no webhook (a PATCH, an authority update, an Art. 34
 * decision): read the organisation's incident (404 for any other), apply the pure change, and commit
 * the next version on the condition that nobody changed it since, with the idempotent response.
 */
export async function changeIncident(
  request: WriteRequest,
  id: string,
  change: (incident: Incident, now: Date) => Incident,
  respond: (changed: Incident, now: Date) => APIGatewayProxyResult,
): Promise<APIGatewayProxyResult> {
  const incident = await getIncident(request.organisationId, id);
  if (!incident) throw new NotFoundError('Incident');
  const now = new Date();
  const changed = change(incident, now);
  // The timers function's alarm transaction may hold the incident for a moment: then try again.
  return retryOnTransactionConflict(() =>
    commitWrite(request, [incidentWrite(changed)], respond(changed, now)),
  );
}
