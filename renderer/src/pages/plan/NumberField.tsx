// A number field checked by the contract's own schema as it is typed, the problem said beside it.
import { useEffect, useState } from 'react';
import { firstIssue } from '../../../../electron/contract';
import { usePlan, type FormField } from '../../stores/plan';

/** The contract's own check of a number field (its schema in workload-options.ts / StartRunsRequestSchema). */
type NumberSchema = { safeParse(v: unknown): { success: boolean; error?: Parameters<typeof firstIssue>[0] } };

const sentence = (s: string) => (s.endsWith('.') ? s : `${s}.`).replace(/^./, (c) => c.toUpperCase());

function problemOf(schema: NumberSchema, text: string, max?: { value: number; message: string }): string | null {
  if (text.trim() === '' || !Number.isFinite(Number(text))) return 'Enter a number.';
  const r = schema.safeParse(Number(text));
  if (!r.success) return r.error ? sentence(firstIssue(r.error).message) : 'Invalid.';
  return max && Number(text) > max.value ? max.message : null;
}

/**
 * What is typed is what is used: nothing is clamped; the contract's schema says what is wrong, next
 * to the field. A form field (`field`) tells the plan store, which then does not plan, and shows
 * the backend's complaint about it here too.
 */
export function NumberField({
  label,
  value,
  schema,
  onChange,
  testId,
  field,
  max,
}: {
  label: string;
  value: number;
  schema: NumberSchema;
  onChange: (v: number) => void;
  testId?: string;
  field?: FormField;
  max?: { value: number; message: string };
}) {
  const [text, setText] = useState(String(value));
  useEffect(() => {
    // Only an outside change of the value (a preset, the machine's defaults) replaces the text.
    if (Number(text) !== value) setText(String(value));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- typing changes text; only a change of value may reset it
  }, [value]);
  const own = problemOf(schema, text, max);
  const setFieldProblem = usePlan((s) => s.setFieldProblem);
  const server = usePlan((s) => (field ? s.serverProblems[field] : undefined));
  useEffect(() => {
    if (!field) return;
    setFieldProblem(field, own);
    return () => setFieldProblem(field, null);
  }, [field, own, setFieldProblem]);
  const problem = own ?? server ?? null;
  return (
    <label className="field">
      <span>{label}</span>
      <input
        type="number"
        value={text}
        aria-invalid={problem !== null}
        data-testid={testId}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value.trim() !== '' && Number.isFinite(Number(e.target.value))) onChange(Number(e.target.value));
        }}
      />
      {problem && (
        <span className="warn-text small" role="alert" data-testid={testId ? `${testId}-error` : undefined}>
          {problem}
        </span>
      )}
    </label>
  );
}
