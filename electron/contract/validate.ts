// Boundary validation: turn a zod failure into an ApiError that names the field.
import type { z } from 'zod';
import { ApiError } from './client';
import { events, requests, type Channel, type EventName } from './channels';

/**
 * The one reading of a zod failure everywhere (boundaries, files, forms): the first issue's field
 * as a dotted path ('(root)' when the value itself is wrong) and its message.
 */
export function firstIssue(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): {
  path: string;
  message: string;
} {
  const issue = error.issues[0];
  const path = issue && issue.path.length ? issue.path.map(String).join('.') : '(root)';
  return { path, message: issue ? issue.message : 'invalid' };
}

/** `field 'a.b' <message>`: how a zod failure is said in an error message. */
export function describeIssue(error: Parameters<typeof firstIssue>[0]): string {
  const { path, message } = firstIssue(error);
  return `field '${path}' ${message}`;
}

export function parseRequest<C extends Channel>(channel: C, payload: unknown) {
  const result = requests[channel].request.safeParse(payload ?? {});
  if (!result.success) {
    const { path, message } = firstIssue(result.error);
    throw new ApiError('bad_request', `${channel}: field '${path}' ${message}`, path);
  }
  return result.data as z.infer<(typeof requests)[C]['request']>;
}

export function parseResponse<C extends Channel>(channel: C, value: unknown) {
  const result = requests[channel].response.safeParse(value);
  if (!result.success) {
    const { path, message } = firstIssue(result.error);
    throw new ApiError('bad_response', `${channel}: backend answered with invalid '${path}': ${message}`, path);
  }
  return result.data as z.infer<(typeof requests)[C]['response']>;
}

export function parseEvent<E extends EventName>(event: E, payload: unknown) {
  const result = events[event].safeParse(payload);
  if (!result.success) {
    const { path, message } = firstIssue(result.error);
    throw new ApiError('bad_event', `${event}: invalid '${path}': ${message}`, path);
  }
  return result.data as z.infer<(typeof events)[E]>;
}
