import { changeIncident } from '../../shared/app/change-incident.js';
import { addAuthorityUpdate } from '../../shared/domain/incident.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { writeRequestOf } from '../../shared/http/idempotency.js';
import { incidentResponse } from '../../shared/http/incident-response.js';
import { pathId } from '../../shared/http/path.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { authorityUpdateBody } from '../../shared/schemas/breach-record.js';

/** POST /incidents/{id}/authority-updates: a follow-up phase of the notification (Art. 33(4)). */
export const handler = apiHandler(async (event, caller) => {
  const id = pathId(event, 'Incident');
  const input = parseJsonBody(event, authorityUpdateBody);
  return changeIncident(
    writeRequestOf(event, caller),
    id,
    (incident, now) => addAuthorityUpdate(incident, input, caller.tokenId, now),
    (changed, now) => incidentResponse(200, changed, now),
  );
});
