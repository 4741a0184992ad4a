// echarts renders a tooltip formatter's string as HTML (its own default tooltips escape names; a
// formatter's do not). Names in these charts come from runs, and an imported run's strategy or
// label is whatever its file said: `<div style="position:fixed;inset:0">` would cover the page
// (the CSP stops scripts, not markup or CSS). Every data-derived string in tooltip HTML goes
// through here; only the builder's own markup (`<br/>`, echarts' markers) stays raw.
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `value` as text safe inside HTML: markup characters become entities. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]);
}
