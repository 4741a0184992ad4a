// The shell: navigation on the left, one page at a time. The root carries
// data-app-state="loaded" once the first page has its data, so tests wait for it instead of sleeping.
import { useEffect, type ReactElement } from 'react';
import { useApp, type PageId } from './stores/app';
import { useHardware } from './stores/hardware';
import { useWizard } from './stores/wizard';
import { reattachSweep } from './stores/engine';
import { HardwarePage } from './pages/HardwarePage';
import { RunsPage } from './pages/RunsPage';
import { ComparePage } from './pages/ComparePage';
import { SettingsPage } from './pages/SettingsPage';
import { ReportsPage } from './pages/ReportsPage';
import { PlanPage } from './pages/PlanPage';
import { SetupPage } from './pages/SetupPage';
import { RunPage } from './pages/RunPage';
import { RunDetailPage } from './pages/RunDetailPage';
import { NoticeBar } from './components/NoticeBar';

const NAV: { id: PageId; label: string }[] = [
  { id: 'setup', label: 'Setup' },
  { id: 'hardware', label: 'Hardware' },
  { id: 'plan', label: 'Plan' },
  { id: 'run', label: 'Run' },
  { id: 'runs', label: 'Runs' },
  { id: 'compare', label: 'Compare' },
  { id: 'reports', label: 'Reports' },
  { id: 'settings', label: 'Settings' },
];

const PAGES: Record<PageId, () => ReactElement> = {
  setup: () => <SetupPage />,
  hardware: () => <HardwarePage />,
  plan: () => <PlanPage />,
  run: () => <RunPage />,
  runs: () => <RunsPage />,
  compare: () => <ComparePage />,
  reports: () => <ReportsPage />,
  settings: () => <SettingsPage />,
};

export function App() {
  const { page, go, info, loadInfo, runId } = useApp();
  const machine = useHardware((s) => s.machine);
  const hardwareError = useHardware((s) => s.error);

  useEffect(() => {
    void loadInfo();
    // A sweep already running (this page reloaded, or opened beside the one that started it).
    void reattachSweep().catch(() => undefined);
    // First run: with no page asked for in the URL, open the setup wizard until it is finished or closed.
    if (!window.location.hash)
      void useWizard
        .getState()
        .load()
        .then(() => {
          const state = useWizard.getState().state;
          if (state && !state.dismissed && !window.location.hash) go('setup');
        });
  }, [loadInfo, go]);

  useEffect(() => {
    const root = document.getElementById('root');
    if (root && (info || machine || hardwareError)) root.dataset.appState = 'loaded';
  }, [info, machine, hardwareError]);

  return (
    <div className="shell">
      {/* First in the tab order: past the eight navigation links to the page in one keypress. A
          handler, not href="#main": the hash is the page route (#/runs), "#main" would open Hardware. */}
      <a
        className="skip-link"
        href="#main"
        data-testid="skip-link"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <nav className="nav" aria-label="Main">
        <div className="brand">
          Offload <span>Studio</span>
        </div>
        <ul>
          {NAV.map((item) => (
            <li key={item.id}>
              <a
                href={`#/${item.id}`}
                aria-current={page === item.id ? 'page' : undefined}
                onClick={(e) => {
                  e.preventDefault();
                  go(item.id);
                }}
              >
                {item.label}
              </a>
            </li>
          ))}
        </ul>
        <div className="nav-footer muted">{info ? `v${info.version} · ${info.transport}` : ''}</div>
      </nav>
      <main className="content" id="main" tabIndex={-1}>
        <NoticeBar />
        {page === 'runs' && runId ? <RunDetailPage id={runId} /> : PAGES[page]()}
      </main>
    </div>
  );
}
