// Pure parser for `rocm-smi --showproductname --showmeminfo vram --showbus --json`: one object
// per card ("card0": {...}); key spellings differ between ROCm releases, so match loosely.
import type { Gpu } from '../../../contract';

function pick(fields: Record<string, string>, ...patterns: RegExp[]): string | null {
  for (const p of patterns) {
    const key = Object.keys(fields).find((k) => p.test(k));
    if (key && fields[key] && !/^n\/a$/i.test(fields[key])) return String(fields[key]);
  }
  return null;
}

export function parseRocmSmiJson(text: string): Gpu[] {
  const doc = JSON.parse(text) as Record<string, Record<string, string>>;
  return Object.entries(doc)
    .filter(([key]) => /^card\d+$/i.test(key))
    .map(([key, fields]): Gpu => {
      const index = Number(key.replace(/\D/g, ''));
      const total = pick(fields, /VRAM Total Memory \(B\)/i);
      return {
        index,
        vendor: 'amd',
        name: pick(fields, /^Card Series$/i, /^Device Name$/i, /^Card Model$/i, /^Card SKU$/i) ?? 'AMD GPU',
        uuid: pick(fields, /Unique ID/i, /^UUID$/i),
        busId: pick(fields, /^PCI Bus$/i),
        memoryBytes: total ? Number(total) : 0,
        computeCapability: pick(fields, /GFX Version/i),
        driverVersion: pick(fields, /Driver version/i),
        cudaVersion: null,
        pcie: { gen: null, width: null, maxGen: null, maxWidth: null },
        numaNode: null,
        cpuAffinity: null,
        powerLimitWatts: null,
        links: [],
        architecture: null,
        c2cMode: null,
        addressingMode: null,
      };
    })
    .sort((a, b) => a.index - b.index);
}
