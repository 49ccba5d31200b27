export * from './provider';
export * from './http';
export * from './sender-allowlist';
export * from './raiffeisen-sbp';
