// What is wrong with a typed number: the contract's schema first, then a limit of the form's own (the
// model's positions for the sequence length, whose words are the contract's seqBeyondModel).
import { firstIssue } from '../../../../electron/contract';

/** The contract's own check of a number field (its schema in workload-options.ts / StartRunsRequestSchema). */
export type NumberSchema = { safeParse(v: unknown): { success: boolean; error?: Parameters<typeof firstIssue>[0] } };

/** A further limit on the value: why it is refused, or null. */
export type NumberLimit = (value: number) => string | null;

const sentence = (s: string) => (s.endsWith('.') ? s : `${s}.`).replace(/^./, (c) => c.toUpperCase());

export function problemOf(schema: NumberSchema, text: string, limit?: NumberLimit): string | null {
  if (text.trim() === '' || !Number.isFinite(Number(text))) return 'Enter a number.';
  const r = schema.safeParse(Number(text));
  if (!r.success) return r.error ? sentence(firstIssue(r.error).message) : 'Invalid.';
  return limit?.(Number(text)) ?? null;
}
