import { randomUUID } from 'node:crypto';
import { commitMemberTransaction, memberWrites } from '../../shared/adapters/member-store.js';
import { newDomainEvent, outboxWrite } from '../../shared/adapters/outbox.js';
import { newMember } from '../../shared/domain/member.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { commitWrite } from '../../shared/http/idempotency.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { jsonResponse } from '../../shared/http/responses.js';
import { newMemberBody } from '../../shared/schemas/members.js';

export const handler = apiHandler(async (event, caller) => {
  const now = new Date();
  const member = newMember(randomUUID(), parseJsonBody(event, newMemberBody), now);
  // A member holds categories only, no personal data, so the event carries it whole.
  const created = newDomainEvent('member.created', caller.organisationId, { ...member }, now);
  const writes = [...memberWrites(caller.organisationId, member), outboxWrite(created)];
  return commitMemberTransaction(() => commitWrite(event, caller, writes, jsonResponse(201, member)));
});
