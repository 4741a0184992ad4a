// The shell: navigation on the left, one page at a time. The root carries
// data-app-state="loaded" once the first page has its data, so tests wait for it instead of sleeping.
import { useEffect, type ReactElement } from 'react';
import { useApp, type PageId } from './stores/app';
import { useHardware } from './stores/hardware';
import { HardwarePage } from './pages/HardwarePage';
import { RunsPage } from './pages/RunsPage';
import { PlaceholderPage } from './pages/PlaceholderPage';

const NAV: { id: PageId; label: string }[] = [
  { id: 'setup', label: 'Setup' },
  { id: 'hardware', label: 'Hardware' },
  { id: 'plan', label: 'Plan' },
  { id: 'runs', label: 'Runs' },
  { id: 'compare', label: 'Compare' },
  { id: 'reports', label: 'Reports' },
];

const PAGES: Record<PageId, () => ReactElement> = {
  setup: () => <PlaceholderPage title="Setup" what="The guided setup: detect hardware, choose or create the Python engine environment, measure the host, pick a workload." />,
  hardware: () => <HardwarePage />,
  plan: () => <PlaceholderPage title="Plan" what="For a workload, every offload strategy with its memory fit, predicted step time and TFLOPS, and the generated ds_config.json." />,
  runs: () => <RunsPage />,
  compare: () => <PlaceholderPage title="Compare" what="Runs side by side: TFLOPS per strategy with spread, deltas against a baseline, step-time lines, memory per resource." />,
  reports: () => <PlaceholderPage title="Reports" what="Export selected runs as HTML, PDF, CSV, JSON or a reproduction bundle." />,
};

export function App() {
  const { page, go, info, loadInfo } = useApp();
  const machine = useHardware((s) => s.machine);
  const hardwareError = useHardware((s) => s.error);

  useEffect(() => {
    void loadInfo();
  }, [loadInfo]);

  useEffect(() => {
    const root = document.getElementById('root');
    if (root && (info || machine || hardwareError)) root.dataset.appState = 'loaded';
  }, [info, machine, hardwareError]);

  return (
    <div className="shell">
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
      <main className="content">{PAGES[page]()}</main>
    </div>
  );
}
