// The preset catalogs (resources/presets/*.json), read once and validated against the contract's
// schemas, so a bad edit of the data fails loudly with the file and field named.
import fs from 'node:fs';
import { z } from 'zod';
import {
  describeIssue,
  GpuCatalogEntrySchema,
  PresetModelSchema,
  ScenarioSchema,
  StrategyPresetSchema,
  type GpuCatalogEntry,
  type ModelArch,
  type Scenario,
  type StrategyPreset,
} from '../../../contract';
import { presetsPath } from '../../resources';

export interface Catalog {
  models: ModelArch[];
  strategies: StrategyPreset[];
  gpus: GpuCatalogEntry[];
  scenarios: Scenario[];
}

let cached: Catalog | null = null;

function readList<T>(file: string, key: string, schema: z.ZodType<T>): T[] {
  const text = fs.readFileSync(presetsPath(file), 'utf8');
  const parsed = z.object({ [key]: z.array(schema) }).safeParse(JSON.parse(text));
  if (!parsed.success) {
    throw new Error(`resources/presets/${file}: ${describeIssue(parsed.error)}`);
  }
  return (parsed.data as Record<string, T[]>)[key];
}

export function catalog(): Catalog {
  if (cached) return cached;
  cached = {
    models: readList('models.json', 'models', PresetModelSchema),
    strategies: readList('strategies.json', 'strategies', StrategyPresetSchema),
    gpus: readList('gpus.json', 'gpus', GpuCatalogEntrySchema),
    scenarios: readList('scenarios.json', 'scenarios', ScenarioSchema),
  };
  return cached;
}

export function strategyById(id: string): StrategyPreset {
  const found = catalog().strategies.find((s) => s.id === id);
  if (!found)
    throw Object.assign(
      new Error(
        `unknown strategy '${id}' (known: ${catalog()
          .strategies.map((s) => s.id)
          .join(', ')})`,
      ),
      { field: 'strategyId' },
    );
  return found;
}

export function scenarioById(id: string): Scenario {
  const found = catalog().scenarios.find((s) => s.id === id);
  if (!found)
    throw Object.assign(
      new Error(
        `unknown scenario '${id}' (known: ${catalog()
          .scenarios.map((s) => s.id)
          .join(', ')})`,
      ),
      { field: 'scenario' },
    );
  return found;
}
