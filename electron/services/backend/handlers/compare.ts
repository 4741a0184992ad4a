// History beyond the list: compare, export/import, delete, annotate, and the sample dataset.
import fs from 'node:fs';
import path from 'node:path';
import { ApiError, type RunsFile } from '../../../contract';
import { parseRunsText, readRunsFile, writeRunsFile } from '../../history';
import { validateExportTarget } from '../../reports';
import { samplesPath } from '../../resources';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';

type CompareChannels = 'compare/runs' | 'runs/export' | 'runs/import' | 'runs/delete' | 'runs/update' | 'samples/load';

/** The committed sample dataset(s): resources/samples/*.runs.json. */
export function sampleDatasets(): string[] {
  let dir: string;
  try {
    dir = samplesPath();
  } catch {
    return [];
  }
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.runs.json'))
    .sort()
    .map((f) => path.join(dir, f));
}

export function compareHandlers(ctx: BackendContext): HandlerMap<CompareChannels> {
  return {
    'compare/runs': ({ ids, baselineId }) => ctx.history.compare(ids, baselineId),
    'runs/export': ({ ids, path: target, overwrite }) => {
      // The path is on the machine the backend runs on (the server machine under `serve`): the
      // rules of reports/export (absolute, folder exists, no overwrite unless asked), a .json name
      // (a .conf or a script is never replaced), an exclusive temp file of a random name.
      if (path.extname(target).toLowerCase() !== '.json')
        throw new ApiError('bad_path', `A runs file must be a .json file; '${path.basename(target)}' is not.`, 'path');
      const file = validateExportTarget(target, 'json', overwrite === true).path;
      const content = ctx.history.exportRuns(ids);
      const bytes = writeRunsFile(file, content);
      return { path: file, count: content.runs.length, bytes };
    },
    'runs/import': ({ path: source, content, name }) => {
      let file: string;
      let runs: RunsFile;
      if (source !== undefined) {
        // A path is read on the machine running the backend: that is the point for the CLI, but
        // from a page (app or headless server) it would read, or probe, the server's files.
        if (ctx.transport !== 'cli')
          throw new ApiError(
            'bad_request',
            "field 'path': a file path is not accepted here; send the file's text as 'content' (with its file name as 'name'). The CLI imports by path: offload-studio import-runs FILE",
            'path',
          );
        file = path.resolve(source);
        runs = readRunsFile(file);
      } else {
        file = name ?? 'uploaded runs file';
        runs = parseRunsText(content!, file, 'content');
      }
      const result = ctx.history.importRuns(runs, { file, field: source !== undefined ? 'path' : 'content' });
      if (result.imported.length) ctx.emit('runs/changed', { reason: 'import', ids: result.imported });
      return result;
    },
    'runs/delete': ({ ids }) => {
      const deleted = ctx.history.deleteRuns(ids);
      ctx.emit('runs/changed', { reason: 'delete', ids });
      return { deleted };
    },
    'runs/update': ({ id, tags, notes }) => {
      const summary = ctx.history.updateRun(id, { tags, notes });
      ctx.emit('runs/changed', { reason: 'update', ids: [id] });
      return summary;
    },
    'samples/load': () => {
      const files = sampleDatasets();
      if (!files.length)
        throw new ApiError(
          'not_found',
          'No sample dataset is bundled in this build (resources/samples/*.runs.json). Import a runs file instead (runs/import).',
        );
      // Every bundled dataset, each labelled 'sample' so measured-elsewhere runs never pass for this machine's own.
      const imported: string[] = [];
      const skipped: { id: string; reason: string }[] = [];
      const dropped = new Set<string>();
      let source: ReturnType<typeof ctx.history.importRuns>['source'] = null;
      for (const file of files) {
        const result = ctx.history.importRuns(readRunsFile(file), { file, addTags: ['sample'] });
        imported.push(...result.imported);
        skipped.push(...result.skipped);
        for (const column of result.droppedColumns) dropped.add(column);
        source ??= result.source;
      }
      if (imported.length) ctx.emit('runs/changed', { reason: 'import', ids: imported });
      return { imported, skipped, source, droppedColumns: [...dropped], file: files[0], files };
    },
  };
}
