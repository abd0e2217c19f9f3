import { randomUUID } from 'node:crypto';
import { incidentWrite } from '../../shared/adapters/incident-store.js';
import { outboxWrite } from '../../shared/adapters/outbox.js';
import { deadlineTimerWrite } from '../../shared/adapters/timer-store.js';
import { commitWrite } from '../../shared/app/commit-write.js';
import { ValidationError } from '../../shared/domain/errors.js';
import { declareIncident, EVENT_FOR_STATUS, incidentEventData } from '../../shared/domain/incident.js';
import { newDomainEvent } from '../../shared/domain/webhook-events.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { writeRequestOf } from '../../shared/http/idempotency.js';
import { incidentResponse } from '../../shared/http/incident-response.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { locationOf } from '../../shared/http/responses.js';
import { declareIncidentBody } from '../../shared/schemas/incidents.js';

/** Clocks disagree a little; a detection time further ahead than this is a mistake. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

export const handler = apiHandler(async (event, caller) => {
  const input = parseJsonBody(event, declareIncidentBody);
  const now = new Date();
  if (Date.parse(input.detectedAt) > now.getTime() + CLOCK_SKEW_MS) {
    throw new ValidationError([
      { field: 'detectedAt', message: 'The detection time cannot be in the future.' },
    ]);
  }
  const incident = declareIncident(randomUUID(), caller.organisationId, input, caller.tokenId, now);
  const declared = newDomainEvent(
    EVENT_FOR_STATUS.declared,
    caller.organisationId,
    incidentEventData(incident),
    now,
  );
  const response = incidentResponse(201, incident, now, { Location: locationOf(event, incident.id) });
  // The 72-hour deadline alarm is armed with the incident: it fires at detectedAt + 60 h unless notified or closed.
  const writes = [incidentWrite(incident), outboxWrite(declared), deadlineTimerWrite(incident, now)];
  return commitWrite(writeRequestOf(event, caller), writes, response);
});
