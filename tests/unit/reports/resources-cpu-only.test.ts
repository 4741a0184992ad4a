// A report of runs sampled on a machine without a GPU: its resource charts leave out the GPU busy
// and PCIe lanes (none of the runs has a sample in them) instead of drawing them empty with
// "not available" titles, and one line says which lanes were not measured and why. A lane one run
// measured stays in every chart (the H100 samples beside a run sampled here).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunResourcesSchema } from '../../../electron/contract';
import { runResources } from '../../../electron/services/backend/handlers/resources';
import type { HistoryStore } from '../../../electron/services/history';
import { startMonitor } from '../../../electron/services/monitor';
import { createReports, type ReportRun } from '../../../electron/services/reports';
import { resourcesSection } from '../../../electron/services/reports/resources-section';
import { openTempStore, seedComparison } from './fixtures';

let store: HistoryStore;
let dir: string;
let html: string;

/** The report's resource section (up to the next section). */
const section = (page: string) =>
  page.slice(page.indexOf('<h2>Resources during the runs</h2>'), page.indexOf('<section class="major system">'));
/** The text of each chart's titles (the SVG's <text> elements). */
const svgTexts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

beforeAll(async () => {
  ({ store, dir } = openTempStore());
  seedComparison(store);
  // Real records: this GPU-less machine's /proc sampled by the app's monitor, two runs' worth.
  for (const id of ['zo-0', 'so-0']) {
    const monitor = startMonitor({ machine: { gpus: [] }, intervalMs: 100 });
    await new Promise((r) => setTimeout(r, 300));
    monitor.markStep({ step: 1, warmup: true, stepSeconds: 0.3 });
    await new Promise((r) => setTimeout(r, 300));
    monitor.markStep({ step: 2, warmup: false, stepSeconds: 0.3 });
    store.storeResources(id, monitor.stop());
  }
  const reports = createReports({
    getRun: (id) => store.getRun(id, 0),
    compare: (i, b) => store.compare(i, b),
    resources: (id) => runResources({ dataDir: dir, history: store }, id),
  });
  html = reports.html(['zo-0', 'so-0']);
  await reports.close();
}, 30_000);
afterAll(() => store?.close());

describe('report resources of CPU-only runs', () => {
  it('leaves out the GPU and PCIe lanes no run measured, and says in one line which and why', () => {
    const resources = section(html);
    const svgs = resources.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
    expect(svgs).toHaveLength(2);
    for (const svg of svgs) {
      const texts = svgTexts(svg);
      expect(texts).toContain('CPU cores at ≥ 90%');
      expect(texts.join('\n')).not.toMatch(/GPU busy|PCIe|not available/);
      // One lane: a shorter chart than the three lanes' 360 px.
      expect(svg).toMatch(/^<svg width="860" height="260"/);
    }
    expect(resources).toMatch(/<figcaption>CPU cores over the run \(dashed: warm-up ends\)<\/figcaption>/);
    const line = [...resources.matchAll(/data-testid="resources-not-measured">([^<]*)</g)].map((m) => m[1].replace(/\s+/g, ' ').trim());
    expect(line).toEqual(['Not measured in any of these runs: GPU busy, PCIe and NVLink (no NVIDIA GPU on this machine).']);
    // Each run's own list does not say it again.
    expect(resources).not.toMatch(/(gpu|pcie|nvlink): not available/);
  });

  it('keeps a lane another run of the report measured: the H100 run beside a run sampled here', () => {
    const h100 = RunResourcesSchema.parse(
      JSON.parse(
        fs.readFileSync(
          path.resolve(import.meta.dirname, '../../../resources/samples/h100-resource-view/gpu-zero1/resources.json'),
          'utf8',
        ),
      ),
    );
    const here = runResources({ dataDir: dir, history: store }, 'zo-0');
    const byId = new Map([
      [h100.runId, h100],
      ['zo-0', here],
    ]);
    const runs = [h100.runId, 'zo-0'].map(
      (id) => ({ summary: { id, strategy: id === 'zo-0' ? 'zero2-offload' : 'gpu-zero1', repeatIndex: 0 } }) as unknown as ReportRun,
    );
    const mixed = resourcesSection(runs, (id) => byId.get(id) ?? null)!.__html;
    // Only NVLink, which neither run sampled, is named as not measured.
    expect([...mixed.matchAll(/data-testid="resources-not-measured">([^<]*)</g)].map((m) => m[1].replace(/\s+/g, ' ').trim())).toEqual([
      expect.stringMatching(/^Not measured in any of these runs: NVLink \(/),
    ]);
    const [gpuSvg, hereSvg] = mixed.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
    expect(hereSvg).toBeDefined();
    expect(svgTexts(gpuSvg!)).toEqual(expect.arrayContaining(['GPU busy (%)', 'PCIe rx + tx per GPU (GB/s)', 'CPU cores at ≥ 90%']));
    // The run sampled here draws the same three lanes; its GPU lanes say why they are empty.
    expect(svgTexts(hereSvg!)).toContain('GPU busy (%): not available: no NVIDIA GPU on this machine');
    expect(hereSvg).toMatch(/^<svg width="860" height="360"/);
  });
});
