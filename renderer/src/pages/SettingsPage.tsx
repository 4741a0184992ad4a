// Settings: data folder, default interpreter, default steps / warm-up / repeats, theme; and the
// clusters used for multi-node runs (ClusterSection). Values are validated by the backend, which
// names the field it refuses; the message is shown next to the form.
import { useEffect, useState, type FormEvent } from 'react';
import type { SettingsView, Theme } from '../../../electron/contract';
import { Card, ErrorBox, PageHeader, Skeleton } from '../components/ui';
import { useSettings } from '../stores/settings';
import { ClusterSection } from './ClusterPage';
import { SlurmSection } from './SlurmSection';

interface Draft {
  pythonPath: string;
  defaultSteps: string;
  defaultWarmupSteps: string;
  defaultRepeats: string;
  theme: Theme;
  dataDir: string;
}

/** The data folder the field shows: the one a restart moves to while a move is pending, else the one this
 *  session uses (a session started with --data-dir showed the default folder here, which it does not use).
 *  Saving with it unchanged writes no pointer. */
function shownDataDir(view: SettingsView): string {
  return view.dataDir.restartRequired ? view.dataDir.next : view.dataDir.current;
}

export function SettingsPage() {
  const { view, error, saving, savedAt, load, update } = useSettings();
  const [draft, setDraft] = useState<Draft | null>(null);
  const [draftFrom, setDraftFrom] = useState<number | null>(null); // the save (savedAt) the draft was last reset from

  useEffect(() => {
    if (!view) void load();
  }, [view, load]);
  // The form starts from the stored settings once, and again after each save (what the backend kept); a view
  // that arrives meanwhile (another load) never overwrites what the user is typing.
  useEffect(() => {
    if (view && (!draft || savedAt !== draftFrom)) {
      setDraft({
        pythonPath: view.settings.pythonPath ?? '',
        defaultSteps: String(view.settings.defaultSteps),
        defaultWarmupSteps: String(view.settings.defaultWarmupSteps),
        defaultRepeats: String(view.settings.defaultRepeats),
        theme: view.settings.theme,
        dataDir: shownDataDir(view),
      });
      setDraftFrom(savedAt);
    }
  }, [view, draft, savedAt, draftFrom]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!draft || !view) return;
    // Numbers go as typed (Number('') is 0, NaN stays NaN): the backend's refusal names the field.
    const patch = {
      pythonPath: draft.pythonPath.trim() === '' ? null : draft.pythonPath.trim(),
      defaultSteps: Number(draft.defaultSteps),
      defaultWarmupSteps: Number(draft.defaultWarmupSteps),
      defaultRepeats: Number(draft.defaultRepeats),
      theme: draft.theme,
      ...(draft.dataDir.trim() !== shownDataDir(view)
        ? { dataDir: draft.dataDir.trim() === view.dataDir.default ? null : draft.dataDir.trim() }
        : {}),
    };
    void update(patch);
  };
  const field = (key: keyof Draft) => ({
    value: draft?.[key] ?? '',
    onChange: (e: { target: { value: string } }) => setDraft((d) => (d ? { ...d, [key]: e.target.value } : d)),
  });

  return (
    <div className="page">
      <PageHeader
        title="Settings"
        subtitle="Defaults for new runs, the Python engine, where data is kept, the theme, and clusters for multi-node runs."
      />
      {error && <ErrorBox message={error} />}
      {!draft && !error && <Skeleton lines={6} />}
      {draft && view && (
        <Card title="Defaults" testId="settings-card">
          <form className="settings-form" onSubmit={submit} aria-label="Settings">
            <label>
              <span>Theme</span>
              <select {...field('theme')} data-testid="settings-theme">
                <option value="system">Follow the system</option>
                <option value="light">Light</option>
                <option value="dark">Dark</option>
              </select>
            </label>
            <label>
              <span>Default interpreter</span>
              <input
                {...field('pythonPath')}
                placeholder="/path/to/venv/bin/python (empty: let Setup choose)"
                spellCheck={false}
                data-testid="settings-python"
              />
            </label>
            <label>
              <span>Measured steps</span>
              <input {...field('defaultSteps')} inputMode="numeric" data-testid="settings-steps" />
            </label>
            <label>
              <span>Warm-up steps</span>
              <input {...field('defaultWarmupSteps')} inputMode="numeric" data-testid="settings-warmup" />
            </label>
            <label>
              <span>Repeats</span>
              <input {...field('defaultRepeats')} inputMode="numeric" data-testid="settings-repeats" />
            </label>
            <label>
              <span>Data folder</span>
              <input {...field('dataDir')} spellCheck={false} data-testid="settings-datadir" />
            </label>
            <p className="muted settings-hint">
              Runs, settings and clusters are kept in <code>{view.dataDir.current}</code> (settings file <code>{view.file}</code>).
            </p>
            {view.dataDir.restartRequired ? (
              <p className="settings-restart" role="status" data-testid="settings-restart">
                {view.dataDir.note}
              </p>
            ) : (
              view.dataDir.note && (
                <p className="muted settings-hint" data-testid="settings-datadir-note">
                  {view.dataDir.note}
                </p>
              )
            )}
            <div className="button-row">
              <button type="submit" disabled={saving} data-testid="settings-save">
                {saving ? 'Saving…' : 'Save'}
              </button>
              {savedAt && !error && !saving && (
                <span className="ok-text" role="status">
                  Saved.
                </span>
              )}
            </div>
          </form>
        </Card>
      )}
      <ClusterSection />
      <SlurmSection />
    </div>
  );
}
