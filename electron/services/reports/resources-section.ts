// The report's resource view (issue 31): per run, the stored lanes drawn server-side with the run
// page's own option builder (resourceLanesOption → SVG), what they say over the measured steps, and
// the tuner's predicted terms beside the lane that measures each. A run without stored samples says
// why in one line; a lane not measured says "not available: why" in its title — never zeros.
import type { RunResources } from '../../contract';
import { resourceLanesOption } from '../../contract/charts/resource-lanes';
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
  return html`<table class="keep">
      <thead>
        <tr>
          <th>Predicted term</th>
          <th class="num">Seconds</th>
          <th>Lane</th>
          <th>What the lane measured</th>
        </tr>
      </thead>
      <tbody>
        ${a.predicted.terms.map(
          (t) =>
            html`<tr>
              <td>${t.term}</td>
              <td class="num">${fmt(t.seconds, 3)}</td>
              <td>${t.lane}</td>
              <td>${t.measured}</td>
            </tr>`,
        )}
      </tbody>
    </table>
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
  // The runs table's words: display name, and the repeat where there are several.
  const name = (run: ReportRun) =>
    `${strategyName(run.summary.strategy)}${run.summary.repeatIndex > 0 ? ` · repeat ${run.summary.repeatIndex + 1}` : ''}`;
  let charts = 0;
  const blocks = read.map(({ run, res, why }: { run: ReportRun; res: RunResources | null; why?: string }) => {
    const id = run.summary.id;
    if (!res?.record || !res.attribution)
      return html`<p class="muted" data-resources-run="${id}">
        <code>${id}</code> (${name(run)}): resources not available: ${res?.missing ?? why ?? 'not read'}.
      </p>`;
    const a = res.attribution;
    const figure =
      charts++ < MAX_RESOURCE_CHARTS
        ? html`<figure class="keep">
            <figcaption>GPU busy, PCIe and CPU cores over the run (dashed: warm-up ends)</figcaption>
            ${raw(renderSvg(resourceLanesOption(res.record) as Record<string, unknown>, 860, 360))}
          </figure>`
        : html`<p class="muted">(Chart left out: the report draws the first ${String(MAX_RESOURCE_CHARTS)} runs' lanes.)</p>`;
    return html`<div data-resources-run="${id}">
      <h3>${name(run)} — <code>${id}</code></h3>
      ${figure}
      <p data-testid="resources-overall"><strong>Measured steps:</strong> ${a.overall ? a.overall.text : 'no measured step'}</p>
      ${a.unavailable.length ? html`<p class="muted">${a.unavailable.join('; ')}</p>` : ''} ${termsTable(res)}
    </div>`;
  });
  return html`<p class="muted">
      What the machine did during each run, sampled by the app beside the runner, beside the tuner's predicted terms for its configuration:
      the lane that measures each term says what it saw.
    </p>
    ${blocks}`;
}
