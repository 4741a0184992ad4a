// The import rules of docs/architecture.md as an ESLint rule (`layering/imports`): every import, export-from,
// dynamic import() and require() is resolved against the importing file and checked:
// - contract imports nothing of ours outside electron/contract (it is shared with the renderer) but the
//   catalogue's data, resources/presets/*.json (inlined by the bundlers);
// - kernel (electron/kernel) imports the contract only;
// - a service imports the contract, the kernel, its own folder, and another service only through
//   its index (electron/services/<area> or …/<area>/index); the engine never the tuner (it never
//   plans: the backend hands it the tuner's part as its Planner); reports never the tuner either (a report
//   reads what ran; the launch lines of a stored spec are the contract's launchExport);
// - server and cli import contract, kernel and services, never each other, main or preload;
// - main imports contract, kernel and services (not server or cli); preload the contract only;
// - the renderer imports the renderer and the contract only;
// - only electron/main and electron/preload import 'electron'.
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');

/** The layer of a repo-relative path, or null outside the checked tree. */
function layerOf(rel) {
  const p = rel.split(path.sep).join('/');
  if (p.startsWith('renderer/')) return { layer: 'renderer' };
  const m = /^electron\/([^/]+)(?:\/([^/]+))?/.exec(p);
  if (!m) return null;
  if (m[1] === 'services') return { layer: 'services', area: m[2] ?? null };
  return { layer: m[1] };
}

const ALLOWED = {
  contract: ['contract'],
  kernel: ['kernel', 'contract'],
  services: ['services', 'kernel', 'contract'],
  server: ['server', 'services', 'kernel', 'contract'],
  cli: ['cli', 'services', 'kernel', 'contract'],
  main: ['main', 'services', 'kernel', 'contract'],
  preload: ['preload', 'contract'],
  renderer: ['renderer', 'contract'],
};

/** Services an area must not import at all, and why. */
const AREAS_NOT_IMPORTED = {
  engine: { tuner: 'the engine never plans: the tuner reaches it only as the Planner the backend hands it (engine/planner.ts)' },
  reports: { tuner: "a report reads what ran (its stored spec), never plans: the launch lines are the contract's launchExport" },
};

function problem(fromRel, spec) {
  const from = layerOf(fromRel);
  if (!from) return null;
  if (spec === 'electron' || spec.startsWith('electron/')) {
    return from.layer === 'main' || from.layer === 'preload' ? null : `only electron/main and electron/preload import 'electron'`;
  }
  if (!spec.startsWith('.')) return null; // packages and node built-ins
  const targetRel = path.relative(root, path.resolve(root, path.dirname(fromRel), spec));
  const to = layerOf(targetRel);
  const shown = targetRel.split(path.sep).join('/');
  if (!to && from.layer === 'contract' && /^resources\/presets\/[^/]+\.json$/.test(shown)) return null;
  if (!to) return from.layer === 'renderer' ? null : `${from.layer} imports ${shown}, outside electron/`;
  const allowed = ALLOWED[from.layer];
  if (!allowed) return null;
  if (!allowed.includes(to.layer)) return `${from.layer} may import ${allowed.join(', ')}; not ${to.layer} (${shown})`;
  if (from.layer === 'services' && to.layer === 'services' && to.area !== from.area) {
    const why = AREAS_NOT_IMPORTED[from.area]?.[to.area];
    if (why) return `${from.area} imports ${to.area} (${shown}): ${why}`;
    const parts = shown.split('/'); // electron/services/<area>[/index]
    const viaIndex = parts.length === 3 || (parts.length === 4 && parts[3] === 'index');
    if (!viaIndex) return `a service reaches another only through its index: import 'electron/services/${to.area}', not ${shown}`;
  }
  return null;
}

const importsRule = {
  meta: { type: 'problem', docs: { description: 'the layering of docs/architecture.md' }, schema: [] },
  create(context) {
    const fromRel = path.relative(root, context.filename);
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string') return;
      const message = problem(fromRel, source.value);
      if (message) context.report({ node, message: `layering: ${message}` });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportEqualsDeclaration: (node) => check(node, node.moduleReference?.expression),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node, node.arguments[0]);
      },
    };
  },
};

export default { meta: { name: 'layering' }, rules: { imports: importsRule } };
