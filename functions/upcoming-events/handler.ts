import { listUpcomingEvents } from '../../shared/adapters/event-store.js';
import { decodeEventCursor, encodeEventCursor } from '../../shared/domain/event-cursor.js';
import { upcomingWindow } from '../../shared/domain/public-event.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { conditionalJson } from '../../shared/http/conditional.js';
import { parseQuery } from '../../shared/http/request.js';
import { eventsQuery } from '../../shared/schemas/events.js';
import { DEFAULT_PAGE_SIZE } from '../../shared/schemas/pagination.js';

export const handler = apiHandler(async (event, caller) => {
  const { limit = DEFAULT_PAGE_SIZE, cursor, from, to } = parseQuery(event, eventsQuery);
  const scope = { organisationId: caller.organisationId, from, to };
  const after = cursor === undefined ? undefined : decodeEventCursor(cursor, scope);
  const window = upcomingWindow(new Date(), from, to);
  const page = window
    ? await listUpcomingEvents(caller.organisationId, window, limit, after)
    : { events: [] };
  return conditionalJson(event, {
    data: page.events,
    nextCursor: page.next ? encodeEventCursor(page.next, scope) : null,
  });
});
