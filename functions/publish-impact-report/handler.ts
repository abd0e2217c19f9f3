import { randomUUID } from 'node:crypto';
import { impactReportWrites } from '../../shared/adapters/impact-store.js';
import { commitWrite } from '../../shared/app/commit-write.js';
import { newImpactReport } from '../../shared/domain/impact-report.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { writeRequestOf } from '../../shared/http/idempotency.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { jsonResponse } from '../../shared/http/responses.js';
import { newImpactReportBody } from '../../shared/schemas/impact.js';

export const handler = apiHandler(async (event, caller) => {
  const report = newImpactReport(randomUUID(), parseJsonBody(event, newImpactReportBody), new Date());
  return commitWrite(
    writeRequestOf(event, caller),
    impactReportWrites(caller.organisationId, report),
    jsonResponse(201, report),
  );
});
