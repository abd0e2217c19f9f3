import { listIncidents } from '../../shared/adapters/incident-store.js';
import { type RegisterRow, registerCsv, registerRow } from '../../shared/domain/breach-register.js';
import { MAX_PAGE_SIZE } from '../../shared/domain/cursor.js';
import { negotiate } from '../../shared/http/accept.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { parseQuery } from '../../shared/http/request.js';
import { jsonResponse } from '../../shared/http/responses.js';
import { breachRegisterQuery } from '../../shared/schemas/breach-report.js';
import { DEFAULT_PAGE_SIZE } from '../../shared/schemas/pagination.js';

/** GET /breach-register: the organisation's every incident, newest first; JSON pages or the whole CSV. */
export const handler = apiHandler(async (event, caller) => {
  const query = parseQuery(event, breachRegisterQuery);
  const now = new Date();
  const csv =
    query.format === 'csv' ||
    (query.format === undefined && negotiate(event, ['application/json', 'text/csv']) === 'text/csv');
  if (!csv) {
    const page = await listIncidents(caller.organisationId, query.limit ?? DEFAULT_PAGE_SIZE, query.cursor);
    return jsonResponse(
      200,
      { data: page.incidents.map((incident) => registerRow(incident, now)), nextCursor: page.nextCursor },
      { Vary: 'Accept, Authorization' },
    );
  }
  const rows: RegisterRow[] = [];
  let cursor: string | undefined;
  do {
    const page = await listIncidents(caller.organisationId, MAX_PAGE_SIZE, cursor);
    rows.push(...page.incidents.map((incident) => registerRow(incident, now)));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'text/csv; charset=utf-8; header=present',
      'Content-Disposition': 'attachment; filename="breach-register.csv"',
      'Cache-Control': 'no-store',
      Vary: 'Accept, Authorization',
    },
    body: registerCsv(rows),
  };
});
