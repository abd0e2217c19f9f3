import { getIncident } from '../../shared/adapters/incident-store.js';
import { NotFoundError } from '../../shared/domain/errors.js';
import { incidentView } from '../../shared/domain/incident.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { pathId } from '../../shared/http/path.js';
import { jsonResponse } from '../../shared/http/responses.js';

export const handler = apiHandler(async (event, caller) => {
  const incident = await getIncident(caller.organisationId, pathId(event, 'Incident'));
  if (!incident) throw new NotFoundError('Incident');
  return jsonResponse(200, incidentView(incident));
});
