export * from './provider';
export * from './http';
export * from './crypto-value';
export * from './heleket';
