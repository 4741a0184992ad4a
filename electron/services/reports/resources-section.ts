// The report's resource view: per run, the stored lanes drawn server-side with the run
// page's own option builder (resourceLanesOption → SVG), what they say over the measured steps, and
// the tuner's predicted terms beside the lane that measures each. A run without stored samples says
// why in one line; a lane none of the report's runs measured (GPU busy and PCIe on a machine without
// a GPU) is left out of every chart, one line saying which lanes were not measured and why; a lane
// measured in some runs but not in this one says "not available: why" in its title — never zeros.
import { LANES, type RunResources } from '../../contract';
import { lanesChartHeight, lanesToDraw, listOf, RESOURCE_LANES, resourceLanesOption } from '../../contract/charts/resource-lanes';
import { html, raw, type Raw } from './escape';
import { fmt, strategyName } from './format';
import { renderSvg } from './svg';
import type { ReportRun } from './types';

/** Charts drawn at most: a 64-run report keeps each run's sentences, not 64 figures. */
export const MAX_RESOURCE_CHARTS = 8;

function termsTable(r: RunResources): Raw {
  const a = r.attribution!;
  if (a.predicted.terms.length === 0)
    return html`<p class="muted">Predicted terms: ${a.predicted.note ?? 'no predicted term above 0'}.</p>`;
  return html`<table class="keep"><thead><tr><th>Predicted term</th><th class="num">Seconds</th><th>Lane</th><th>What the lane measured</th></tr></thead><tbody>
    ${a.predicted.terms.map((t) => html`<tr><td>${t.term}</td><td class="num">${fmt(t.seconds, 3)}</td><td>${t.lane}</td><td>${t.measured}</td></tr>`)}</tbody></table>
    ${a.predicted.note ? html`<p class="muted">${a.predicted.note}</p>` : ''}`;
}

/** The section, or null when no run of the report has stored samples (runs from before sampling, imported runs): no section then. */
export function resourcesSection(runs: ReportRun[], resourcesOf: (id: string) => RunResources | null): Raw | null {
  const read = runs.map((run) => {
    try {
      return { run, res: resourcesOf(run.summary.id) };
    } catch (error) {
      // The report stands without the resource view of one run: it says why instead.
      return { run, res: null, why: error instanceof Error ? error.message : String(error) };
    }
  });
  if (!read.some(({ res }) => res?.record && res.attribution)) return null;
  // The lanes any run measured are drawn (in every chart, for runs to read alike); a lane no run
  // measured (GPU busy, PCIe and NVLink on a machine without a GPU) is left out, named once here.
  const records = read.flatMap(({ res }) => (res?.record && res.attribution ? [res.record] : []));
  const { drawn, notMeasured, words } = lanesToDraw(records);
  const drawnLanes = RESOURCE_LANES.filter((l) => drawn.includes(l.key));
  const notMeasuredLine = words
    ? html`<p class="muted" data-testid="resources-not-measured">Not measured in any of these runs: ${words}.</p>`
    : '';
  const caption = `${listOf(drawnLanes.map((l) => l.name))} over the run (dashed: warm-up ends)`;
  // 360 px for the three lanes; fewer get less, but room enough above the first lane for its title.
  const svgHeight = lanesChartHeight(drawn.length);
  // The runs table's words: display name, and the repeat where there are several.
  const name = (run: ReportRun) =>
    `${strategyName(run.summary.strategy)}${run.summary.repeatIndex > 0 ? ` · repeat ${run.summary.repeatIndex + 1}` : ''}`;
  let charts = 0;
  const blocks = read.map(({ run, res, why }: { run: ReportRun; res: RunResources | null; why?: string }) => {
    const id = run.summary.id;
    if (!res?.record || !res.attribution)
      return html`<p class="muted" data-resources-run="${id}"><code>${id}</code> (${name(run)}): resources not available: ${res?.missing ?? why ?? 'not read'}.</p>`;
    const a = res.attribution;
    // This run's lanes not measured, less those the section's one line already names.
    const unavailable = LANES.filter((lane) => !res.record!.availability[lane].available && !notMeasured.includes(lane)).map(
      (lane) => `${lane}: not available: ${res.record!.availability[lane].reason}`,
    );
    const figure = !drawn.length
      ? ''
      : charts++ < MAX_RESOURCE_CHARTS
        ? html`<figure class="keep"><figcaption>${caption}</figcaption>${raw(renderSvg(resourceLanesOption(res.record, drawn) as Record<string, unknown>, 860, svgHeight))}</figure>`
        : html`<p class="muted">(Chart left out: the report draws the first ${String(MAX_RESOURCE_CHARTS)} runs' lanes.)</p>`;
    return html`<div data-resources-run="${id}"><h3>${name(run)} — <code>${id}</code></h3>${figure}
      <p data-testid="resources-overall"><strong>Measured steps:</strong> ${a.overall ? a.overall.text : 'no measured step'}</p>
      ${unavailable.length ? html`<p class="muted">${unavailable.join('; ')}</p>` : ''}
      ${termsTable(res)}</div>`;
  });
  return html`<p class="muted">What the machine did during each run, sampled by the app beside the runner, beside the tuner's predicted terms for its configuration: the lane that measures each term says what it saw.</p>${notMeasuredLine}${blocks}`;
}
