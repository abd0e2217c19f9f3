import { randomUUID } from 'node:crypto';
import { memberExists } from '../../shared/adapters/member-reference.js';
import { outboxWrite } from '../../shared/adapters/outbox.js';
import { payoutWrite } from '../../shared/adapters/timebank-store.js';
import { commitWrite } from '../../shared/app/commit-write.js';
import { payoutEventData, settlePayout } from '../../shared/domain/timebank.js';
import { newDomainEvent } from '../../shared/domain/webhook-events.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { writeRequestOf } from '../../shared/http/idempotency.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { jsonResponse, locationOf } from '../../shared/http/responses.js';
import { settlePayoutBody } from '../../shared/schemas/timebank.js';

export const handler = apiHandler(async (event, caller) => {
  const now = new Date();
  const payout = settlePayout(randomUUID(), parseJsonBody(event, settlePayoutBody), now);
  const settled = newDomainEvent(
    'timebank.payout.settled',
    caller.organisationId,
    payoutEventData(payout),
    now,
  );
  const writes = [
    memberExists(caller.organisationId, payout.memberId),
    payoutWrite(caller.organisationId, payout),
    outboxWrite(settled),
  ];
  const response = jsonResponse(201, payout, { Location: locationOf(event, payout.id) });
  return commitWrite(writeRequestOf(event, caller), writes, response);
});
