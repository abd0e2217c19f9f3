/** Key shapes of the single table, in one place so that no two item kinds can collide. */
export const keys = {
  organisation: (id: string) => ({ pk: `ORG#${id}`, sk: 'ORG' }),
  token: (prefix: string) => ({ pk: `TOKEN#${prefix}`, sk: 'TOKEN' }),
  tokensOfOrganisation: (organisationId: string) => `ORG#${organisationId}#TOKENS`,
  rateCounter: (tokenId: string, windowStart: number) => ({ pk: `RATE#${tokenId}`, sk: String(windowStart) }),
  webhookEndpoints: (organisationId: string) => `ORG#${organisationId}#WEBHOOKS`,
  webhookEndpoint: (organisationId: string, endpointId: string) => ({
    pk: `ORG#${organisationId}#WEBHOOKS`,
    sk: `ENDPOINT#${endpointId}`,
  }),
  deliveries: (organisationId: string, endpointId: string) => `ORG#${organisationId}#WEBHOOK#${endpointId}#DELIVERIES`,
};
