/**
 * An integrator's first calls: check the token, declare an incident and contain it, list every incident
 * across pages, and read a problem from an error. Prints one JSON line of what happened.
 */
import { ApiError, createClient } from '@mis/client';
import { settings } from './settings.ts';

const client = createClient(settings());

const { data: ping } = await client.GET('/ping');

const { data: declared } = await client.POST('/incidents', {
  body: {
    severity: 'medium',
    category: 'availability',
    detectedAt: new Date().toISOString(),
    title: 'Member portal unreachable',
  },
});
const { data: contained } = await client.POST('/incidents/{id}/contain', {
  params: { path: { id: declared.id } },
  body: { note: 'Failed over to the standby' },
});

// Every incident of the organisation, two a page: the client passes each page's nextCursor back.
const incidents: string[] = [];
for await (const incident of client.paginate('/incidents', { params: { query: { limit: 2 } } })) {
  incidents.push(incident.id);
}

let missing = '';
try {
  await client.GET('/incidents/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } });
} catch (error) {
  if (!(error instanceof ApiError)) throw error;
  missing = `${error.status} ${error.code}`;
}

console.log(
  JSON.stringify({
    organisationId: ping.organisationId,
    declared: declared.id,
    status: contained.status,
    incidents: incidents.length,
    missing,
  }),
);
