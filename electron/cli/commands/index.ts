// Every CLI command, one module per area.
import type { Command } from '../command';
import { basicCommands } from './basic';
import { settingsCommands } from './settings';
import { clusterCommands } from './cluster';

export const commands: Record<string, Command> = {
  ...basicCommands,
  ...settingsCommands,
  ...clusterCommands,
};
