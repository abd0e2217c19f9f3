import { getIncident } from '../../shared/adapters/incident-store.js';
import { breachReport } from '../../shared/domain/breach-report.js';
import { breachReportHtml, REPORT_PAGE_CSP } from '../../shared/domain/breach-report-html.js';
import { NotFoundError } from '../../shared/domain/errors.js';
import { negotiate } from '../../shared/http/accept.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { pathId } from '../../shared/http/path.js';
import { jsonResponse } from '../../shared/http/responses.js';

/** GET /incidents/{id}/report: JSON by default, the printable page for `Accept: text/html`. */
export const handler = apiHandler(async (event, caller) => {
  const incident = await getIncident(caller.organisationId, pathId(event, 'Incident'));
  if (!incident) throw new NotFoundError('Incident');
  const report = breachReport(incident, new Date());
  const headers = { Vary: 'Accept, Authorization' };
  if (negotiate(event, ['application/json', 'text/html']) === 'application/json')
    return jsonResponse(200, report, headers);
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': REPORT_PAGE_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      ...headers,
    },
    body: breachReportHtml(report),
  };
});
