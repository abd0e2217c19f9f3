import { changeIncident } from '../../shared/app/change-incident.js';
import { decideDataSubjectCommunication } from '../../shared/domain/incident.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { writeRequestOf } from '../../shared/http/idempotency.js';
import { incidentResponse } from '../../shared/http/incident-response.js';
import { pathId } from '../../shared/http/path.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { dataSubjectCommunicationBody } from '../../shared/schemas/breach-record.js';

/** POST /incidents/{id}/data-subject-communication: records the Art. 34 decision. */
export const handler = apiHandler(async (event, caller) => {
  const id = pathId(event, 'Incident');
  const input = parseJsonBody(event, dataSubjectCommunicationBody);
  return changeIncident(
    writeRequestOf(event, caller),
    id,
    (incident, now) => decideDataSubjectCommunication(incident, input, caller.tokenId, now),
    (changed, now) => incidentResponse(200, changed, now),
  );
});
