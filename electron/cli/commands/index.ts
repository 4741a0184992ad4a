// Every CLI command, one module per area.
import type { Command } from '../command';
import { basicCommands } from './basic';
import { reportsCommands } from './reports';
import { historyCommands } from './history';
import { hardwareCommands } from './hardware';
import { settingsCommands } from './settings';
import { clusterCommands } from './cluster';
import { measureCommands } from './measure';
import { engineCommands } from './engine';
import { planCommands } from './plan';
import { tuneCommands } from './tune';

export const commands: Record<string, Command> = {
  ...hardwareCommands,
  ...basicCommands,
  ...reportsCommands,
  ...historyCommands,
  ...settingsCommands,
  ...clusterCommands,
  ...measureCommands,
  ...engineCommands,
  ...planCommands,
  ...tuneCommands,
};
