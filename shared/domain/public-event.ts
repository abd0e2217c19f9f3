/** An event the organisation publishes; only `public` ones are listed by GET /events. */
export interface OrganisationEvent {
  id: string;
  title: string;
  startsAt: string;
  endsAt: string | null;
  location: string | null;
  url: string | null;
  public: boolean;
  createdAt: string;
}

export interface NewEventInput {
  title: string;
  startsAt: string;
  endsAt?: string;
  location?: string;
  url?: string;
  public: boolean;
}

/**
 * Times are stored as UTC with milliseconds (`toISOString`), whatever offset the client sent, so
 * that they sort as text in the order of time: the index orders events by that text.
 */
export const normaliseInstant = (value: string): string => new Date(value).toISOString();

export function newEvent(id: string, input: NewEventInput, now: Date): OrganisationEvent {
  return {
    id,
    title: input.title,
    startsAt: normaliseInstant(input.startsAt),
    endsAt: input.endsAt === undefined ? null : normaliseInstant(input.endsAt),
    location: input.location ?? null,
    url: input.url ?? null,
    public: input.public,
    createdAt: now.toISOString(),
  };
}

export interface UpcomingWindow {
  /** Inclusive lower bound of `startsAt`: never before now, so past events never appear. */
  from: string;
  /** Inclusive upper bound, when asked for. */
  to?: string;
}

/** The range of start times to list: from the later of now and `from`, up to `to`; empty when `to` is past. */
export function upcomingWindow(now: Date, from?: string, to?: string): UpcomingWindow | undefined {
  const nowIso = now.toISOString();
  const lower = from !== undefined && normaliseInstant(from) > nowIso ? normaliseInstant(from) : nowIso;
  const upper = to === undefined ? undefined : normaliseInstant(to);
  if (upper !== undefined && upper < lower) return undefined;
  return upper === undefined ? { from: lower } : { from: lower, to: upper };
}
