// Boundary validation: turn a zod failure into an ApiError that names the field.
import type { z } from 'zod';
import { ApiError } from './client';
import { events, requests, type Channel, type EventName } from './channels';

function firstIssue(error: z.ZodError): { path: string; message: string } {
  const issue = error.issues[0];
  const path = issue && issue.path.length ? issue.path.join('.') : '(root)';
  return { path, message: issue ? issue.message : 'invalid' };
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
