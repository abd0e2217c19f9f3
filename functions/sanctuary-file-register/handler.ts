import { randomUUID } from 'node:crypto';
import { fileWrite } from '../../shared/adapters/sanctuary-file-store.js';
import { timerWrite } from '../../shared/adapters/timer-store.js';
import { commitWrite } from '../../shared/app/commit-write.js';
import { fileView, registerFile } from '../../shared/domain/sanctuary-file.js';
import { expiryTimer } from '../../shared/domain/timer.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { writeRequestOf } from '../../shared/http/idempotency.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { jsonResponse, locationOf } from '../../shared/http/responses.js';
import { registerFileBody } from '../../shared/schemas/sanctuary-files.js';

/** The file and its expiry timer together: `sanctuary.file.expired` is emitted when the timer fires. */
export const handler = apiHandler(async (event, caller) => {
  const now = new Date();
  const file = registerFile(randomUUID(), parseJsonBody(event, registerFileBody), now);
  const writes = [
    fileWrite(caller.organisationId, file),
    timerWrite(expiryTimer(caller.organisationId, file), now),
  ];
  const response = jsonResponse(201, fileView(file), { Location: locationOf(event, file.id) });
  return commitWrite(writeRequestOf(event, caller), writes, response);
});
