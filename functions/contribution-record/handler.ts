import { randomUUID } from 'node:crypto';
import { contributionWrite } from '../../shared/adapters/contribution-store.js';
import { memberExists } from '../../shared/adapters/member-reference.js';
import { outboxWrite } from '../../shared/adapters/outbox.js';
import { commitWrite } from '../../shared/app/commit-write.js';
import { contributionEventData, newContribution } from '../../shared/domain/contribution.js';
import { newDomainEvent } from '../../shared/domain/webhook-events.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { writeRequestOf } from '../../shared/http/idempotency.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { jsonResponse, locationOf } from '../../shared/http/responses.js';
import { newContributionBody } from '../../shared/schemas/contributions.js';

export const handler = apiHandler(async (event, caller) => {
  const now = new Date();
  const contribution = newContribution(randomUUID(), parseJsonBody(event, newContributionBody), now);
  const received = newDomainEvent(
    'contribution.received',
    caller.organisationId,
    contributionEventData(contribution),
    now,
  );
  const writes = [contributionWrite(caller.organisationId, contribution), outboxWrite(received)];
  if (contribution.memberId) writes.push(memberExists(caller.organisationId, contribution.memberId));
  const response = jsonResponse(201, contribution, { Location: locationOf(event, contribution.id) });
  return commitWrite(writeRequestOf(event, caller), writes, response);
});
