// The documents history keeps with a run (run_details' JSON columns and the machine snapshot), as
// typed, lenient readings of their owners' schemas. A stored document was written by whatever version
// of the app (and of the runner) ran the run, and comes back from runs files and bundles of other
// machines: it may lack fields added since, carry fields added later, or hold a value of another
// type. So each reading is derived from the owner's schema (RunSpec: run-spec.ts; runner messages:
// engine.ts; Machine: hardware.ts) with every field optional, enums and literals widened to their
// type (a newer runner's precision or a spec of another specVersion reads as what it says), unknown
// fields kept, and a field of the wrong type read as absent rather than failing the document.
// Versions: the documents carry their own marker — `specVersion` (RunSpec), `v` (runner messages),
// `schemaVersion` (Machine) — kept as plain numbers; absent in documents older than the marker.
// History parses each document once, where it reads it (services/history `readStoredDocuments`); a
// document that did not parse as its owner's schema says so in RunDetail.unparsed, with its raw text
// or value, and the run is kept.
import { z } from 'zod';
import { ConfigMessageSchema, HelloMessageSchema, ResultMessageSchema } from './engine';
import { MachineSchema } from './hardware';
import { RunSpecSchema, SpecPredictionSchema } from './run-spec';

/** A lenient reading of T: every field optional, literals widened, nested objects likewise, unknown fields kept. */
export type Lenient<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends readonly (infer E)[]
        ? Lenient<E>[]
        : T extends object
          ? { [K in keyof T]?: Lenient<T[K]> } & { [key: string]: unknown }
          : T;

/** Where the reading now under way notes each field it read as absent (parsing is synchronous). */
let dropped: string[] | null = null;
const absent = (key: string) => (ctx: { error: z.ZodError }) => {
  dropped?.push(`${key}: ${ctx.error.issues[0]?.message ?? 'not readable'}`);
  return undefined;
};

/** The runtime side of Lenient<T>, built from the owner's zod schema. */
function loosen(s: z.ZodType): z.ZodType {
  if (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodCatch || s instanceof z.ZodPrefault)
    return loosen(s.unwrap() as z.ZodType);
  if (s instanceof z.ZodNullable) return loosen(s.unwrap() as z.ZodType).nullable();
  if (s instanceof z.ZodPipe) return loosen(s.out as z.ZodType);
  if (s instanceof z.ZodObject)
    return z.looseObject(
      Object.fromEntries(Object.entries(s.shape as Record<string, z.ZodType>).map(([k, f]) => [k, loosen(f).optional().catch(absent(k))])),
    );
  if (s instanceof z.ZodArray) return z.array(loosen(s.element as z.ZodType));
  if (s instanceof z.ZodUnion) return z.union((s.options as z.ZodType[]).map(loosen));
  if (s instanceof z.ZodEnum) return z.string();
  if (s instanceof z.ZodLiteral) {
    const kinds = new Set([...s.values].map((v) => typeof v));
    return kinds.size === 1 && kinds.has('number') ? z.number() : kinds.size === 1 && kinds.has('string') ? z.string() : s;
  }
  // Checks (int, positive, min length) are the writer's business: a stored 0 or 1.5 is read as it is.
  if (s instanceof z.ZodNumber) return z.number();
  if (s instanceof z.ZodString) return z.string();
  return s;
}

/** The lenient reading of an object schema (see the head of this file), with `older` fields that
 *  documents of earlier versions carry and the owner's schema no longer names. */
export function lenient<S extends z.ZodType, E extends z.ZodRawShape = Record<never, never>>(
  schema: S,
  older?: E,
): z.ZodType<Lenient<z.output<S> & z.output<z.ZodObject<E>>>> {
  const reading = loosen(schema) as z.ZodObject;
  return (older ? reading.extend((loosen(z.object(older)) as z.ZodObject).shape) : reading) as unknown as z.ZodType<
    Lenient<z.output<S> & z.output<z.ZodObject<E>>>
  >;
}

/** The spec given to the runner (RunSpec; older specs were flat and may name `worldSize`, and a
 *  multi-node run's spec its `hosts` and `launchArgv`). */
export const StoredSpecSchema = lenient(RunSpecSchema, {
  worldSize: z.number().int(),
  hosts: z.array(z.union([z.string(), z.looseObject({ hostname: z.string() })])),
  launchArgv: z.array(z.string()),
});
/** The runner's hello: versions, devices. */
export const StoredHelloSchema = lenient(HelloMessageSchema);
/** The runner's config line: parameter count, effective config, formula (older runners: modelId, nodes, launchArgv). */
export const StoredConfigSchema = lenient(ConfigMessageSchema, {
  modelId: z.string(),
  nodes: z.number().int(),
  launchArgv: z.array(z.string()),
  config: z.unknown(),
});
/** The runner's result line: medians over the measured steps (ZeRO-Infinity runs: the NVMe peak). */
export const StoredResultSchema = lenient(ResultMessageSchema, { peakNvmeBytes: z.number().nullable() });
/** The tuner's prediction kept beside the measurement (older plans nested the speed under `throughput`). */
export const StoredPredictionSchema = lenient(SpecPredictionSchema, {
  throughput: z.object({ stepSeconds: z.number(), tflopsPerGpu: z.number() }),
});
/** The machine at run time (`detect --json`'s Machine). */
export const StoredMachineSchema = lenient(MachineSchema);

export type StoredSpec = z.infer<typeof StoredSpecSchema>;
export type StoredHello = z.infer<typeof StoredHelloSchema>;
export type StoredConfig = z.infer<typeof StoredConfigSchema>;
export type StoredResult = z.infer<typeof StoredResultSchema>;
export type StoredPrediction = z.infer<typeof StoredPredictionSchema>;
export type StoredMachine = z.infer<typeof StoredMachineSchema>;

export const STORED_DOCUMENTS = ['spec', 'hello', 'config', 'result', 'predicted', 'snapshot'] as const;
export type StoredDocumentName = (typeof STORED_DOCUMENTS)[number];

/** A stored document that did not parse as its owner's schema: which, why, and what was stored. */
export const UnparsedDocumentSchema = z.object({
  document: z.enum(STORED_DOCUMENTS),
  /** "not JSON", "not an object", or the fields that were read as absent and why. */
  reason: z.string(),
  /** The stored text (not JSON) or value (JSON of another shape), as it was. */
  raw: z.unknown(),
});
export type UnparsedDocument = z.infer<typeof UnparsedDocumentSchema>;

export const storedDocumentSchemas = {
  spec: StoredSpecSchema,
  hello: StoredHelloSchema,
  config: StoredConfigSchema,
  result: StoredResultSchema,
  predicted: StoredPredictionSchema,
  snapshot: StoredMachineSchema,
} as const;

export type StoredDocuments = { [K in StoredDocumentName]: z.infer<(typeof storedDocumentSchemas)[K]> | null };

/**
 * One stored document read leniently: `value` is its typed reading (null where nothing was stored or it
 * was no object), `unparsed` says what did not parse (null when all of it did). `stored` is the JSON
 * text of the SQLite column.
 */
export function readStoredDocument<K extends StoredDocumentName>(
  document: K,
  stored: string | null | undefined,
): { value: StoredDocuments[K]; unparsed: UnparsedDocument | null } {
  if (stored == null) return { value: null, unparsed: null };
  let raw: unknown;
  try {
    raw = JSON.parse(stored);
  } catch {
    return { value: null, unparsed: { document, reason: 'not JSON', raw: stored } };
  }
  return readStoredValue(document, raw);
}

/** readStoredDocument for a value already parsed from JSON. */
export function readStoredValue<K extends StoredDocumentName>(
  document: K,
  raw: unknown,
): { value: StoredDocuments[K]; unparsed: UnparsedDocument | null } {
  if (raw === null || raw === undefined) return { value: null, unparsed: null };
  if (typeof raw !== 'object' || Array.isArray(raw)) return { value: null, unparsed: { document, reason: 'not an object', raw } };
  const notes: string[] = [];
  dropped = notes;
  try {
    const value = (storedDocumentSchemas[document] as z.ZodType).parse(raw) as StoredDocuments[K];
    return { value, unparsed: notes.length ? { document, reason: `read without ${notes.slice(0, 5).join('; ')}`, raw } : null };
  } finally {
    dropped = null;
  }
}
