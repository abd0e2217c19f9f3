import { API_VERSION } from '../../shared/config.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { jsonResponse } from '../../shared/http/responses.js';

export const handler = apiHandler(async (_event, caller) =>
  jsonResponse(200, {
    ok: true,
    organisationId: caller.organisationId,
    version: API_VERSION,
    at: new Date().toISOString(),
  }),
);
