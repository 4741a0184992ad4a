import { loadWizardState, saveWizardState } from '../../wizard';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';

export function wizardHandlers(ctx: BackendContext): HandlerMap<'wizard/get' | 'wizard/save'> {
  return {
    'wizard/get': () => loadWizardState(ctx.dataDir),
    'wizard/save': (patch) => saveWizardState(ctx.dataDir, patch),
  };
}
