export { createClient } from './client';
export type { ApiClient, CreateClientOptions, Credentials } from './client';
// The generated types of docs/openapi.json: paths, operations, components and the rest.
export type * from './schema';
