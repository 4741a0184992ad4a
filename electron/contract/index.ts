// The contract imports nothing of ours beyond this folder. Services, transports and the renderer import it.
export * from './channels';
export * from './client';
export * from './validate';
export * from './common';
export * from './hardware';
export * from './runs';
export * from './compare';
export * from './charts';
export * from './plan';
export * from './engine';
export * from './measure';
export * from './environment';
export * from './reports';
export * from './settings';
export * from './cluster';
export * from './wizard';
export * from './format';
