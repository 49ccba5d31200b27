export * from './identity-tokens';
export * from './nats-connection';
export * from './envelope';
export * from './bus-client';
export * from './bus-server';
export * from './kafka';
export * from './shop-copies';
