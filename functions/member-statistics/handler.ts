import { readMemberCounts } from '../../shared/adapters/member-store.js';
import { utcDateOf } from '../../shared/domain/calendar.js';
import { memberStatistics, minimumGroupSizeFrom } from '../../shared/domain/member-statistics.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { conditionalJson } from '../../shared/http/conditional.js';

/** Read once at cold start: a bad value stops the function instead of publishing less protected figures. */
const minimumGroupSize = minimumGroupSizeFrom(process.env.MEMBER_STATS_MIN_GROUP_SIZE);

export const handler = apiHandler(async (event, caller) => {
  const now = new Date();
  const counts = await readMemberCounts(caller.organisationId, utcDateOf(now));
  return conditionalJson(event, memberStatistics(counts, minimumGroupSize, now));
});
