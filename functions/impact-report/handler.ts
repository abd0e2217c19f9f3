import { latestImpactReport } from '../../shared/adapters/impact-store.js';
import { NoReportError } from '../../shared/domain/impact-report.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { conditionalJson } from '../../shared/http/conditional.js';
import { parseQuery } from '../../shared/http/request.js';
import { noQuery } from '../../shared/schemas/common.js';

export const handler = apiHandler(async (event, caller) => {
  parseQuery(event, noQuery);
  const report = await latestImpactReport(caller.organisationId);
  if (!report) throw new NoReportError();
  return conditionalJson(event, report);
});
