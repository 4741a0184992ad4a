// How an error crosses a process boundary: a stable code, a message that says what to do, the field.
import { ApiError } from '../contract';

export function toWireError(error: unknown): { code: string; message: string; field?: string } {
  if (error instanceof ApiError) return { code: error.code, message: error.message, field: error.field };
  if (error instanceof SyntaxError) return { code: 'bad_request', message: 'Request is not valid JSON.' };
  const e = error as { code?: unknown; message?: unknown };
  return { code: typeof e?.code === 'string' ? e.code : 'internal', message: String(e?.message ?? error) };
}
