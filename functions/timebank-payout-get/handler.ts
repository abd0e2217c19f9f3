import { getPayout } from '../../shared/adapters/timebank-store.js';
import { NotFoundError } from '../../shared/domain/errors.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { pathId } from '../../shared/http/path.js';
import { jsonResponse } from '../../shared/http/responses.js';

export const handler = apiHandler(async (event, caller) => {
  const payout = await getPayout(caller.organisationId, pathId(event, 'Payout'));
  if (!payout) throw new NotFoundError('Payout');
  return jsonResponse(200, payout);
});
