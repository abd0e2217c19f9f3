import { getContribution } from '../../shared/adapters/contribution-store.js';
import { NotFoundError } from '../../shared/domain/errors.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { pathId } from '../../shared/http/path.js';
import { jsonResponse } from '../../shared/http/responses.js';

export const handler = apiHandler(async (event, caller) => {
  const contribution = await getContribution(caller.organisationId, pathId(event, 'Contribution'));
  if (!contribution) throw new NotFoundError('Contribution');
  return jsonResponse(200, contribution);
});
