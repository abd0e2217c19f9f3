import { changeIncident } from '../../shared/app/change-incident.js';
import { amendIncident } from '../../shared/domain/incident.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { writeRequestOf } from '../../shared/http/idempotency.js';
import { incidentResponse } from '../../shared/http/incident-response.js';
import { pathId } from '../../shared/http/path.js';
import { parseJsonBody, requestHeader } from '../../shared/http/request.js';
import { amendIncidentBody } from '../../shared/schemas/breach-record.js';

/** PATCH /incidents/{id}: changes the breach record; sends no webhook (subscribers see the sequence move on). */
export const handler = apiHandler(async (event, caller) => {
  const id = pathId(event, 'Incident');
  const patch = parseJsonBody(event, amendIncidentBody);
  const ifMatch = requestHeader(event, 'if-match');
  return changeIncident(
    writeRequestOf(event, caller),
    id,
    (incident, now) => amendIncident(incident, patch, caller.tokenId, now, ifMatch),
    (changed, now) => incidentResponse(200, changed, now),
  );
});
