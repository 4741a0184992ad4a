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

/** One section of a comparison's config differences: DeepSpeed keys, FSDP keys, knobs, the rest. */
export interface ConfigDiffSection {
  id: 'workload' | 'knobs' | 'deepspeed' | 'fsdp';
  title: string;
  /** Per column: whether the section applies to it (FSDP2 has no ds_config, DeepSpeed no FSDP settings). */
  applies: boolean[];
  rows: { path: string; values: string[] }[];
  /** Keys of the section the applicable columns share (not listed). */
  same: number;
}

const SECTIONS: { id: ConfigDiffSection['id']; title: string; prefix: string | null; engine: string | null }[] = [
  { id: 'knobs', title: 'Knobs', prefix: 'knobs', engine: null },
  { id: 'deepspeed', title: 'DeepSpeed config (ds_config.json)', prefix: 'dsConfig', engine: 'deepspeed' },
  { id: 'fsdp', title: 'FSDP2 settings', prefix: 'fsdp', engine: 'fsdp2' },
  { id: 'workload', title: 'Workload and run', prefix: null, engine: null },
];

/**
 * A comparison's config differences, one column per repeat group (repeats share a config),
 * grouped by what the key belongs to. A key of one engine's config is compared only among the
 * columns of that engine: the others show "not applicable" instead of making every DeepSpeed key
 * "differ" as soon as an FSDP2 run is in the set. Only keys that differ among the columns they
 * apply to are listed. `specs`: each column's RunSpec (or null); `engines`: each column's engine.
 */
export function configDiffSections(
  specs: readonly unknown[],
  engines: readonly string[],
  ignore: readonly string[] = [],
): ConfigDiffSection[] {
  return configDiffSectionsOfFlat(
    specs.map((d) => (d == null ? new Map<string, string>() : flattenJson(d))),
    engines,
    ignore,
  );
}

/** The same from a comparison's run-by-run differences (`Comparison.configDiff`, values in run order): column i is run `columns[i]`. */
export function configDiffSectionsOfDiff(
  diff: readonly JsonDifference[],
  columns: readonly number[],
  engines: readonly string[],
  ignore: readonly string[] = [],
): ConfigDiffSection[] {
  const flat = columns.map((k) => new Map(diff.filter((d) => d.values[k] !== ABSENT).map((d) => [d.path, d.values[k]] as const)));
  return configDiffSectionsOfFlat(flat, engines, ignore);
}

function configDiffSectionsOfFlat(flat: Map<string, string>[], engines: readonly string[], ignore: readonly string[]): ConfigDiffSection[] {
  const ignored = (p: string) => ignore.some((i) => p === i || p.startsWith(i + '.') || p.startsWith(i + '['));
  const under = (p: string, prefix: string) => p === prefix || p.startsWith(prefix + '.') || p.startsWith(prefix + '[');
  const paths = new Set<string>();
  for (const f of flat) for (const p of f.keys()) if (!ignored(p)) paths.add(p);
  const sorted = [...paths].sort();
  return SECTIONS.map((section) => {
    const applies = engines.map((e) => section.engine === null || e === section.engine);
    const mine = sorted.filter((p) =>
      section.prefix === null
        ? !SECTIONS.some((s) => s.prefix !== null && under(p, s.prefix)) && p !== 'engine'
        : under(p, section.prefix) && p !== section.prefix,
    );
    const rows: ConfigDiffSection['rows'] = [];
    let same = 0;
    for (const path of mine) {
      // A key no column of an engine has (a DeepSpeed knob beside FSDP2) does not apply to that engine.
      const engineHas = new Set(engines.filter((_, i) => applies[i] && flat[i].has(path)));
      const here = applies.map((a, i) => a && (section.engine !== null || engineHas.has(engines[i])));
      const values = flat.map((f, i) => (here[i] ? (f.get(path) ?? ABSENT) : 'not applicable'));
      const considered = values.filter((_, i) => here[i]);
      if (considered.every((v) => v === considered[0])) same++;
      else rows.push({ path: section.prefix === null ? path : path.slice(section.prefix.length + 1), values });
    }
    return { id: section.id, title: section.title, applies, rows, same };
  });
}
