// Every CLI command, one module per area.
import type { Command } from '../command';
import { basicCommands } from './basic';

export const commands: Record<string, Command> = {
  ...basicCommands,
};
