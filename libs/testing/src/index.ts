export * from './database';
export * from './fault-proxy';
export * from './ports';
export * from './waiting';
export * from './hostile-text';
