export * from './heleket';
