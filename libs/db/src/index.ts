export * from './pool';
export * from './returned-row';
export * from './migrate';
export * from './write-batcher';
export * from './shared-reads';
export * from './day-partitions';
