import { getIncident, incidentWrite } from '../../shared/adapters/incident-store.js';
import { outboxWrite } from '../../shared/adapters/outbox.js';
import { deadlineTimerCancellations } from '../../shared/adapters/timer-store.js';
import { retryOnTransactionConflict } from '../../shared/adapters/transaction-retry.js';
import { commitWrite } from '../../shared/app/commit-write.js';
import { NotFoundError } from '../../shared/domain/errors.js';
import {
  EVENT_FOR_STATUS,
  type IncidentAction,
  incidentEventData,
  type MoveInput,
  moveIncident,
} from '../../shared/domain/incident.js';
import { newDomainEvent } from '../../shared/domain/webhook-events.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { writeRequestOf } from '../../shared/http/idempotency.js';
import { incidentResponse } from '../../shared/http/incident-response.js';
import { pathId } from '../../shared/http/path.js';
import { parseJsonBody } from '../../shared/http/request.js';
import {
  closeIncidentBody,
  containIncidentBody,
  notifyIncidentBody,
} from '../../shared/schemas/incidents.js';

/** POST /incidents/{id}/<action>: the action is the last segment of the route's resource path. */
const BODIES = { contain: containIncidentBody, notify: notifyIncidentBody, close: closeIncidentBody };

export const handler = apiHandler(async (event, caller) => {
  const action = event.resource.split('/').at(-1) as IncidentAction;
  const schema = BODIES[action];
  if (!schema) throw new Error(`Unexpected resource ${event.resource}`);
  const id = pathId(event, 'Incident');
  const input: MoveInput = parseJsonBody(event, schema);
  const incident = await getIncident(caller.organisationId, id);
  if (!incident) throw new NotFoundError('Incident');
  const now = new Date();
  const moved = moveIncident(incident, action, input, caller.tokenId, now);
  const emitted = newDomainEvent(
    EVENT_FOR_STATUS[moved.status],
    caller.organisationId,
    incidentEventData(moved),
    now,
  );
  // The timers function's alarm transaction may hold the incident for a moment: then try again.
  return retryOnTransactionConflict(() =>
    commitWrite(
      writeRequestOf(event, caller),
      [incidentWrite(moved), outboxWrite(emitted), ...deadlineTimerCancellations(moved)],
      incidentResponse(200, moved, now),
    ),
  );
});
