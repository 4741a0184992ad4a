// What differs between several JSON documents (system snapshots, configs): flatten each to
// path → value, keep the paths whose values are not all the same. Pure; imports nothing, so the
// Compare page, the comparison service and the HTML report show the same differences.

export interface JsonDifference {
  path: string;
  /** One entry per document: the value as JSON text, or '—' when the path is absent there. */
  values: string[];
}

export const ABSENT = '—';

/** Flatten to dotted paths (`gpus[0].name`); objects and arrays recurse, everything else is a leaf. */
export function flattenJson(value: unknown, prefix = '', out: Map<string, string> = new Map()): Map<string, string> {
  if (Array.isArray(value)) {
    if (value.length === 0) out.set(prefix, '[]');
    value.forEach((v, i) => flattenJson(v, `${prefix}[${i}]`, out));
  } else if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value as Record<string, unknown>).sort();
    if (keys.length === 0) out.set(prefix, '{}');
    for (const k of keys) flattenJson((value as Record<string, unknown>)[k], prefix ? `${prefix}.${k}` : k, out);
  } else if (value !== undefined) {
    out.set(prefix, JSON.stringify(value));
  }
  return out;
}

/**
 * The paths where the documents disagree, in path order. `ignore` drops volatile paths (a
 * detection timestamp, a run id) by prefix. A null/undefined document counts as absent everywhere.
 */
export function diffJson(documents: readonly unknown[], ignore: readonly string[] = [], limit = 500): JsonDifference[] {
  const flat = documents.map((d) => (d == null ? new Map<string, string>() : flattenJson(d)));
  const paths = new Set<string>();
  for (const f of flat) for (const p of f.keys()) paths.add(p);
  const ignored = (p: string) => ignore.some((i) => p === i || p.startsWith(i + '.') || p.startsWith(i + '['));
  const out: JsonDifference[] = [];
  for (const path of [...paths].sort()) {
    if (ignored(path)) continue;
    const values = flat.map((f) => f.get(path) ?? ABSENT);
    if (values.every((v) => v === values[0])) continue;
    out.push({ path, values });
    if (out.length >= limit) break;
  }
  return out;
}
