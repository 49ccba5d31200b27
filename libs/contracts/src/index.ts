export * from './json';
export * from './fields';
export * from './http';
export * from './link';
export * from './shop';
export * from './identity';
export * from './subjects';
export * from './events';
