import { randomUUID } from 'node:crypto';
import { memberWrites } from '../../shared/adapters/member-store.js';
import { outboxWrite } from '../../shared/adapters/outbox.js';
import { retryOnTransactionConflict } from '../../shared/adapters/transaction-retry.js';
import { commitWrite } from '../../shared/app/commit-write.js';
import { newMember } from '../../shared/domain/member.js';
import { newDomainEvent } from '../../shared/domain/webhook-events.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { writeRequestOf } from '../../shared/http/idempotency.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { jsonResponse } from '../../shared/http/responses.js';
import { newMemberBody } from '../../shared/schemas/members.js';

export const handler = apiHandler(async (event, caller) => {
  const now = new Date();
  const member = newMember(randomUUID(), parseJsonBody(event, newMemberBody), now);
  // A member holds categories only, no personal data, so the event carries it whole.
  const created = newDomainEvent('member.created', caller.organisationId, { ...member }, now);
  const writes = [...memberWrites(caller.organisationId, member), outboxWrite(created)];
  // The organisation's member counters are in the transaction: a concurrent member write may hold them.
  return retryOnTransactionConflict(() =>
    commitWrite(writeRequestOf(event, caller), writes, jsonResponse(201, member)),
  );
});
