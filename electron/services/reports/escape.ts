// HTML escaping for every string that reaches the report. User-provided text (tags, notes,
// names, paths, config values) is data, never markup: `<img src=x onerror=…>` shows as text.
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** Tagged template: interpolated values are escaped; wrap trusted markup in `raw()`. */
export interface Raw {
  readonly __html: string;
}
export const raw = (html: string): Raw => ({ __html: html });

function render(value: unknown): string {
  if (Array.isArray(value)) return value.map(render).join('');
  if (value && typeof value === 'object' && '__html' in value) return (value as Raw).__html;
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(value);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return raw(out);
}
