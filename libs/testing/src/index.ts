export * from './database';
export * from './fault-proxy';
