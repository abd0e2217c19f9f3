import { listIncidents } from '../../shared/adapters/incident-store.js';
import { incidentView } from '../../shared/domain/incident.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { parseQuery } from '../../shared/http/request.js';
import { jsonResponse } from '../../shared/http/responses.js';
import { DEFAULT_PAGE_SIZE, pageQuery } from '../../shared/schemas/pagination.js';

export const handler = apiHandler(async (event, caller) => {
  const query = parseQuery(event, pageQuery);
  const page = await listIncidents(caller.organisationId, query.limit ?? DEFAULT_PAGE_SIZE, query.cursor);
  const now = new Date();
  return jsonResponse(200, {
    data: page.incidents.map((incident) => incidentView(incident, now)),
    nextCursor: page.nextCursor,
  });
});
