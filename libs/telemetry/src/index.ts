export * from './logger';
export * from './metrics';
export * from './ops-server';
export * from './run-service';
export * from './trace-context';
