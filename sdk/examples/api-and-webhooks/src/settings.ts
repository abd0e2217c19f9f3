/** Where the API is and the token to call it with, from the environment (never printed). */
export function settings(): { baseUrl: string; token: string } {
  const token = process.env.MIS_TOKEN;
  if (!token)
    throw new Error('Set MIS_TOKEN to a token with the read and write scopes (npx mis token issue …)');
  return { baseUrl: process.env.MIS_BASE_URL ?? 'http://localhost:3000/api/public/v1', token };
}
