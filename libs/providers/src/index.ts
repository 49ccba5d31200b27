export * from './provider';
export * from './http';
