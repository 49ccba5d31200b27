export * from './pool';
export * from './migrate';
export * from './write-batcher';
