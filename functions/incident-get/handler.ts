import { getIncident } from '../../shared/adapters/incident-store.js';
import { NotFoundError } from '../../shared/domain/errors.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { incidentResponse } from '../../shared/http/incident-response.js';
import { pathId } from '../../shared/http/path.js';

export const handler = apiHandler(async (event, caller) => {
  const incident = await getIncident(caller.organisationId, pathId(event, 'Incident'));
  if (!incident) throw new NotFoundError('Incident');
  return incidentResponse(200, incident, new Date());
});
