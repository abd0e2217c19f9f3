import { randomUUID } from 'node:crypto';
import { eventWrite } from '../../shared/adapters/event-store.js';
import { commitWrite } from '../../shared/app/commit-write.js';
import { newEvent } from '../../shared/domain/public-event.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { writeRequestOf } from '../../shared/http/idempotency.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { jsonResponse } from '../../shared/http/responses.js';
import { newEventBody } from '../../shared/schemas/events.js';

export const handler = apiHandler(async (event, caller) => {
  const published = newEvent(randomUUID(), parseJsonBody(event, newEventBody), new Date());
  return commitWrite(
    writeRequestOf(event, caller),
    [eventWrite(caller.organisationId, published)],
    jsonResponse(201, published),
  );
});
