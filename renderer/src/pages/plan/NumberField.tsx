// A number field checked by the contract's own schema as it is typed, the problem said beside it.
import { useEffect, useState } from 'react';
import { usePlan, type FormField } from '../../stores/plan';
import { problemOf, type NumberLimit, type NumberSchema } from './number-problem';

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
  limit,
}: {
  label: string;
  value: number;
  schema: NumberSchema;
  onChange: (v: number) => void;
  testId?: string;
  field?: FormField;
  limit?: NumberLimit;
}) {
  const [text, setText] = useState(String(value));
  useEffect(() => {
    // Only an outside change of the value (a preset, the machine's defaults) replaces the text.
    if (Number(text) !== value) setText(String(value));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- typing changes text; only a change of value may reset it
  }, [value]);
  const own = problemOf(schema, text, limit);
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
