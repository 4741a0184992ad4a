// The Plan page's workload form: the model, its sequence and batch, the machine's GPUs and the options the
// contract lists for the form (workload-options.ts).
import { choicesOf, FORM_OPTION_KEYS, seqBeyondModel, WORKLOAD_OPTIONS } from '../../../../electron/contract';
import { usePlan } from '../../stores/plan';
import { formatParams } from '../../format';
import { NumberField } from './NumberField';

export function WorkloadForm() {
  const { presets, workload, setWorkload, imported, importConfig, importError, serverProblems } = usePlan();
  const models = [...(presets?.models ?? []), ...imported.map((m) => ({ ...m, params: 0 }))];
  const model = models.find((m) => m.id === workload.model);
  // The model's own limit, in the contract's words (the plan refuses the same sequence with them).
  const seqLimit = model ? (seqLen: number) => seqBeyondModel(model, seqLen) : undefined;
  return (
    <div className="form-grid" data-testid="workload-form">
      <label className="field wide">
        <span>Model</span>
        <select
          value={workload.model}
          onChange={(e) => setWorkload({ model: e.target.value })}
          data-testid="model-select"
          aria-invalid={serverProblems.model ? true : undefined}
        >
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.label}
              {m.params ? ` — ${formatParams(m.params)}` : ' (imported)'}
            </option>
          ))}
        </select>
        {serverProblems.model && (
          <span className="warn-text small" role="alert" data-testid="model-error">
            {serverProblems.model}
          </span>
        )}
      </label>
      <label className="field wide">
        <span>…or import a Hugging Face config.json</span>
        <input
          type="file"
          accept=".json,application/json"
          data-testid="hf-import"
          onChange={async (e) => {
            const file = e.target.files?.[0];
            if (file) await importConfig(await file.text(), file.name);
          }}
        />
        {importError && (
          <span className="warn-text small" role="alert" data-testid="hf-import-error">
            {importError}
          </span>
        )}
      </label>
      {/* every option the contract declares a form field for (contract workload-options.ts), in its order */}
      {FORM_OPTION_KEYS.map((key) => {
        const o = WORKLOAD_OPTIONS[key];
        const value = workload[key];
        if (o.kind === 'switch')
          return (
            <label key={key} className="field checkbox">
              <input type="checkbox" checked={value === true} onChange={(e) => setWorkload({ [key]: e.target.checked })} />
              <span>{o.form.label}</span>
              {serverProblems[key] && (
                <span className="warn-text small" role="alert">
                  {serverProblems[key]}
                </span>
              )}
            </label>
          );
        if (o.kind === 'choice')
          return (
            <label key={key} className="field">
              <span>{o.form.label}</span>
              <select
                value={String(value)}
                onChange={(e) => setWorkload({ [key]: e.target.value })}
                data-testid={'testId' in o.form ? o.form.testId : undefined}
              >
                {choicesOf(o).map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
              {serverProblems[key] && (
                <span className="warn-text small" role="alert">
                  {serverProblems[key]}
                </span>
              )}
            </label>
          );
        return (
          <NumberField
            key={key}
            label={o.form.label}
            value={Number(value)}
            schema={o.value}
            onChange={(v) => setWorkload({ [key]: v })}
            testId={'testId' in o.form ? o.form.testId : undefined}
            field={key}
            limit={key === 'seqLen' ? seqLimit : undefined}
          />
        );
      })}
    </div>
  );
}
