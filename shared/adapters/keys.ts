/** Key shapes of the single table, in one place so that no two item kinds can collide. */
export const keys = {
  organisation: (id: string) => ({ pk: `ORG#${id}`, sk: 'ORG' }),
  token: (prefix: string) => ({ pk: `TOKEN#${prefix}`, sk: 'TOKEN' }),
  tokensOfOrganisation: (organisationId: string) => `ORG#${organisationId}#TOKENS`,
  rateCounter: (tokenId: string, windowStart: number) => ({ pk: `RATE#${tokenId}`, sk: String(windowStart) }),
};
