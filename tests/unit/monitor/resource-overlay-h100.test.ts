// Compare's overlay on real GPU lanes: the two runs sampled on a leased H100 (resources/samples/
// h100-resource-view: Llama-3.2-1B at seq 2048, ZeRO-3 + CPU offload vs ZeRO-1 all on the GPU). On
// one axis from each run's first measured step, the offload run's GPU is less busy and its PCIe moves
// data; the no-offload run keeps the GPU near 100% and the link near silent — what the H100 note says.
import fs from 'node:fs';
import path from 'node:path';
import * as echarts from 'echarts';
import type { EChartsOption } from 'echarts';
import { describe, expect, it } from 'vitest';
import { resourceOverlayOption, RunResourcesSchema, OVERLAY_HEIGHT } from '../../../electron/contract';

const dir = path.resolve(import.meta.dirname, '../../../resources/samples/h100-resource-view');
const load = (name: string) => RunResourcesSchema.parse(JSON.parse(fs.readFileSync(path.join(dir, name, 'resources.json'), 'utf8')));

type Opt = { series: { name: string; data: [number, number | null][] }[]; title: { text: string }[] };
const mean = (xs: (number | null)[]) => {
  const v = xs.filter((x): x is number => x !== null);
  return v.reduce((a, b) => a + b, 0) / v.length;
};

describe('resource overlay on the H100 samples', () => {
  const offload = load('zero3-offload');
  const zero1 = load('gpu-zero1');
  const o = resourceOverlayOption(
    { label: 'ZeRO-3 + CPU offload', record: offload.record },
    { label: 'ZeRO-1', record: zero1.record },
  ) as unknown as Opt;
  const series = (name: string) => o.series.find((s) => s.name === name)!;
  // The measured steps' window of each run (6 measured steps of ~0.6 s): the first 4 s from t0.
  const inSteps = (name: string) =>
    series(name)
      .data.filter(([x]) => x <= 4)
      .map(([, y]) => y);

  it("draws both runs' GPU, PCIe and CPU lanes, all measured there", () => {
    expect(o.series.map((s) => s.name)).toEqual([
      'A · GPU 0',
      'A · PCIe 0',
      'A · cores ≥ 90%',
      'B · GPU 0',
      'B · PCIe 0',
      'B · cores ≥ 90%',
    ]);
    expect(o.title.slice(1).map((t) => t.text)).toEqual(['GPU busy (%)', 'PCIe rx + tx per GPU (GB/s)', 'CPU cores at ≥ 90%']);
    for (const s of o.series) expect(Math.min(...s.data.map(([x]) => x)), s.name).toBeGreaterThan(0);
  });

  it('reads as the H100 note says: offload leaves the GPU idle part of the step and uses the link, ZeRO-1 does not', () => {
    const gpuA = mean(inSteps('A · GPU 0'));
    const gpuB = mean(inSteps('B · GPU 0'));
    expect(gpuB).toBeGreaterThan(95);
    expect(gpuA).toBeLessThan(gpuB);
    expect(mean(inSteps('A · PCIe 0'))).toBeGreaterThan(1); // GB/s
    expect(mean(inSteps('B · PCIe 0'))).toBeLessThan(0.5);
  });

  it('renders (SVG kept under test-results for a look)', () => {
    const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 1000, height: OVERLAY_HEIGHT });
    chart.setOption(o as unknown as EChartsOption);
    const svg = chart.renderToSVGString();
    chart.dispose();
    expect(svg).toContain('GPU busy (%)');
    fs.mkdirSync(path.resolve(import.meta.dirname, '../../../test-results'), { recursive: true });
    fs.writeFileSync(path.resolve(import.meta.dirname, '../../../test-results/resource-overlay-h100.svg'), svg);
  });
});
