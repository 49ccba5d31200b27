export * from './logger';
export * from './ops-server';
export * from './run-service';
