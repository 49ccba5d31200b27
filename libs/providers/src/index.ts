export * from './provider';
export * from './http';
export * from './sender-allowlist';
export * from './breaker';
export * from './raiffeisen-sbp';
export * from './crypto-value';
export * from './heleket';
