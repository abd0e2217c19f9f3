import { getFile } from '../../shared/adapters/sanctuary-file-store.js';
import { NotFoundError } from '../../shared/domain/errors.js';
import { fileView } from '../../shared/domain/sanctuary-file.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { pathId } from '../../shared/http/path.js';
import { jsonResponse } from '../../shared/http/responses.js';

export const handler = apiHandler(async (event, caller) => {
  const file = await getFile(caller.organisationId, pathId(event, 'File'));
  if (!file) throw new NotFoundError('File');
  return jsonResponse(200, fileView(file));
});
