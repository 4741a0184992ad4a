// The report's resource section on real GPU lanes: the two runs sampled on a leased H100
// (resources/samples/h100-resource-view, runs/resources as that host answered it). The lanes are
// drawn (GPU and PCIe series), and the attribution sits beside the predicted terms.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunResourcesSchema } from '../../../electron/contract';
import { resourcesSection } from '../../../electron/services/reports/resources-section';
import type { ReportRun } from '../../../electron/services/reports';

const dir = path.resolve(import.meta.dirname, '../../../resources/samples/h100-resource-view');
const runs = ['zero3-offload', 'gpu-zero1'].map((name) =>
  RunResourcesSchema.parse(JSON.parse(fs.readFileSync(path.join(dir, name, 'resources.json'), 'utf8'))),
);
// The section reads a run's id, strategy and repeat only: the stored H100 samples carry no full run detail.
const reportRuns = runs.map(
  (r, i) => ({ summary: { id: r.runId, strategy: i === 0 ? 'zero3-offload' : 'gpu-zero1', repeatIndex: 0 } }) as unknown as ReportRun,
);
const html = resourcesSection(reportRuns, (id) => runs.find((r) => r.runId === id) ?? null)!.__html;

describe('report resource section on the H100 samples', () => {
  it('draws the GPU and PCIe lanes, measured there; only NVLink says it was not sampled', () => {
    expect(html.match(/<svg/g)).toHaveLength(2);
    expect(html).not.toMatch(/(GPU busy \(%\)|PCIe rx \+ tx per GPU \(GB\/s\)): not available/);
    // and says once what neither run sampled
    expect(html).toMatch(/Not measured in any of these runs: NVLink \(NVLink counters are not sampled by this version\)\./);
    expect(html).toContain('GPU busy (%)');
    // Both runs' overall sentence as measured on the H100.
    expect(html).toContain('<strong>Measured steps:</strong> GPU busy 84%, 53.7 GiB used, 499 W; PCIe 14.3 GB/s (peak 38.8) of 63 nominal');
    expect(html).toMatch(/<strong>Measured steps:<\/strong> GPU busy 99%/);
    fs.mkdirSync(path.resolve(import.meta.dirname, '../../../test-results'), { recursive: true });
    fs.writeFileSync(
      path.resolve(import.meta.dirname, '../../../test-results/report-resources-h100.html'),
      `<!doctype html><meta charset="utf-8"><body style="width:900px">${html}</body>`,
    );
  });

  it("puts the tuner's terms beside what their lane measured", () => {
    expect(html).toMatch(/<tr><td>compute<\/td><td class="num">0\.400<\/td><td>gpu<\/td><td>GPU busy 84%<\/td><\/tr>/);
    expect(html).toMatch(/<tr><td>fetchExposed<\/td><td class="num">0\.0537<\/td><td>pcie<\/td><td>14\.3 GB\/s[^<]*<\/td><\/tr>/);
    expect(html).toContain('the plan stored 0.746 s when the run was planned');
  });
});
