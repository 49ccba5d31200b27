export * from './pool';
export * from './returned-row';
export * from './migrate';
export * from './write-batcher';
