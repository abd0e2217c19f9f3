import { latestImpactReport } from '../../shared/adapters/impact-store.js';
import { NoReportError } from '../../shared/domain/impact-report.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { conditionalJson } from '../../shared/http/conditional.js';

export const handler = apiHandler(async (event, caller) => {
  const report = await latestImpactReport(caller.organisationId);
  if (!report) throw new NoReportError();
  return conditionalJson(event, report);
});
